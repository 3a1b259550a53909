// SPDX-License-Identifier: Apache-2.0
// The typed error of the `Keychain` wrapper, carrying the OSStatus the SecItem core returned.

extension Keychain {
    /// Why a `Keychain` call failed. Every case has the `OSStatus` the SecItem functions would return.
    ///
    /// A missing item is not an error for the getters (they return `nil`); it is one for ``Keychain/remove(_:)``
    /// only in the sense that nothing happens, so it is not thrown there either.
    public enum Error: Swift.Error, Sendable, Hashable, CustomStringConvertible {
        /// `errSecDuplicateItem`: another item has this primary key (only from lower-level races).
        case duplicateItem
        /// `errSecItemNotFound`.
        case itemNotFound
        /// `errSecInteractionNotAllowed`: the collection is locked and prompts are not allowed.
        case interactionNotAllowed
        /// `errSecUserCanceled`: the unlock prompt was dismissed.
        case userCanceled
        /// `errSecNotAvailable`: no Secret Service provider on the bus.
        case notAvailable
        /// `errSecNoDefaultKeychain`: there is no default collection and none could be created.
        case noDefaultKeychain
        /// `errSecAuthFailed`.
        case authFailed
        /// `errSecParam`: an invalid value (for example an attribute the class lacks).
        case invalidParameter
        /// `errSecUnimplemented`: a feature that cannot be honoured here.
        case unimplemented
        /// `errSecDecode`: the stored value is not of the type asked for (not UTF-8, not decodable).
        case conversionFailed
        /// Any other status.
        case unhandled(OSStatus)

        /// Maps a SecItem status to a case.
        /// - Parameter status: a failing `errSec…` code.
        public init(status: OSStatus) {
            switch status {
            case errSecDuplicateItem: self = .duplicateItem
            case errSecItemNotFound: self = .itemNotFound
            case errSecInteractionNotAllowed: self = .interactionNotAllowed
            case errSecUserCanceled: self = .userCanceled
            case errSecNotAvailable: self = .notAvailable
            case errSecNoDefaultKeychain: self = .noDefaultKeychain
            case errSecAuthFailed: self = .authFailed
            case errSecParam: self = .invalidParameter
            case errSecUnimplemented: self = .unimplemented
            case errSecDecode: self = .conversionFailed
            default: self = .unhandled(status)
            }
        }

        /// The status code.
        public var status: OSStatus {
            switch self {
            case .duplicateItem: errSecDuplicateItem
            case .itemNotFound: errSecItemNotFound
            case .interactionNotAllowed: errSecInteractionNotAllowed
            case .userCanceled: errSecUserCanceled
            case .notAvailable: errSecNotAvailable
            case .noDefaultKeychain: errSecNoDefaultKeychain
            case .authFailed: errSecAuthFailed
            case .invalidParameter: errSecParam
            case .unimplemented: errSecUnimplemented
            case .conversionFailed: errSecDecode
            case .unhandled(let status): status
            }
        }

        /// Apple's message for the status.
        public var description: String {
            secErrorMessages[status] ?? "OSStatus \(status)"
        }
    }
}
