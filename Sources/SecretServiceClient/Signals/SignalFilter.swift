// SPDX-License-Identifier: Apache-2.0
// Describes which signals a subscriber wants, both as a bus match rule and as a local test.

public import DBusWire
import SecretServiceProtocol

/// The signals one subscription wants. The same description yields the bus match rule (so the bus routes the
/// signals to us) and the local test (so each subscriber sees only its own).
public struct SignalFilter: Sendable, Hashable {
    /// The sender. A unique name is also checked locally; a well-known name is left to the bus (signals carry
    /// the sender's unique name).
    public var sender: BusName?
    /// The object that emits the signal.
    public var path: ObjectPath?
    /// The signal's interface.
    public var interface: InterfaceName?
    /// The signal's name.
    public var member: MemberName?
    /// The first argument, when it is a string (used for `NameOwnerChanged`).
    public var arg0: String?

    /// - Parameters:
    ///   - sender: the sender's bus name, or `nil` for any.
    ///   - path: the emitting object, or `nil` for any.
    ///   - interface: the interface, or `nil` for any.
    ///   - member: the signal name, or `nil` for any.
    ///   - arg0: the first string argument, or `nil` for any.
    public init(sender: BusName? = nil, path: ObjectPath? = nil, interface: InterfaceName? = nil,
                member: MemberName? = nil, arg0: String? = nil) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arg0 = arg0
    }

    /// The D-Bus match rule for `AddMatch`/`RemoveMatch`.
    public var matchRule: String {
        var parts = ["type='signal'"]
        if let sender { parts.append("sender='\(sender.rawValue)'") }
        if let path { parts.append("path='\(path.rawValue)'") }
        if let interface { parts.append("interface='\(interface.rawValue)'") }
        if let member { parts.append("member='\(member.rawValue)'") }
        if let arg0 { parts.append("arg0='\(Self.escape(arg0))'") }
        return parts.joined(separator: ",")
    }

    /// Whether `message` is a signal this filter wants.
    public func matches(_ message: Message) -> Bool {
        guard message.kind == .signal else { return false }
        if let sender, sender.isUnique, message.sender != sender { return false }
        if let path, message.path != path { return false }
        if let interface, message.interface != interface { return false }
        if let member, message.member != member { return false }
        if let arg0, message.body.first?.string != arg0 { return false }
        return true
    }

    /// Match-rule quoting: a `'` ends the quoted value, so it is written as `'\''`.
    private static func escape(_ value: String) -> String {
        var escaped = ""
        for character in value {
            if character == "'" { escaped += "'\\''" } else { escaped.append(character) }
        }
        return escaped
    }

    // MARK: - Common filters

    /// The bus's `NameOwnerChanged` for one name.
    /// - Parameter name: the name whose owner changes are wanted.
    public static func nameOwnerChanged(_ name: BusName) -> SignalFilter {
        SignalFilter(sender: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                     interface: "org.freedesktop.DBus", member: "NameOwnerChanged", arg0: name.rawValue)
    }

    /// A prompt's `Completed` signal.
    /// - Parameter prompt: the prompt's path.
    public static func promptCompleted(_ prompt: ObjectPath) -> SignalFilter {
        SignalFilter(path: prompt, interface: SecretServiceNames.promptInterface, member: "Completed")
    }

    /// `PropertiesChanged` from one object.
    /// - Parameter path: the object's path.
    public static func propertiesChanged(_ path: ObjectPath) -> SignalFilter {
        SignalFilter(path: path, interface: SecretServiceNames.propertiesInterface, member: "PropertiesChanged")
    }
}
