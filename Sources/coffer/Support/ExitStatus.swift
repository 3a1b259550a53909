// SPDX-License-Identifier: Apache-2.0
// The exit status of every coffer command, one per class of failure, in one table.

/// How a `coffer` command ended. Scripts test these numbers, so they never change once released.
///
/// Where security(1) has a status for the same failure it is reused: security exits with the low byte of the
/// `errSec…` code (44 for `errSecItemNotFound`, 45 for `errSecDuplicateItem`, …), and scripts written for macOS
/// test those. The remaining classes use the BSD `sysexits.h` numbers.
enum ExitStatus: Int32, CaseIterable, Sendable {
    /// Done.
    case success = 0
    /// Something unexpected: a provider that misbehaves, a D-Bus transport failure, an internal error.
    case failure = 1
    /// The user (or the provider) dismissed a prompt, or stdin/tty gave no secret (security: `errSecUserCanceled`
    /// is 128).
    case cancelled = 128
    /// A collection or item is locked and could not be unlocked without interaction (security:
    /// `errSecInteractionNotAllowed`, 36).
    case locked = 36
    /// No item matched (security: `errSecItemNotFound`, 44).
    case notFound = 44
    /// The item already exists and `-U` (update) was not given (security: `errSecDuplicateItem`, 45).
    case duplicate = 45
    /// A keychain (collection) with that name already exists, so `create-keychain` made none (security:
    /// `errSecDuplicateKeychain`, 48).
    case duplicateKeychain = 48
    /// The named keychain (collection) does not exist (security: `errSecNoSuchKeychain`, 50).
    case noSuchKeychain = 50
    /// A password was wrong or the provider refused access (security: `errSecAuthFailed`, 51).
    case authenticationFailed = 51
    /// No session bus, or no Secret Service provider on it that could be started (security:
    /// `errSecNotAvailable`, 53).
    case noProvider = 53
    /// Bad arguments: unknown option, missing value, contradicting flags (sysexits `EX_USAGE`, also
    /// swift-argument-parser's own validation failure status).
    case badArguments = 64
    /// An input file's content is malformed or of an unknown format (sysexits `EX_DATAERR`).
    case badData = 65
    /// An input file does not exist or cannot be read (sysexits `EX_NOINPUT`).
    case noInput = 66
    /// The provider does not support the operation (sysexits `EX_UNAVAILABLE`).
    case unsupported = 69
    /// Writing a file or to the terminal failed (sysexits `EX_IOERR`).
    case ioError = 74

    /// One line for the table in `coffer help`.
    var meaning: String {
        switch self {
        case .success: "success"
        case .failure: "unexpected failure (provider misbehaved, D-Bus transport error)"
        case .cancelled: "a prompt was dismissed, or no secret was entered"
        case .locked: "the collection or item is locked"
        case .notFound: "no matching item"
        case .duplicate: "the item already exists (use -U to update it)"
        case .duplicateKeychain: "a keychain (collection) with that name already exists"
        case .noSuchKeychain: "no such keychain (collection)"
        case .authenticationFailed: "wrong password, or access denied"
        case .noProvider: "no session bus, or no Secret Service provider on it"
        case .badArguments: "bad arguments"
        case .badData: "an input file is malformed or of an unknown format"
        case .noInput: "an input file is missing or unreadable"
        case .unsupported: "the provider does not support the operation"
        case .ioError: "writing output or a file failed"
        }
    }

    /// The table of statuses, for the root command's discussion (`coffer help`).
    static var helpTable: String {
        allCases.sorted { $0.rawValue < $1.rawValue }.map { status in
            let number = String(status.rawValue)
            return "  " + String(repeating: " ", count: max(0, 3 - number.count)) + number + "  " + status.meaning
        }.joined(separator: "\n")
    }
}
