// SPDX-License-Identifier: Apache-2.0
// The login channel's wire format (docs/PAM.md): one request in, one status byte out.

#if canImport(Glibc)
import Glibc
#endif
import SecretCrypto

/// A request from the PAM module, its passwords read straight from the socket into secure memory.
///
/// On the wire: a version byte (1), an operation byte (1 unlock, 2 change password), then each password as a 32-bit
/// big-endian length and that many bytes: one for unlock, the old then the new for a change. The answer is one
/// ``LoginOutcome`` byte.
enum LoginRequest: Sendable {
    case unlock(password: SecretBytes)
    case changePassword(old: SecretBytes, new: SecretBytes)

    static let version: UInt8 = 1
    /// The longest password accepted, as for `cofferd --unlock`.
    static let maximumPasswordBytes = 4096

    enum Operation: UInt8 {
        case unlock = 1
        case changePassword = 2
    }

    /// Why a request could not be read; never carries request bytes.
    enum ReadError: Error, Equatable {
        /// The peer closed, timed out or sent fewer bytes than announced.
        case truncated
        /// An unknown version or operation, or a password over the limit.
        case malformed
        /// No secure memory for the password.
        case noSecureMemory
    }

    /// Reads one request from a blocking socket (its receive timeout bounds a slow peer).
    static func read(from descriptor: Int32) throws(ReadError) -> LoginRequest {
        var header: [UInt8] = [0, 0]
        try readExactly(descriptor, into: &header)
        guard header[0] == version, let operation = Operation(rawValue: header[1]) else { throw .malformed }
        switch operation {
        case .unlock:
            return .unlock(password: try readPassword(descriptor))
        case .changePassword:
            let old = try readPassword(descriptor)
            return .changePassword(old: old, new: try readPassword(descriptor))
        }
    }

    private static func readPassword(_ descriptor: Int32) throws(ReadError) -> SecretBytes {
        var prefix: [UInt8] = [0, 0, 0, 0]
        try readExactly(descriptor, into: &prefix)
        let length = prefix.reduce(0) { $0 << 8 | Int($1) }
        guard length <= maximumPasswordBytes else { throw .malformed }
        let password: SecretBytes
        do {
            password = try SecretBytes(count: length)
        } catch {
            throw .noSecureMemory
        }
        let complete = password.withUnsafeMutableBytes { readAll(descriptor, $0) }
        guard complete else {
            password.wipe()
            throw .truncated
        }
        return password
    }

    private static func readExactly(_ descriptor: Int32, into bytes: inout [UInt8]) throws(ReadError) {
        guard bytes.withUnsafeMutableBytes({ readAll(descriptor, $0) }) else { throw .truncated }
    }

    /// Fills `buffer` from the socket; `false` on end of file, a timeout or an error.
    private static func readAll(_ descriptor: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Bool {
        var offset = 0
        while offset < buffer.count {
            let count = Glibc.read(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }

    /// Wipes the passwords now rather than when the last reference goes.
    func wipe() {
        switch self {
        case .unlock(let password): password.wipe()
        case .changePassword(let old, let new): old.wipe(); new.wipe()
        }
    }
}
