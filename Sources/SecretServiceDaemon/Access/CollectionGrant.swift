// SPDX-License-Identifier: Apache-2.0
// One "always allow" of a whole collection, or of one Keychain access group in it, as the sealed list keeps it.

/// An entry of a collection's "always allow" list (record type 6): an application allowed every item of the
/// collection, or every item of one `Keychain` access group in it.
///
/// The list holds strings: the identity alone, or the identity, a NUL and the group. Neither an identity (paths and
/// app ids) nor anything that arrives over D-Bus can hold a NUL, so no whole-collection entry reads as a group's.
struct CollectionGrant: Hashable, Sendable {
    var application: String
    /// `nil`: every item of the collection.
    var accessGroup: String?

    init(application: String, accessGroup: String? = nil) {
        self.application = application
        self.accessGroup = accessGroup
    }

    init(entry: String) {
        if let separator = entry.firstIndex(of: "\0") {
            application = String(entry[..<separator])
            accessGroup = String(entry[entry.index(after: separator)...])
        } else {
            application = entry
            accessGroup = nil
        }
    }

    var entry: String { accessGroup.map { application + "\0" + $0 } ?? application }

    /// Whether this entry lets `application` use an item of `group` (`nil`: no access group).
    func allows(_ application: String, itemGroup group: String?) -> Bool {
        self.application == application && (accessGroup == nil || accessGroup == group)
    }
}
