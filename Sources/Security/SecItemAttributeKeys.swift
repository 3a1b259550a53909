// SPDX-License-Identifier: Apache-2.0
// The kSecClass and kSecAttr… dictionary keys of Apple's SecItem API, with Apple's raw values.

public import Foundation

// Raw values are Apple's (SecItemConstants.c), so dictionaries built or persisted on Apple platforms mean the same
// here. The NSString constants are immutable; `nonisolated(unsafe)` only says a non-Sendable Foundation class is
// safe to share.

// MARK: - Item classes

/// The item-class key; its value is one of the `kSecClass…` constants.
nonisolated(unsafe) public let kSecClass: CFString = "class"
/// Generic passwords (service + account).
nonisolated(unsafe) public let kSecClassGenericPassword: CFString = "genp"
/// Internet passwords (server, protocol, port, path, account, …).
nonisolated(unsafe) public let kSecClassInternetPassword: CFString = "inet"
/// Certificates: the DER in `kSecValueData`, with issuer, serial number, subject and key hashes derived from it.
nonisolated(unsafe) public let kSecClassCertificate: CFString = "cert"
/// Cryptographic keys: Apple's external representation in `kSecValueData` (RSA PKCS#1, EC X9.63, symmetric raw).
nonisolated(unsafe) public let kSecClassKey: CFString = "keys"
/// Identities (not supported yet: operations return `errSecUnimplemented`).
nonisolated(unsafe) public let kSecClassIdentity: CFString = "idnt"

// MARK: - Password and common attributes

/// When the item is accessible; one of the `kSecAttrAccessible…` values.
nonisolated(unsafe) public let kSecAttrAccessible: CFString = "pdmn"
/// An access-control object (biometry, user presence): not supported, `errSecUnimplemented`.
nonisolated(unsafe) public let kSecAttrAccessControl: CFString = "accc"
/// The access group: a namespace here, not a security boundary.
nonisolated(unsafe) public let kSecAttrAccessGroup: CFString = "agrp"
/// Whether the item is synchronizable: kept in a collection cofferd synchronizes, if any (docs/KEYCHAIN-API.md).
nonisolated(unsafe) public let kSecAttrSynchronizable: CFString = "sync"
/// Creation date (read-only, second precision).
nonisolated(unsafe) public let kSecAttrCreationDate: CFString = "cdat"
/// Modification date (read-only, second precision).
nonisolated(unsafe) public let kSecAttrModificationDate: CFString = "mdat"
/// A user-visible description of the item's kind.
nonisolated(unsafe) public let kSecAttrDescription: CFString = "desc"
/// A user-editable comment.
nonisolated(unsafe) public let kSecAttrComment: CFString = "icmt"
/// The creator's four-character code, as a number.
nonisolated(unsafe) public let kSecAttrCreator: CFString = "crtr"
/// The item type's four-character code, as a number.
nonisolated(unsafe) public let kSecAttrType: CFString = "type"
/// The user-visible label (the Secret Service item label).
nonisolated(unsafe) public let kSecAttrLabel: CFString = "labl"
/// Whether the item is hidden from users.
nonisolated(unsafe) public let kSecAttrIsInvisible: CFString = "invi"
/// Whether the item is a placeholder with no valid password.
nonisolated(unsafe) public let kSecAttrIsNegative: CFString = "nega"
/// The account name (String or Data; part of the primary key).
nonisolated(unsafe) public let kSecAttrAccount: CFString = "acct"
/// The service of a generic password (part of the primary key).
nonisolated(unsafe) public let kSecAttrService: CFString = "svce"
/// Application-defined data of a generic password.
nonisolated(unsafe) public let kSecAttrGeneric: CFString = "gena"
/// The security domain (realm) of an internet password.
nonisolated(unsafe) public let kSecAttrSecurityDomain: CFString = "sdmn"
/// The server of an internet password (domain name or IP address).
nonisolated(unsafe) public let kSecAttrServer: CFString = "srvr"
/// The protocol of an internet password; one of the `kSecAttrProtocol…` values.
nonisolated(unsafe) public let kSecAttrProtocol: CFString = "ptcl"
/// The authentication scheme; one of the `kSecAttrAuthenticationType…` values.
nonisolated(unsafe) public let kSecAttrAuthenticationType: CFString = "atyp"
/// The port of an internet password (0 = unset).
nonisolated(unsafe) public let kSecAttrPort: CFString = "port"
/// The path component of an internet password.
nonisolated(unsafe) public let kSecAttrPath: CFString = "path"
/// A synchronization view hint (accepted, not acted on).
nonisolated(unsafe) public let kSecAttrSyncViewHint: CFString = "vwht"
/// The token holding a key (keys only).
nonisolated(unsafe) public let kSecAttrTokenID: CFString = "tkid"

