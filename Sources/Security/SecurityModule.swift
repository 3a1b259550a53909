// SPDX-License-Identifier: Apache-2.0
// The Security module: Apple's SecItem API for Swift on Linux over any Secret Service provider.

// LAContext travels with the SecItem API (kSecUseAuthenticationContext), as it does for Apple code that imports
// Security and LocalAuthentication together.
@_exported public import LocalAuthentication

/// Closes the shared connection to the bus `busKey` names; `KeychainLibrary.closeConnection(for:)` in
/// CofferKeychain reaches the connection registry through this, keeping the registry itself private to Security.
/// - Parameter busKey: ``KeychainConfiguration/busKey`` of the bus.
package func closeSharedConnection(busKey: String) async {
    await ProviderRegistry.shared.close(key: busKey)
}
