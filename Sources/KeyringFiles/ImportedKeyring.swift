// SPDX-License-Identifier: Apache-2.0
// What a parsed keyring file holds: its items with labels, attributes, secrets and times.

public import SecretCrypto

/// The file formats the parsers read.
public enum KeyringFormat: String, Sendable, CaseIterable {
    /// gnome-keyring's encrypted binary format, version 0 (`~/.local/share/keyrings/*.keyring`).
    case gnomeKeyringBinary = "gnome-keyring-binary"
    /// gnome-keyring's plaintext "textual" format (written for keyrings with an empty password).
    case gnomeKeyringTextual = "gnome-keyring-textual"
    /// libsecret's (and oo7's) file keyring, format version 1.
    case libsecretFile = "libsecret-file"
    /// Coffer's own encrypted export archive.
    case cofferArchive = "coffer-archive"
}

/// One item read from a keyring file.
public struct ImportedItem: Sendable {
    /// The human-readable name.
    public var label: String
    /// The lookup attributes, as a Secret Service provider would report them.
    public var attributes: [String: String]
    /// The secret, in secure memory; `nil` when the file stores none for this item.
    public var secret: SecretBytes?
    /// The secret's content type when the format records one.
    public var contentType: String?
    /// Creation time in Unix seconds, when recorded.
    public var created: UInt64?
    /// Last modification time in Unix seconds, when recorded.
    public var modified: UInt64?

    public init(label: String, attributes: [String: String], secret: SecretBytes?, contentType: String? = nil,
                created: UInt64? = nil, modified: UInt64? = nil) {
        self.label = label
        self.attributes = attributes
        self.secret = secret
        self.contentType = contentType
        self.created = created
        self.modified = modified
    }
}

/// A whole parsed keyring file.
public struct ImportedKeyring: Sendable {
    /// The format the bytes were in.
    public var format: KeyringFormat
    /// The keyring's own label, when the format records one.
    public var label: String?
    /// Creation time in Unix seconds, when recorded.
    public var created: UInt64?
    /// Last modification time in Unix seconds, when recorded.
    public var modified: UInt64?
    /// The items, in file order.
    public var items: [ImportedItem]

    public init(format: KeyringFormat, label: String?, created: UInt64? = nil, modified: UInt64? = nil,
                items: [ImportedItem]) {
        self.format = format
        self.label = label
        self.created = created
        self.modified = modified
        self.items = items
    }
}