// MARK: - Certificate attributes

/// A certificate's type.
nonisolated(unsafe) public let kSecAttrCertificateType: CFString = "ctyp"
/// A certificate's encoding.
nonisolated(unsafe) public let kSecAttrCertificateEncoding: CFString = "cenc"
/// A certificate's normalized subject.
nonisolated(unsafe) public let kSecAttrSubject: CFString = "subj"
/// A certificate's normalized issuer.
nonisolated(unsafe) public let kSecAttrIssuer: CFString = "issr"
/// A certificate's serial number.
nonisolated(unsafe) public let kSecAttrSerialNumber: CFString = "slnr"
/// A certificate's subject key identifier.
nonisolated(unsafe) public let kSecAttrSubjectKeyID: CFString = "skid"
/// The SHA-1 hash of a certificate's public key.
nonisolated(unsafe) public let kSecAttrPublicKeyHash: CFString = "pkhh"

// MARK: - Key attributes

/// A key's class; one of the `kSecAttrKeyClass…` values.
nonisolated(unsafe) public let kSecAttrKeyClass: CFString = "kcls"
/// A key's application label (for asymmetric keys the public key's hash).
nonisolated(unsafe) public let kSecAttrApplicationLabel: CFString = "klbl"
/// A key's private tag.
nonisolated(unsafe) public let kSecAttrApplicationTag: CFString = "atag"
/// A key's algorithm; one of the `kSecAttrKeyType…` values.
nonisolated(unsafe) public let kSecAttrKeyType: CFString = "type"
/// A key's size in bits.
nonisolated(unsafe) public let kSecAttrKeySizeInBits: CFString = "bsiz"
/// A key's effective size in bits.
nonisolated(unsafe) public let kSecAttrEffectiveKeySize: CFString = "esiz"
/// Whether a generated key is stored in the keychain.
nonisolated(unsafe) public let kSecAttrIsPermanent: CFString = "perm"
/// Whether a key's material is sensitive.
nonisolated(unsafe) public let kSecAttrIsSensitive: CFString = "sens"
/// Whether a key's material can be exported.
nonisolated(unsafe) public let kSecAttrIsExtractable: CFString = "extr"
/// Whether the key can encrypt.
nonisolated(unsafe) public let kSecAttrCanEncrypt: CFString = "encr"
/// Whether the key can decrypt.
nonisolated(unsafe) public let kSecAttrCanDecrypt: CFString = "decr"
/// Whether the key can derive other keys.
nonisolated(unsafe) public let kSecAttrCanDerive: CFString = "drve"
/// Whether the key can sign.
nonisolated(unsafe) public let kSecAttrCanSign: CFString = "sign"
/// Whether the key can verify signatures.
nonisolated(unsafe) public let kSecAttrCanVerify: CFString = "vrfy"
/// Whether the key can wrap other keys.
nonisolated(unsafe) public let kSecAttrCanWrap: CFString = "wrap"
/// Whether the key can unwrap other keys.
nonisolated(unsafe) public let kSecAttrCanUnwrap: CFString = "unwp"
