// SPDX-License-Identifier: Apache-2.0
// One-shot HMAC-SHA256 (RFC 2104) over libgcrypt's MAC API.

/// HMAC with SHA-256.
public enum HMACSHA256 {
    /// The length of an HMAC-SHA256 code in bytes.
    public static let byteCount = 32

    /// Computes the HMAC-SHA256 of `message` under `key`.
    /// - Parameters:
    ///   - message: The bytes to authenticate.
    ///   - key: The secret key (any length; keys longer than 64 bytes are hashed first, as RFC 2104 specifies).
    /// - Returns: The 32-byte authentication code.
    /// - Throws: ``CryptoError`` if libgcrypt fails.
    ///
    /// The corresponding C functions are `gcry_mac_open`, `gcry_mac_setkey`, `gcry_mac_write` and `gcry_mac_read`.
    public static func authenticationCode(for message: [UInt8], key: SecretBytes) throws -> [UInt8] {
        let mac = try MACHandle(hmacSHA256Key: key)
        try message.withUnsafeBytes { try mac.write($0) }
        var code = [UInt8](repeating: 0, count: byteCount)
        try code.withUnsafeMutableBytes { try mac.read(into: $0) }
        return code
    }
}

extension HMACSHA256 {
    /// One keyed HMAC-SHA256 context for many messages, such as the chain of MACs over a file's records: opening and
    /// keying a context costs more than authenticating a short record. Not shared between threads.
    public final class Authenticator {
        private let handle: MACHandle

        /// - Parameter key: the secret key.
        /// - Throws: ``CryptoError`` if libgcrypt refuses (no secure memory left).
        public init(key: SecretBytes) throws {
            handle = try MACHandle(hmacSHA256Key: key)
        }

        /// The 32-byte code of `first ‖ second`.
        /// - Throws: ``CryptoError`` if libgcrypt fails.
        public func code(for first: ArraySlice<UInt8>, _ second: ArraySlice<UInt8>) throws -> [UInt8] {
            try handle.reset()
            try first.withUnsafeBytes { try handle.write($0) }
            try second.withUnsafeBytes { try handle.write($0) }
            var code = [UInt8](repeating: 0, count: byteCount)
            try code.withUnsafeMutableBytes { try handle.read(into: $0) }
            return code
        }
    }
}
