// SPDX-License-Identifier: Apache-2.0
// SecRandomCopyBytes: the random bytes keychain code makes its keys and tokens from, from libgcrypt.

import SecretCrypto

// Code that keeps a symmetric key in the keychain usually makes it a few lines earlier with
// SecRandomCopyBytes(kSecRandomDefault, count, &bytes); without it those files do not compile.

/// Apple's random-number generator handle; only the default generator exists.
public final class SecRandom: Sendable {}

/// The default generator: libgcrypt's strong random pool.
public let kSecRandomDefault: SecRandom? = nil

/// Fills `bytes` with `count` cryptographically strong random bytes.
/// - Returns: `errSecSuccess`, or `errSecParam` for a negative count.
public func SecRandomCopyBytes(_ rnd: SecRandom?, _ count: Int, _ bytes: UnsafeMutableRawPointer) -> Int32 {
    guard count >= 0 else { return errSecParam }
    guard count > 0 else { return errSecSuccess }
    var random = SecureRandom.bytes(count: count)
    random.withUnsafeBytes { bytes.copyMemory(from: $0.baseAddress!, byteCount: count) }
    // The caller may make a key of these bytes: leave no second copy behind.
    random.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) }
    return errSecSuccess
}
