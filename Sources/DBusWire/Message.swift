// SPDX-License-Identifier: Apache-2.0
// A D-Bus message as a plain value: header fields plus a body of DBusValues.

/// A D-Bus message. The transport converts it to and from libdbus messages at the edge; everything above the
/// transport sees only this value type.
public struct Message: Sendable, Hashable {
    /// The four D-Bus message types.
    public enum Kind: Sendable, Hashable {
        case methodCall, methodReturn, error, signal
    }

    public var kind: Kind
    /// Assigned by the connection when the message is sent; `0` before that.
    public var serial: UInt32
    /// For replies and errors: the serial of the call they answer.
    public var replySerial: UInt32?
    public var path: ObjectPath?
    public var interface: InterfaceName?
    public var member: MemberName?
    public var errorName: ErrorName?
    public var destination: BusName?
    /// Filled by the bus on receipt: the sender's unique name.
    public var sender: BusName?
    public var body: [DBusValue]
    /// For method calls: the caller does not want a reply.
    public var noReplyExpected: Bool
    /// For method calls: the bus must not auto-start the destination.
    public var noAutoStart: Bool

    public init(kind: Kind, serial: UInt32 = 0, replySerial: UInt32? = nil, path: ObjectPath? = nil,
                interface: InterfaceName? = nil, member: MemberName? = nil, errorName: ErrorName? = nil,
                destination: BusName? = nil, sender: BusName? = nil, body: [DBusValue] = [],
                noReplyExpected: Bool = false, noAutoStart: Bool = false) {
        self.kind = kind
        self.serial = serial
        self.replySerial = replySerial
        self.path = path
        self.interface = interface
        self.member = member
        self.errorName = errorName
        self.destination = destination
        self.sender = sender
        self.body = body
        self.noReplyExpected = noReplyExpected
        self.noAutoStart = noAutoStart
    }

    /// The signature of the body.
    public var signature: Signature { Signature(body.map(\.type)) }

    /// A method call.
    public static func methodCall(destination: BusName?, path: ObjectPath, interface: InterfaceName?,
                                  member: MemberName, body: [DBusValue] = []) -> Message {
        Message(kind: .methodCall, path: path, interface: interface, member: member, destination: destination,
                body: body)
    }

    /// A broadcast signal.
    public static func signal(path: ObjectPath, interface: InterfaceName, member: MemberName,
                              body: [DBusValue] = [], destination: BusName? = nil) -> Message {
        Message(kind: .signal, path: path, interface: interface, member: member, destination: destination,
                body: body)
    }

    /// The successful reply to this method call.
    public func makeReply(_ body: [DBusValue] = []) -> Message {
        Message(kind: .methodReturn, replySerial: serial, destination: sender, body: body)
    }

    /// The error reply to this method call.
    public func makeErrorReply(_ error: DBusError) -> Message {
        Message(kind: .error, replySerial: serial, errorName: error.name, destination: sender,
                body: [.string(error.message)])
    }

    /// For an error message: the error it carries (name plus the first string argument, if any).
    public var error: DBusError? {
        guard kind == .error, let errorName else { return nil }
        return DBusError(errorName, body.first?.string ?? "")
    }
}
