// SPDX-License-Identifier: Apache-2.0
// The Keychain module: Apple's SecItem API for Swift on Linux over any Secret Service provider.

// LAContext travels with the SecItem API (kSecUseAuthenticationContext), as it does for Apple code that imports
// Security and LocalAuthentication together.
@_exported public import LocalAuthentication

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
        await ProviderRegistry.shared.close(key: configuration.busKey)
    }
}
