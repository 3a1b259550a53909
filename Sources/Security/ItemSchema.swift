// SPDX-License-Identifier: Apache-2.0
// Which attributes each password class has, which form its primary key, and their Secret Service names.

/// The `kSecClass` values.
enum ItemClass: String, Sendable, CaseIterable {
    case genericPassword = "genp"
    case internetPassword = "inet"
    case certificate = "cert"
    case key = "keys"
    case identity = "idnt"
}

/// How an attribute's Apple value is typed and encoded as a Secret Service string (mapping §6.1).
enum AttributeKind: Sendable {
    /// A string, stored verbatim.
    case text
    /// String or Data, type recorded in `keychain:types`.
    case blob
    /// An integer, stored in decimal.
    case number
    /// Data only, stored as lowercase hex (certificate fields).
    case hexData
    /// A boolean, stored as `true`/`false`.
    case flag
    /// A `kSecAttrAccessible…` value, stored raw.
    case accessibility
    /// A `kSecAttrProtocol…` code, stored as the URL scheme.
    case protocolCode
    /// A `kSecAttrAuthenticationType…` code, stored as libsecret's name.
    case authenticationType
    /// The access group.
    case accessGroup
    /// `kSecAttrSynchronizable`: stored as `keychain:sync=true` only when true.
    case synchronizable
    /// The item's label property.
    case label
    /// The item's Created/Modified property (read-only).
    case date
    /// `kSecAttrAccessControl`: cannot be honoured.
    case accessControl
}

/// One attribute of a class.
struct AttributeSpec: Sendable {
    /// Apple's raw key (`acct`).
    let key: String
    let kind: AttributeKind
    /// The Secret Service attribute name, or `nil` for item properties (label, dates) and unsupported ones.
    let name: String?
    /// Whether it belongs to the class's primary key (DPK).
    let isPrimaryKey: Bool

    init(_ key: String, _ kind: AttributeKind, _ name: String?, primaryKey: Bool = false) {
        self.key = key
        self.kind = kind
        self.name = name
        self.isPrimaryKey = primaryKey
    }

    /// The PK value written when the caller gave none: `""` for strings, `0` for numbers.
    var primaryKeyDefault: String { kind == .number ? "0" : "" }
}

/// The attributes, schema name and markers of one stored class.
struct ItemSchema: Sendable {
    let itemClass: ItemClass
    /// The `xdg:schema` value.
    let schemaName: String
    let attributes: [String: AttributeSpec]

    var primaryKey: [AttributeSpec] { attributes.values.filter(\.isPrimaryKey).sorted { $0.key < $1.key } }

    static func forClass(_ itemClass: ItemClass) -> ItemSchema? {
        switch itemClass {
        case .genericPassword: genericPassword
        case .internetPassword: internetPassword
        case .certificate: certificate
        case .key: key
        default: nil
        }
    }

    // MARK: - Marker attribute names (mapping §6.1, §7.1)

    static let schemaAttribute = "xdg:schema"
    static let classAttribute = "keychain:class"
    static let versionAttribute = "keychain:v"
    static let typesAttribute = "keychain:types"
    static let groupAttribute = "keychain:agrp"
    static let syncAttribute = "keychain:sync"
    static let mirrorAttribute = "username"

    // MARK: - Classes

    /// The attributes of every class.
    private static let shared: [AttributeSpec] = [
        AttributeSpec("agrp", .accessGroup, groupAttribute, primaryKey: true),
        AttributeSpec("sync", .synchronizable, syncAttribute, primaryKey: true),
        AttributeSpec("pdmn", .accessibility, "keychain:pdmn"),
        AttributeSpec("accc", .accessControl, nil),
        AttributeSpec("labl", .label, nil),
        AttributeSpec("cdat", .date, nil),
        AttributeSpec("mdat", .date, nil),
    ]

