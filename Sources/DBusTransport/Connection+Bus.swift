// SPDX-License-Identifier: Apache-2.0
// The org.freedesktop.DBus methods a bus client needs: match rules, names, owners and peer credentials.

public import DBusWire
import Glibc

extension Connection {
    private static let bus: BusName = "org.freedesktop.DBus"
    private static let busPath: ObjectPath = "/org/freedesktop/DBus"
    private static let busInterface: InterfaceName = "org.freedesktop.DBus"

    /// Calls a method of the bus itself.
    private func callBus(_ member: MemberName, _ body: [DBusValue]) async throws -> Message {
        try await call(.methodCall(destination: Self.bus, path: Self.busPath, interface: Self.busInterface,
                                   member: member, body: body))
    }

    /// Asks the bus to route messages matching `rule` to us (`org.freedesktop.DBus.AddMatch`).
    /// - Parameter rule: a match rule such as `type='signal',interface='org.example.Iface'`.
    /// - Throws: DBusWire's `DBusError` (`MatchRuleInvalid`, `LimitsExceeded`) or a ``TransportError``.
    public func addMatch(_ rule: String) async throws {
        _ = try await callBus("AddMatch", [.string(rule)])
    }

    /// Removes a rule added with ``addMatch(_:)`` (`org.freedesktop.DBus.RemoveMatch`).
    /// - Throws: DBusWire's `DBusError` (`MatchRuleNotFound`) or a ``TransportError``.
    public func removeMatch(_ rule: String) async throws {
        _ = try await callBus("RemoveMatch", [.string(rule)])
    }

    /// Requests a well-known name (`org.freedesktop.DBus.RequestName`).
    /// - Throws: DBusWire's `DBusError` (for example `AccessDenied`), or ``TransportError/unexpectedReply``.
    public func requestName(_ name: BusName, flags: RequestNameFlags) async throws -> RequestNameReply {
        let reply = try await callBus("RequestName", [.string(name.rawValue), .uint32(flags.rawValue)])
        guard let code = reply.body.first?.uint32, let result = RequestNameReply(rawValue: code) else {
            throw TransportError.unexpectedReply.with(detail: "RequestName returned \(reply.signature)")
        }
        return result
    }

    /// Gives up a well-known name, or our place in its queue (`org.freedesktop.DBus.ReleaseName`).
    /// Releasing a name we do not hold is not an error.
    public func releaseName(_ name: BusName) async throws {
        _ = try await callBus("ReleaseName", [.string(name.rawValue)])
    }

    /// The unique name owning `name` (`org.freedesktop.DBus.GetNameOwner`); `nil` when it has no owner.
    public func nameOwner(of name: BusName) async throws -> BusName? {
        do {
            let reply = try await callBus("GetNameOwner", [.string(name.rawValue)])
            guard let owner = reply.body.first?.string else {
                throw TransportError.unexpectedReply.with(detail: "GetNameOwner returned \(reply.signature)")
            }
            return BusName(unchecked: owner)
        } catch let error as DBusError where error.name == .nameHasNoOwner {
            return nil
        }
    }

    /// Every name on the bus, unique (`:1.42`) and well-known (`org.freedesktop.DBus.ListNames`).
    public func listNames() async throws -> [BusName] {
        let reply = try await callBus("ListNames", [])
        guard let names = reply.body.first?.arrayElements else {
            throw TransportError.unexpectedReply.with(detail: "ListNames returned \(reply.signature)")
        }
        return names.compactMap { $0.string.map(BusName.init(unchecked:)) }
    }

    /// The process ID of the connection owning `name` (`org.freedesktop.DBus.GetConnectionUnixProcessID`);
    /// `nil` when the name has no owner or the bus cannot tell.
    public func processID(of name: BusName) async throws -> UInt32? {
        do {
            let reply = try await callBus("GetConnectionUnixProcessID", [.string(name.rawValue)])
            return reply.body.first?.uint32
        } catch is DBusError {
            return nil
        }
    }

    /// What the bus knows about the process behind `name` (`org.freedesktop.DBus.GetConnectionCredentials`): the
    /// bus took these from the socket when the client connected, so the client cannot choose them. `nil` when the
    /// name has no owner.
    /// - Throws: a ``TransportError``, or DBusWire's `DBusError` for anything but a missing owner.
    public func connectionCredentials(of name: BusName) async throws -> ConnectionCredentials? {
        let reply: Message
        do {
            reply = try await callBus("GetConnectionCredentials", [.string(name.rawValue)])
        } catch let error as DBusError where error.name == .nameHasNoOwner {
            return nil
        }
        guard let entries = reply.body.first?.variantDictionary else {
            MessageDecoder.closeUnixFDs(in: reply.body)
            throw TransportError.unexpectedReply.with(detail: "GetConnectionCredentials returned \(reply.signature)")
        }
        // Buses that offer it (dbus-broker, dbus-daemon 1.15.7 and later) pass the process's pidfd; every other
        // descriptor the reply may carry is closed here, so none leaks per client.
        var processFD: Int32?
        for (key, value) in entries {
            guard case .unixFD(let fd) = value else { continue }
            if key == "ProcessFD", processFD == nil { processFD = fd.rawValue } else { Glibc.close(fd.rawValue) }
        }
        return ConnectionCredentials(unixUserID: entries["UnixUserID"]?.uint32, processID: entries["ProcessID"]?.uint32,
                                     processFD: processFD)
    }
}

/// The credentials a bus reports for a connection. Any may be missing: buses on other systems may not know them.
public struct ConnectionCredentials: Sendable, Hashable {
    public var unixUserID: UInt32?
    public var processID: UInt32?
    /// A pidfd of the connection's process (`ProcessFD`), where the bus offers one. The holder owns it and must
    /// close it.
    public var processFD: Int32?

    public init(unixUserID: UInt32?, processID: UInt32?, processFD: Int32? = nil) {
        self.unixUserID = unixUserID
        self.processID = processID
        self.processFD = processFD
    }
}
