// SPDX-License-Identifier: Apache-2.0
// The errors the transport itself raises (as opposed to D-Bus error replies, which are DBusWire's `DBusError`).

/// A failure of the D-Bus transport: connecting, sending, awaiting a reply, or the link dropping.
///
/// Errors compare equal when their codes match, so `#expect(throws: TransportError.timedOut)` and
/// `catch let error as TransportError where error == .disconnected` work whatever the ``detail`` says.
public struct TransportError: Error, CustomStringConvertible, Sendable, Equatable {
    enum Code: Sendable, Equatable {
        case disconnected, timedOut, invalidAddress, connectionFailed, invalidMessage, cancelled, noSessionBus
        case noSystemBus
        case objectPathInUse, unexpectedReply, outOfMemory
    }

    let code: Code
    /// Extra context, for example the libdbus error message. Never contains secrets.
    public let detail: String?

    init(_ code: Code, _ detail: String? = nil) {
        self.code = code
        self.detail = detail
    }

    /// The same error with a different ``detail``.
    func with(detail: String?) -> TransportError { TransportError(code, detail) }

    /// The connection is closed or the bus dropped it.
    public static let disconnected = TransportError(.disconnected)
    /// A method call got no reply within its timeout.
    public static let timedOut = TransportError(.timedOut)
    /// The bus address could not be parsed.
    public static let invalidAddress = TransportError(.invalidAddress)
    /// The bus could not be reached, or refused authentication or registration.
    public static let connectionFailed = TransportError(.connectionFailed)
    /// A message could not be marshalled: a malformed value tree, an invalid name, or a missing header field.
    public static let invalidMessage = TransportError(.invalidMessage)
    /// The awaiting task was cancelled; the pending call was cancelled too.
    public static let cancelled = TransportError(.cancelled)
    /// There is no session bus address, or the session bus cannot be reached.
    public static let noSessionBus = TransportError(.noSessionBus)
    /// The system bus cannot be reached.
    public static let noSystemBus = TransportError(.noSystemBus)
    /// An object tree is already registered at that path on this connection.
    public static let objectPathInUse = TransportError(.objectPathInUse)
    /// The bus answered one of its own methods with a reply of the wrong shape.
    public static let unexpectedReply = TransportError(.unexpectedReply)
    /// libdbus could not allocate memory.
    public static let outOfMemory = TransportError(.outOfMemory)

    public static func == (lhs: TransportError, rhs: TransportError) -> Bool { lhs.code == rhs.code }

    /// A human sentence describing the failure.
    public var description: String {
        let summary = switch code {
        case .disconnected: "The D-Bus connection is closed"
        case .timedOut: "The D-Bus method call timed out"
        case .invalidAddress: "The D-Bus address is invalid"
        case .connectionFailed: "Could not connect to the D-Bus bus"
        case .invalidMessage: "The D-Bus message cannot be marshalled"
        case .cancelled: "The D-Bus method call was cancelled"
        case .noSessionBus: "No D-Bus session bus is available"
        case .noSystemBus: "The D-Bus system bus cannot be reached"
        case .objectPathInUse: "An object is already registered at that D-Bus path"
        case .unexpectedReply: "The bus sent a reply of an unexpected type"
        case .outOfMemory: "libdbus ran out of memory"
        }
        guard let detail, !detail.isEmpty else { return summary + "." }
        return summary + ": " + detail
    }
}
