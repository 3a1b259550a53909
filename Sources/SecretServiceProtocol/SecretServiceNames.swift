// SPDX-License-Identifier: Apache-2.0
// The names and paths the Secret Service specification fixes.

public import DBusWire

/// Names, interfaces and well-known paths of the Secret Service API.
public enum SecretServiceNames {
    /// The bus name every provider owns.
    public static let busName: BusName = "org.freedesktop.secrets"

    public static let serviceInterface: InterfaceName = "org.freedesktop.Secret.Service"
    public static let collectionInterface: InterfaceName = "org.freedesktop.Secret.Collection"
    public static let itemInterface: InterfaceName = "org.freedesktop.Secret.Item"
    public static let sessionInterface: InterfaceName = "org.freedesktop.Secret.Session"
    public static let promptInterface: InterfaceName = "org.freedesktop.Secret.Prompt"
    /// gnome-keyring's private interface for master-password handling, used by Seahorse and scripts.
    public static let gnomeInternalInterface: InterfaceName = "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface"
    /// Coffer's own interface for a collection's key slots (passwords, systemd credential, recovery key).
    public static let keySlotsInterface: InterfaceName = "io.coffer.KeySlots"
    /// Coffer's interface for which application may use which item (`dbus/io.coffer.Access.xml`).
    public static let accessInterface: InterfaceName = "io.coffer.Access"
    /// Coffer's interface for synchronized collections (`dbus/io.coffer.Sync.xml`, docs/SYNC.md).
    public static let syncInterface: InterfaceName = "io.coffer.Sync"
    /// Coffer's batch reads of item properties (`dbus/io.coffer.Items.xml`).
    public static let itemsInterface: InterfaceName = "io.coffer.Items"
    /// Coffer's own interface on the service object (`dbus/io.coffer.Daemon.xml`).
    public static let cofferInterface: InterfaceName = "io.coffer.Daemon"
    /// The Secret portal's backend interface, which xdg-desktop-portal calls for sandboxed applications.
    public static let portalSecretInterface: InterfaceName = "org.freedesktop.impl.portal.Secret"

    public static let propertiesInterface: InterfaceName = "org.freedesktop.DBus.Properties"
    public static let introspectableInterface: InterfaceName = "org.freedesktop.DBus.Introspectable"
    public static let peerInterface: InterfaceName = "org.freedesktop.DBus.Peer"

    /// `/org/freedesktop/secrets`, the service object and root of every provider object.
    public static let servicePath: ObjectPath = "/org/freedesktop/secrets"
    /// Where xdg-desktop-portal looks for every portal backend's interfaces.
    public static let portalPath: ObjectPath = "/org/freedesktop/portal/desktop"

    /// The plain (unencrypted) session algorithm.
    public static let plainAlgorithm = "plain"
    /// The Diffie-Hellman session algorithm.
    public static let dhAlgorithm = "dh-ietf1024-sha256-aes128-cbc-pkcs7"

    /// The alias libsecret and python clients write to when no collection is named.
    public static let defaultAlias = "default"
    /// The in-memory collection that lives as long as the daemon.
    public static let sessionCollection = "session"
    /// The collection the login password opens, and the one a fresh account's `default` alias gets (as in
    /// gnome-keyring).
    public static let loginCollection = "login"

    /// The systemd credential that unlocks `collection` at start (`$CREDENTIALS_DIRECTORY/coffer-<collection>`);
    /// `coffer key-slots add COLLECTION systemd-credential` seals it under this name.
    public static func credentialName(of collection: String) -> String { "coffer-" + collection }
}

/// Lookup attributes with a meaning to more than one part of Coffer.
public enum SecretAttributeNames {
    /// The `Keychain` library's access group of an item (`kSecAttrAccessGroup`). cofferd's access control lets the
    /// user allow an application a whole access group at once (docs/ACCESS-CONTROL.md).
    public static let keychainAccessGroup = "keychain:agrp"
}

/// Fully qualified property keys accepted by `CreateCollection` and `CreateItem`.
public enum SecretPropertyKeys {
    public static let collectionLabel = "org.freedesktop.Secret.Collection.Label"
    public static let itemLabel = "org.freedesktop.Secret.Item.Label"
    public static let itemAttributes = "org.freedesktop.Secret.Item.Attributes"
    /// gnome-keyring's schema property; accepted and folded into `xdg:schema` when that attribute is absent.
    public static let itemType = "org.freedesktop.Secret.Item.Type"
    /// Coffer's: `true` stores the item for no application in particular, as items stored before creators were
    /// recorded; the first application that uses it becomes its owner (docs/ACCESS-CONTROL.md). For imports, whose
    /// items belong to the programs that stored them elsewhere, not to the importing tool.
    public static let itemUnowned = "io.coffer.Item.Unowned"
}
