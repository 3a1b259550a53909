// SPDX-License-Identifier: Apache-2.0
// The Keychain module: Apple's SecItem API for Swift on Linux over any Secret Service provider.

/// Namespace of the Keychain library. The SecItem functions and `kSec…` constants arrive with the Keychain
/// milestone; until then the product exists so dependents can already link it.
public enum KeychainLibrary {
    /// The library's version.
    public static let version = "0.1.0"
}
