// SPDX-License-Identifier: Apache-2.0
// The CLI's own failure type and the mapping of every library error to one stderr line and an exit status.

import ArgumentParser
import DBusTransport
import DBusWire
import Foundation
import CofferKeychain
import SecretServiceClient
import SecretServiceProtocol

/// A failure a command reports on its own: the class decides the exit status, the message is the one line the user
/// reads. Messages never contain secrets.
struct CofferError: Error, CustomStringConvertible, Sendable {
    let status: ExitStatus
    let message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    var description: String { message }

    static func notFound(_ message: String = "The specified item could not be found in the keychain.") -> CofferError {
        CofferError(.notFound, message)
    }

    static func badArguments(_ message: String) -> CofferError { CofferError(.badArguments, message) }

    static func noSuchKeychain(_ name: String) -> CofferError {
        CofferError(.noSuchKeychain, "no keychain (collection) named '\(name)'")
    }

    /// Nothing owns `org.freedesktop.secrets` and the bus cannot start a provider. Every verb reports this with
    /// exactly this line, whichever layer noticed it (the client, the Keychain library, the status probe).
    static let noProvider = CofferError(
        .noProvider, "no Secret Service provider on the session bus (nothing owns org.freedesktop.secrets and none "
            + "can be activated); start cofferd, or run `coffer doctor`")

    /// The session bus cannot be reached. Every verb reports this with this line; `detail` is libdbus's reason.
    static func noBus(_ detail: String) -> CofferError {
        var reason = FailureReport.oneLine(detail)
        if reason.hasSuffix(".") { reason.removeLast() }
        return CofferError(.noProvider, "cannot connect to the session bus: \(reason); "
            + "check DBUS_SESSION_BUS_ADDRESS, or run `coffer doctor`")
    }
}

/// Turns any error a command throws into the status and the single line printed for it.
enum FailureReport {
    /// - Parameter error: what the command threw.
    /// - Returns: the exit status and a one-line message (no trailing newline, no secrets).
    static func describe(_ error: any Error) -> (status: ExitStatus, message: String) {
        switch error {
        case let error as CofferError:
            return (error.status, error.message)
        case let error as SecretServiceClientError:
            return describe(error)
        case let error as SecretServiceError:
            return describe(error)
        case let error as TransportError:
            if Self.busUnreachable.contains(error) {
                return describe(CofferError.noBus(error.description))
            }
            return (.failure, "D-Bus: \(error)")
        case let error as KeychainStatusError:
            return (error.exitStatus, error.message)
        case is CancellationError:
            return (.cancelled, "cancelled")
        case let error as ValidationError:
            return (.badArguments, error.message)
        case let error as CocoaError where error.code == .fileReadNoSuchFile || error.code == .fileNoSuchFile:
            return (.noInput, oneLine(error.localizedDescription))
        case let error as CocoaError where error.code == .fileReadNoPermission:
            return (.noInput, oneLine(error.localizedDescription))
        case let error as CocoaError where error.code.rawValue >= 512 && error.code.rawValue < 1024:
            return (.ioError, oneLine(error.localizedDescription))
        default:
            return (.failure, oneLine(String(describing: error)))
        }
    }

    private static func describe(_ error: SecretServiceClientError) -> (status: ExitStatus, message: String) {
        switch error {
        case .noProvider: describe(CofferError.noProvider)
        case .dismissed: (.cancelled, "the prompt was dismissed")
        case .promptNotShown(let reason): (.cancelled, oneLine(reason))
        case .transport(let detail) where Self.meansNoBus(detail): describe(CofferError.noBus(detail))
        default: (.failure, oneLine(error.description))
        }
    }

    private static func describe(_ error: SecretServiceError) -> (status: ExitStatus, message: String) {
        let detail = oneLine(error.dbusError.message)
        func line(_ text: String) -> String { detail.isEmpty ? text : "\(text): \(detail)" }
        switch error {
        case .isLocked: return (.locked, line("locked"))
        case .noSuchObject: return (.notFound, line("no such object"))
        case .alreadyExists: return (.duplicate, line("already exists"))
        case .denied, .accessDenied: return (.authenticationFailed, line("access denied"))
        case .invalidArgs: return (.badArguments, line("the provider rejected the arguments"))
        case .notSupported, .unknownMethod, .unknownProperty, .propertyReadOnly:
            return (.unsupported, line("not supported by the provider"))
        default: return (.failure, line("the provider failed"))
        }
    }

    /// The transport failures that mean the bus itself cannot be reached.
    private static let busUnreachable: [TransportError] = [.noSessionBus, .connectionFailed, .invalidAddress]

    /// Whether a transport failure's text says the bus itself is unreachable (the client reports transport
    /// failures as text only, starting with the transport's own description; without a detail that description is
    /// the summary and a full stop, which is dropped to match the summary with or without a detail).
    private static func meansNoBus(_ detail: String) -> Bool {
        busUnreachable.contains { detail.contains(String($0.description.dropLast())) }
    }

    /// Keeps the promise of one line: newlines inside provider messages become spaces.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}

/// A failed `SecItem…` call: the `errSec…` code, reported with Apple's text as security(1) does.
struct KeychainStatusError: Error, Sendable {
    let status: OSStatus
    /// The security(1) operation name printed before the text, for example `SecKeychainSearchCopyNext`.
    let operation: String
    /// What the provider said about it, when the status alone hides the cause (a prompt it could not show).
    var detail: String?

    var message: String {
        let text = SecCopyErrorMessageString(status, nil).map { String(describing: $0) } ?? "OSStatus \(status)"
        return "\(operation): \(text)" + (detail.map { " (\(FailureReport.oneLine($0)))" } ?? "")
    }

    var exitStatus: ExitStatus {
        switch status {
        case errSecItemNotFound: .notFound
        case errSecDuplicateItem: .duplicate
        case errSecUserCanceled: .cancelled
        case errSecInteractionNotAllowed, errSecInteractionRequired: .locked
        case errSecAuthFailed: .authenticationFailed
        case errSecNoSuchKeychain, errSecNoDefaultKeychain: .noSuchKeychain
        case errSecDuplicateKeychain: .duplicateKeychain
        case errSecNotAvailable, errSecServiceNotAvailable: .noProvider
        case errSecParam: .badArguments
        case errSecUnimplemented: .unsupported
        default: .failure
        }
    }

    /// Throws unless `status` is `errSecSuccess`.
    static func check(_ status: OSStatus, _ operation: String) throws {
        guard status == errSecSuccess else { throw KeychainStatusError(status: status, operation: operation) }
    }
}
