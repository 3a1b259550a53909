// SPDX-License-Identifier: Apache-2.0
// The one error type the keyring-file parsers throw; descriptions never contain secret bytes.

/// Why a keyring file could not be read.
public enum KeyringFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes are in none of the known formats.
    case unrecognizedFormat
    /// A known format in a version or variant this parser does not read.
    case unsupportedVersion(String)
    /// The file is encrypted and no password (or an empty one where the format forbids it) was given.
    case passwordRequired
    /// The password does not decrypt the file (or the encrypted part was altered).
    case wrongPassword
    /// The file ends in the middle of a structure.
    case truncated(String)
    /// A structure is invalid (bad length, bad UTF-8, an unknown type tag, …).
    case malformed(String)
    /// A count or cost in the file is beyond what the parser accepts.
    case limitExceeded(String)

    public var description: String {
        switch self {
        case .unrecognizedFormat:
            return "the file is not a gnome-keyring, libsecret or coffer keyring file"
        case .unsupportedVersion(let what):
            return "unsupported keyring file version: \(what)"
        case .passwordRequired:
            return "the keyring file is encrypted; its password is needed"
        case .wrongPassword:
            return "the password does not unlock this keyring file (or the file was altered)"
        case .truncated(let what):
            return "the keyring file is truncated: it ends inside \(what)"
        case .malformed(let what):
            return "the keyring file is corrupt: \(what)"
        case .limitExceeded(let what):
            return "the keyring file exceeds a limit: \(what)"
        }
    }
}
