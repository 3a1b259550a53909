// SPDX-License-Identifier: Apache-2.0
// The errors the provider reports, and the one table that turns them into D-Bus errors.

public import DBusWire

/// Every failure a Secret Service call can end in. The router is the single place that turns these into
/// D-Bus error replies (``dbusError``). Messages are for humans and never contain secrets or attribute values.
public enum SecretServiceError: Error, Hashable, Sendable {
    /// `org.freedesktop.Secret.Error.IsLocked`
    case isLocked(String)
    /// `org.freedesktop.Secret.Error.NoSession`
    case noSession(String)
    /// `org.freedesktop.Secret.Error.NoSuchObject`
    case noSuchObject(String)
    /// `org.freedesktop.Secret.Error.AlreadyExists` (gnome-keyring's extension, used for name clashes)
    case alreadyExists(String)
    /// `org.gnome.keyring.Error.Denied` (gnome-keyring's answer to a wrong master password on its private interface)
    case denied(String)
    /// `org.freedesktop.DBus.Error.InvalidArgs`
    case invalidArgs(String)
    /// `org.freedesktop.DBus.Error.NotSupported`
    case notSupported(String)
    /// `org.freedesktop.DBus.Error.AccessDenied`
    case accessDenied(String)
    /// `org.freedesktop.DBus.Error.LimitsExceeded`
    case limitsExceeded(String)
    /// `org.freedesktop.DBus.Error.UnknownMethod`
    case unknownMethod(String)
    /// `org.freedesktop.DBus.Error.UnknownProperty`
    case unknownProperty(String)
    /// `org.freedesktop.DBus.Error.PropertyReadOnly`
    case propertyReadOnly(String)
    /// `org.freedesktop.DBus.Error.Failed`
    case failed(String)

    /// The D-Bus error this failure is reported as.
    public var dbusError: DBusError {
        switch self {
        case .isLocked(let m): DBusError(SecretErrorNames.isLocked, m)
        case .noSession(let m): DBusError(SecretErrorNames.noSession, m)
        case .noSuchObject(let m): DBusError(SecretErrorNames.noSuchObject, m)
        case .alreadyExists(let m): DBusError(SecretErrorNames.alreadyExists, m)
        case .denied(let m): DBusError(SecretErrorNames.denied, m)
        case .invalidArgs(let m): DBusError(.invalidArgs, m)
        case .notSupported(let m): DBusError(.notSupported, m)
        case .accessDenied(let m): DBusError(.accessDenied, m)
        case .limitsExceeded(let m): DBusError(.limitsExceeded, m)
        case .unknownMethod(let m): DBusError(.unknownMethod, m)
        case .unknownProperty(let m): DBusError(.unknownProperty, m)
        case .propertyReadOnly(let m): DBusError(.propertyReadOnly, m)
        case .failed(let m): DBusError(.failed, m)
        }
    }

    /// Maps a D-Bus error received by a client back to this enum (unknown names become ``failed(_:)``).
    public init(_ error: DBusError) {
        switch error.name {
        case SecretErrorNames.isLocked: self = .isLocked(error.message)
        case SecretErrorNames.noSession: self = .noSession(error.message)
        case SecretErrorNames.noSuchObject, .unknownObject: self = .noSuchObject(error.message)
        case SecretErrorNames.alreadyExists: self = .alreadyExists(error.message)
        case SecretErrorNames.denied: self = .denied(error.message)
        case .invalidArgs: self = .invalidArgs(error.message)
        case .notSupported: self = .notSupported(error.message)
        case .accessDenied: self = .accessDenied(error.message)
        case .limitsExceeded: self = .limitsExceeded(error.message)
        case .unknownMethod: self = .unknownMethod(error.message)
        case .unknownProperty: self = .unknownProperty(error.message)
        case .propertyReadOnly: self = .propertyReadOnly(error.message)
        default: self = .failed(error.message)
        }
    }
}

/// The Secret Service's own error names, and the gnome-keyring one clients of its private interface expect.
public enum SecretErrorNames {
    public static let isLocked: ErrorName = "org.freedesktop.Secret.Error.IsLocked"
    public static let noSession: ErrorName = "org.freedesktop.Secret.Error.NoSession"
    public static let noSuchObject: ErrorName = "org.freedesktop.Secret.Error.NoSuchObject"
    public static let alreadyExists: ErrorName = "org.freedesktop.Secret.Error.AlreadyExists"
    /// gnome-keyring's name for a wrong master password (`gkd_secret_propagate_error`).
    public static let denied: ErrorName = "org.gnome.keyring.Error.Denied"
}
