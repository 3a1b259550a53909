// SPDX-License-Identifier: Apache-2.0
// The `access-control` setting: per collection, whether applications may use each other's items unasked.

/// How a collection guards its items from applications that did not create them (docs/ACCESS-CONTROL.md).
public enum AccessControl: String, Sendable, Hashable, CaseIterable {
    /// Every client of the user reads and changes every item, as before access control existed.
    case off
    /// Another application's secret, or changing or deleting its item, needs the user's consent; searching,
    /// labels and attributes stay visible.
    case ask
    /// As `ask`, and items an application may not read are left out of its searches and show it no label or
    /// attributes.
    case strict
}

/// The `access-control` settings of cofferd.conf: a default and per-collection choices.
public struct AccessPolicy: Sendable, Hashable {
    public var defaults: AccessControl
    public var collections: [String: AccessControl]

    /// `ask` for every collection unless told otherwise. Items stored before creators were recorded, and imported
    /// ones, become the first application's that uses them, so turning it on asks nothing about the items a user
    /// already has (docs/ACCESS-CONTROL.md).
    public init(defaults: AccessControl = .ask, collections: [String: AccessControl] = [:]) {
        self.defaults = defaults
        self.collections = collections
    }

    /// The setting for `collection`.
    public func mode(for collection: String) -> AccessControl { collections[collection] ?? defaults }

    /// Whether no collection is guarded, so callers need not be identified at all.
    public var isOff: Bool { defaults == .off && collections.values.allSatisfy { $0 == .off } }

    /// No access control: for routers built without a policy (tests of other features, tools).
    public static let off = AccessPolicy(defaults: .off)
}
