// SPDX-License-Identifier: Apache-2.0
// The flags of org.freedesktop.DBus.RequestName.

/// Flags for ``Connection/requestName(_:flags:)``, with the values the D-Bus specification gives them.
public struct RequestNameFlags: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// `DBUS_NAME_FLAG_ALLOW_REPLACEMENT`: another connection may take the name from us.
    public static let allowReplacement = RequestNameFlags(rawValue: 1)
    /// `DBUS_NAME_FLAG_REPLACE_EXISTING`: take the name if its owner allowed replacement.
    public static let replaceExisting = RequestNameFlags(rawValue: 2)
    /// `DBUS_NAME_FLAG_DO_NOT_QUEUE`: fail instead of waiting in the queue for the name.
    public static let doNotQueue = RequestNameFlags(rawValue: 4)
}