    /// The attributes of both password classes.
    private static let common: [AttributeSpec] = shared + [
        AttributeSpec("desc", .text, "keychain:desc"),
        AttributeSpec("icmt", .text, "keychain:icmt"),
        AttributeSpec("crtr", .number, "keychain:crtr"),
        AttributeSpec("type", .number, "keychain:type"),
        AttributeSpec("invi", .flag, "keychain:invi"),
        AttributeSpec("nega", .flag, "keychain:nega"),
    ]

    static let genericPassword = ItemSchema(
        itemClass: .genericPassword, schemaName: "org.freedesktop.Secret.Generic",
        attributes: index(common + [
            AttributeSpec("acct", .blob, "account", primaryKey: true),
            AttributeSpec("svce", .blob, "service", primaryKey: true),
            AttributeSpec("gena", .blob, "keychain:gena"),
        ]))

    static let internetPassword = ItemSchema(
        itemClass: .internetPassword, schemaName: "org.gnome.keyring.NetworkPassword",
        attributes: index(common + [
            AttributeSpec("acct", .blob, "user", primaryKey: true),
            AttributeSpec("srvr", .blob, "server", primaryKey: true),
            AttributeSpec("sdmn", .blob, "domain", primaryKey: true),
            AttributeSpec("path", .blob, "object", primaryKey: true),
            AttributeSpec("port", .number, "port", primaryKey: true),
            AttributeSpec("ptcl", .protocolCode, "protocol", primaryKey: true),
            AttributeSpec("atyp", .authenticationType, "authtype", primaryKey: true),
        ]))

    /// Certificates (mapping §6.4): everything but the access attributes and label is derived from the DER.
    static let certificate = ItemSchema(
        itemClass: .certificate, schemaName: "io.coffer.Keychain.Certificate",
        attributes: index(shared + [
            AttributeSpec("ctyp", .number, "keychain:ctyp", primaryKey: true),
            AttributeSpec("cenc", .number, "keychain:cenc"),
            AttributeSpec("issr", .hexData, "keychain:issr", primaryKey: true),
            AttributeSpec("slnr", .hexData, "keychain:slnr", primaryKey: true),
            AttributeSpec("subj", .hexData, "keychain:subj"),
            AttributeSpec("skid", .hexData, "keychain:skid"),
            AttributeSpec("pkhh", .hexData, "keychain:pkhh"),
        ]))

    /// Keys (mapping §6.4), with Apple's primary key except the start and end dates, which iOS does not publish.
    static let key = ItemSchema(
        itemClass: .key, schemaName: "io.coffer.Keychain.Key",
        attributes: index(shared + [
            AttributeSpec("kcls", .number, "keychain:kcls", primaryKey: true),
            AttributeSpec("klbl", .blob, "keychain:klbl", primaryKey: true),
            AttributeSpec("atag", .blob, "keychain:atag", primaryKey: true),
            AttributeSpec("crtr", .number, "keychain:crtr", primaryKey: true),
            AttributeSpec("type", .number, "keychain:type", primaryKey: true),
            AttributeSpec("bsiz", .number, "keychain:bsiz", primaryKey: true),
            AttributeSpec("esiz", .number, "keychain:esiz", primaryKey: true),
        ] + ["perm", "sens", "extr", "encr", "decr", "drve", "sign", "vrfy", "wrap", "unwp"].map {
            AttributeSpec($0, .flag, "keychain:\($0)")
        }))

    /// Key attributes that describe the key material and cannot change without it.
    static let derivedKeyKeys: Set<String> = ["kcls", "type", "bsiz", "esiz"]

    /// Certificate attributes that come from the DER and cannot be set.
    static let derivedCertificateKeys: Set<String> = ["ctyp", "cenc", "issr", "slnr", "subj", "skid", "pkhh"]

    private static func index(_ specs: [AttributeSpec]) -> [String: AttributeSpec] {
        Dictionary(uniqueKeysWithValues: specs.map { ($0.key, $0) })
    }

    /// The attribute keys every class has (used to tell "no such attribute" from "unknown key").
    static let allKnownKeys: Set<String> = Set(genericPassword.attributes.keys).union(internetPassword.attributes.keys)
        .union(certificate.attributes.keys).union(key.attributes.keys)
}
