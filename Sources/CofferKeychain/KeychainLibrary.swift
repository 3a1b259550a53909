// SPDX-License-Identifier: Apache-2.0
// The CofferKeychain module: the Swift-style `Keychain` front and `KeychainConfiguration`, over Apple's SecItem API.

// Code that imports CofferKeychain gets the SecItem API and the settings type with it.
@_exported public import Security
@_exported public import CofferKeychainConfiguration

/// Namespace of the Keychain library: its version and connection management.
///
/// Everyday use needs none of this: call `SecItemAdd`, `SecItemCopyMatching`, `SecItemUpdate` and
/// `SecItemDelete` as on Apple platforms. The functions open one shared connection per bus lazily.
public enum KeychainLibrary {
    /// The library's version.
    public static let version = "0.1.0"

    /// Closes the shared connection to the bus of `configuration` (the next call reconnects). Tests use it before
    /// their private bus goes away; programs rarely need it.
    /// - Parameter configuration: names the bus.
    public static func closeConnection(for configuration: KeychainConfiguration = .current) async {
        await closeSharedConnection(busKey: configuration.busKey)
    }
}
