// SPDX-License-Identifier: Apache-2.0
// The only error shape that crosses the wire: a D-Bus error name and a human message.

/// A D-Bus error reply: its name and a human-readable message. Messages never carry secrets.
public struct DBusError: Error, Hashable, Sendable, CustomStringConvertible {
    public var name: ErrorName
    public var message: String

    public init(_ name: ErrorName, _ message: String) {
        self.name = name
        self.message = message
    }

    public var description: String { "\(name): \(message)" }
}

extension ErrorName {
    /// `org.freedesktop.DBus.Error.Failed`
    public static let failed: ErrorName = "org.freedesktop.DBus.Error.Failed"
    /// `org.freedesktop.DBus.Error.InvalidArgs`
    public static let invalidArgs: ErrorName = "org.freedesktop.DBus.Error.InvalidArgs"
    /// `org.freedesktop.DBus.Error.UnknownMethod`
    public static let unknownMethod: ErrorName = "org.freedesktop.DBus.Error.UnknownMethod"
    /// `org.freedesktop.DBus.Error.UnknownObject`
    public static let unknownObject: ErrorName = "org.freedesktop.DBus.Error.UnknownObject"
    /// `org.freedesktop.DBus.Error.UnknownInterface`
    public static let unknownInterface: ErrorName = "org.freedesktop.DBus.Error.UnknownInterface"
    /// `org.freedesktop.DBus.Error.UnknownProperty`
    public static let unknownProperty: ErrorName = "org.freedesktop.DBus.Error.UnknownProperty"
    /// `org.freedesktop.DBus.Error.PropertyReadOnly`
    public static let propertyReadOnly: ErrorName = "org.freedesktop.DBus.Error.PropertyReadOnly"
    /// `org.freedesktop.DBus.Error.NotSupported`
    public static let notSupported: ErrorName = "org.freedesktop.DBus.Error.NotSupported"
    /// `org.freedesktop.DBus.Error.AccessDenied`
    public static let accessDenied: ErrorName = "org.freedesktop.DBus.Error.AccessDenied"
    /// `org.freedesktop.DBus.Error.LimitsExceeded`
    public static let limitsExceeded: ErrorName = "org.freedesktop.DBus.Error.LimitsExceeded"
    /// `org.freedesktop.DBus.Error.NoReply`
    public static let noReply: ErrorName = "org.freedesktop.DBus.Error.NoReply"
    /// `org.freedesktop.DBus.Error.ServiceUnknown`
    public static let serviceUnknown: ErrorName = "org.freedesktop.DBus.Error.ServiceUnknown"
    /// `org.freedesktop.DBus.Error.NameHasNoOwner`
    public static let nameHasNoOwner: ErrorName = "org.freedesktop.DBus.Error.NameHasNoOwner"
    /// `org.freedesktop.DBus.Error.Disconnected`
    public static let disconnected: ErrorName = "org.freedesktop.DBus.Error.Disconnected"
}
