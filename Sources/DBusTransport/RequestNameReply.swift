// SPDX-License-Identifier: Apache-2.0
// The answers of org.freedesktop.DBus.RequestName.

/// The outcome of ``Connection/requestName(_:flags:)``.
public enum RequestNameReply: Sendable, Equatable {
    /// We now own the name (`DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER`).
    case primaryOwner
    /// Someone else owns it; we wait in its queue (`DBUS_REQUEST_NAME_REPLY_IN_QUEUE`).
    case inQueue
    /// Someone else owns it and we asked not to queue (`DBUS_REQUEST_NAME_REPLY_EXISTS`).
    case exists
    /// We owned it already (`DBUS_REQUEST_NAME_REPLY_ALREADY_OWNER`).
    case alreadyOwner

    /// Maps the bus's numeric reply; `nil` for a value the specification does not define.
    init?(rawValue: UInt32) {
        switch rawValue {
        case 1: self = .primaryOwner
        case 2: self = .inQueue
        case 3: self = .exists
        case 4: self = .alreadyOwner
        default: return nil
        }
    }
}
