// SPDX-License-Identifier: Apache-2.0
// Format detection and the one parse call that dispatches to the right reader.

public import SecretCrypto

/// Entry point for reading any supported keyring file: the format is recognised from the content, not the name.
public enum KeyringFile {
    /// The format of `bytes`, or `nil` when none matches.
    public static func detectFormat(_ bytes: [UInt8]) -> KeyringFormat? {
        if CofferArchive.matches(bytes) { return .cofferArchive }
        if GnomeKeyringBinaryFormat.matches(bytes) { return .gnomeKeyringBinary }
        if LibsecretFileFormat.matches(bytes) { return .libsecretFile }
        if GnomeKeyringTextualFormat.matches(bytes) { return .gnomeKeyringTextual }
        return nil
    }

    /// Whether the format needs a password (the textual format does not).
    public static func needsPassword(_ format: KeyringFormat) -> Bool { format != .gnomeKeyringTextual }

    /// Detects the format and parses.
    /// - Parameters:
    ///   - bytes: the whole file.
    ///   - password: the keyring password or archive passphrase (ignored for the textual format).
    ///   - limits: bounds for untrusted input.
    /// - Returns: the keyring.
    /// - Throws: ``KeyringFileError`` (`.unrecognizedFormat` when no format matches; a file with the keyring magic
    ///   but another version gives `.unsupportedVersion`).
    public static func parse(_ bytes: [UInt8], password: SecretBytes?, limits: ParseLimits = .default) throws
        -> ImportedKeyring {
        switch detectFormat(bytes) {
        case .gnomeKeyringBinary: return try GnomeKeyringBinaryFormat.parse(bytes, password: password, limits: limits)
        case .libsecretFile: return try LibsecretFileFormat.parse(bytes, password: password, limits: limits)
        case .gnomeKeyringTextual: return try GnomeKeyringTextualFormat.parse(bytes, limits: limits)
        case .cofferArchive: return try CofferArchive.parse(bytes, passphrase: password, limits: limits)
        case nil:
            if bytes.starts(with: GnomeKeyringBinaryFormat.magic), bytes.count >= 18 {
                throw KeyringFileError.unsupportedVersion("\(bytes[16]).\(bytes[17])")
            }
            throw KeyringFileError.unrecognizedFormat
        }
    }
}
