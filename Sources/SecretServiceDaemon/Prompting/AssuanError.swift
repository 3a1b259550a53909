// SPDX-License-Identifier: Apache-2.0
// Why an Assuan conversation with a helper program (pinentry) failed.

/// Why an Assuan conversation failed. None of the cases carries a secret.
enum AssuanError: Error, Equatable, CustomStringConvertible {
    /// The program could not be found or started.
    case launchFailed(String)
    /// The server answered `ERR code description`.
    case server(code: UInt32, description: String)
    /// The server closed the connection (exited, crashed).
    case disconnected
    /// Our task was cancelled (the prompt was dismissed or timed out, or the client left).
    case cancelled
    /// The server broke the protocol (a line too long, a flood of lines).
    case protocolViolation(String)
    /// Writing a command failed with this `errno`.
    case sendFailed(Int32)
    /// No secure memory was left for a line of data (a password).
    case noSecureMemory(String)

    /// libgpg-error codes, the low 16 bits of an `ERR` code (the high bits name the source, e.g. 5 = pinentry).
    enum GPGErrorCode {
        static let timeout: UInt32 = 62
        static let canceled: UInt32 = 99
        static let notConfirmed: UInt32 = 114
        static let fullyCanceled: UInt32 = 198
    }

    /// Whether the server reports that the user said no: cancelled, declined, or let pinentry's own timer run out.
    /// `ERR 83886179 Operation cancelled <Pinentry>` is source 5 (pinentry), code 99.
    var isUserDismissal: Bool {
        guard case .server(let code, _) = self else { return false }
        switch code & 0xFFFF {
        case GPGErrorCode.canceled, GPGErrorCode.fullyCanceled, GPGErrorCode.notConfirmed, GPGErrorCode.timeout:
            return true
        default: return false
        }
    }

    var description: String {
        switch self {
        case .launchFailed(let detail): "cannot start the program: \(detail)"
        case .server(let code, let text): "the program answered ERR \(code) \(text)"
        case .disconnected: "the program closed the connection"
        case .cancelled: "cancelled"
        case .protocolViolation(let detail): "protocol violation: \(detail)"
        case .sendFailed(let code): "cannot write to the program: errno \(code)"
        case .noSecureMemory(let detail): "no secure memory for the answer: \(detail)"
        }
    }
}
