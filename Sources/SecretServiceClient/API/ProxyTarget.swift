// SPDX-License-Identifier: Apache-2.0
// The one place the proxies make D-Bus calls, check reply signatures and translate failures.

import DBusTransport
import DBusWire
import SecretServiceProtocol

/// An object on the provider that the proxies call: the connection, the provider's bus name and the path.
struct ProxyTarget: Sendable {
    let connection: Connection
    let destination: BusName
    let path: ObjectPath

    /// Makes one method call and returns the reply body after checking its signature.
    /// - Parameters:
    ///   - interface: the interface the member belongs to.
    ///   - member: the method.
    ///   - arguments: the body, already in the spec's types.
    ///   - expecting: the signature the reply must have.
    /// - Returns: the reply body and the message itself (its `sender` is the provider's unique name).
    /// - Throws: `SecretServiceError`, `SecretServiceClientError` or `CancellationError` (see ``translate(_:)``).
    @discardableResult
    func call(_ interface: InterfaceName, _ member: MemberName, _ arguments: [DBusValue] = [],
              expecting: Signature) async throws -> (body: [DBusValue], reply: Message) {
        let message = Message.methodCall(destination: destination, path: path, interface: interface, member: member,
                                         body: arguments)
        let reply: Message
        do {
            reply = try await connection.call(message)
        } catch {
            throw Self.translate(error)
        }
        guard reply.signature == expecting else {
            throw SecretServiceClientError.unexpectedReply(
                "\(interface).\(member) returned '\(reply.signature)', expected '\(expecting)'")
        }
        return (reply.body, reply)
    }

    /// Sends a method call without waiting for (or wanting) a reply; used where awaiting is impossible, such as
    /// dismissing a prompt from a cancelled task.
    func callNoReply(_ interface: InterfaceName, _ member: MemberName, _ arguments: [DBusValue] = []) async throws {
        var message = Message.methodCall(destination: destination, path: path, interface: interface, member: member,
                                         body: arguments)
        message.noReplyExpected = true
        do {
            _ = try await connection.send(message)
        } catch {
            throw Self.translate(error)
        }
    }

    /// Maps transport and D-Bus failures to the client's error vocabulary: a missing provider becomes
    /// ``SecretServiceClientError/noProvider``, other error replies `SecretServiceError`, link failures
    /// ``SecretServiceClientError/transport(_:)``, and a cancelled call `CancellationError`.
    static func translate(_ error: any Error) -> any Error {
        switch error {
        case let dbus as DBusError:
            switch dbus.name {
            case .serviceUnknown, .nameHasNoOwner:
                return SecretServiceClientError.noProvider
            case .noReply, .disconnected:
                return SecretServiceClientError.transport(dbus.description)
            default:
                return SecretServiceError(dbus)
            }
        case let transport as TransportError:
            if transport == .cancelled { return CancellationError() }
            return SecretServiceClientError.transport(transport.description)
        case is CancellationError, is SecretServiceClientError, is SecretServiceError:
            return error
        default:
            return SecretServiceClientError.transport("\(error)")
        }
    }
}

// MARK: - Reply decoding

/// Typed reads of reply values whose signature was already checked; a mismatch is still reported, never trapped.
enum ReplyValue {
    static func objectPath(_ value: DBusValue, _ what: String) throws -> ObjectPath {
        guard let path = value.objectPath else { throw SecretServiceClientError.unexpectedReply("\(what) is not a path") }
        return path
    }

    static func objectPaths(_ value: DBusValue, _ what: String) throws -> [ObjectPath] {
        guard let elements = value.arrayElements else {
            throw SecretServiceClientError.unexpectedReply("\(what) is not an array of paths")
        }
        return try elements.map { try objectPath($0, what) }
    }

    static func string(_ value: DBusValue, _ what: String) throws -> String {
        guard let text = value.string else { throw SecretServiceClientError.unexpectedReply("\(what) is not a string") }
        return text
    }

    static func bool(_ value: DBusValue, _ what: String) throws -> Bool {
        guard let flag = value.bool else { throw SecretServiceClientError.unexpectedReply("\(what) is not a boolean") }
        return flag
    }

    static func uint64(_ value: DBusValue, _ what: String) throws -> UInt64 {
        guard let number = value.uint64 else { throw SecretServiceClientError.unexpectedReply("\(what) is not a uint64") }
        return number
    }

    static func attributes(_ value: DBusValue, _ what: String) throws -> [String: String] {
        guard let map = value.stringDictionary else {
            throw SecretServiceClientError.unexpectedReply("\(what) is not a string-to-string map")
        }
        return map
    }

    static func secret(_ value: DBusValue, _ what: String) throws -> WireSecret {
        guard let secret = WireSecret(value) else {
            throw SecretServiceClientError.unexpectedReply("\(what) is not a (oayays) secret")
        }
        return secret
    }
}
