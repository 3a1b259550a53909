// SPDX-License-Identifier: Apache-2.0
// `kSecAttrAccount` and `"acct"` are the same dictionary key, as on Apple platforms.

#if !canImport(Darwin)
public import Foundation

// Darwin's Foundation gives NSString (and so every CFString) a String as its AnyHashable form: a constant used as
// a key of `[AnyHashable: Any]` finds what a plain string stored, `result[kSecAttrAccount]` reads a result, and
// `NSDictionary(dictionary: query).isEqual(to: query)` holds for queries built from constants. swift-corelibs-
// foundation leaves NSString hashing as an object, so the `kSec…` constants (CFString = NSString here) would
// never equal the strings the keychain hands back. This conformance restores Darwin's rule for every NSString in
// the process, which is what code written for Apple platforms assumes anyway.
extension NSString: @retroactive _HasCustomAnyHashableRepresentation {
    /// The string's value as a Swift `String`, which is how Darwin's Foundation hashes NSString.
    public func _toCustomAnyHashable() -> AnyHashable? {
        AnyHashable(String._unconditionallyBridgeFromObjectiveC(self))
    }
}
#endif
