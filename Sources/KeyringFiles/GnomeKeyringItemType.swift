// SPDX-License-Identifier: Apache-2.0
// The item types of the old gnome-keyring API and the xdg:schema names gnome-keyring maps them to.

/// gnome-keyring's files keep an item type number from its old API; the Secret Service exposes it as the
/// `xdg:schema` attribute.
enum GnomeKeyringItemType {
    static let schemaAttribute = "xdg:schema"

    /// The schema for an item type, or `nil` for the generic type 0 and unknown types.
    ///
    /// Type 0 ("generic secret") is also what gnome-keyring writes for items stored without any schema, such as
    /// `secret-tool store`'s; reporting it as a schema would add an attribute the item never had, so only the
    /// specific types become `xdg:schema`.
    static func schema(for type: UInt32) -> String? {
        switch type & 0xFFFF {
        case 1: return "org.gnome.keyring.NetworkPassword"
        case 2: return "org.gnome.keyring.Note"
        case 3: return "org.gnome.keyring.ChainedKeyring"
        case 4: return "org.gnome.keyring.EncryptionKey"
        case 0x100: return "org.gnome.keyring.PkStorage"
        default: return nil
        }
    }
}
