// SPDX-License-Identifier: Apache-2.0
// Which interfaces each kind of object carries, and the argument types the declarations share.

import DBusWire
import SecretServiceProtocol

/// The interfaces the provider serves. Each is declared once, in its adaptor's file (`ServiceAdaptor.interface`, …),
/// with the code that answers each method; the files in `dbus/` must agree with them (a test compares the two).
enum SecretInterfaces {
    static let secret = WireSecret.type
    static let paths = DBusType.array(.objectPath)
    static let attributes = DBusType.dictionary(key: .string, value: .string)
    static let propertyMap = DBusType.dictionary(key: .string, value: .variant)

    /// The standard interfaces every object of ours carries, after its own.
    static let standard = [PropertiesAdaptor.interface, IntrospectableAdaptor.interface, PeerAdaptor.interface]

    /// What the service object carries. gnome-keyring serves its private interface on the service object too; Seahorse
    /// looks for it there. Coffer's own interfaces sit beside it, for the same reason: they name collections by path,
    /// as that one does.
    static let service = [ServiceAdaptor.interface, GnomeKeyringAdaptor.interface, KeySlotsAdaptor.interface,
                          CofferAdaptor.interface, AccessAdaptor.interface, ItemsAdaptor.interface,
                          SyncAdaptor.interface] + standard
    static let collection = [CollectionAdaptor.interface] + standard
    static let item = [ItemAdaptor.interface] + standard
    static let session = [SessionAdaptor.interface] + standard
    static let prompt = [PromptAdaptor.interface] + standard
    /// Intermediate paths such as `/org/freedesktop/secrets/collection` only list their children.
    static let directory = [IntrospectableAdaptor.interface, PeerAdaptor.interface]
    static let portal = [PortalSecretAdaptor.interface] + standard
}
