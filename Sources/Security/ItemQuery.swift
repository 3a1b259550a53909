// SPDX-License-Identifier: Apache-2.0
// Parses and validates a SecItem dictionary the way the data-protection keychain does (mapping §1.1, §1.4).

import Foundation

/// How many results a search returns.
enum MatchLimit: Sendable, Equatable {
    case one
    case all
    case count(Int)

    /// The most results to return, `nil` for no limit.
    var maximum: Int? {
        switch self {
        case .one: 1
        case .all: nil
        case .count(let count): count
        }
    }
}

/// What `kSecUseAuthenticationUI` asked for.
enum AuthenticationUI: Sendable {
    case allow, fail, skip
}

/// Which items `kSecAttrSynchronizable` selects in a search.
enum SynchronizableFilter: Sendable {
    case nonSynchronizable, synchronizable, any
}

/// One SecItem dictionary, split by role: class, attributes, match, return, value and use keys.
struct ItemQuery: Sendable {
    /// Which function the dictionary was given to; the allowed keys differ.
    enum Role: Sendable {
        case add, search, updateQuery, updateAttributes, delete
    }

    var itemClass: ItemClass?
    /// Attributes by Apple's raw key, still unvalidated against the class.
    var attributes: [String: KeychainValue] = [:]
    var limit = MatchLimit.one
    var caseInsensitive = false
    var returnData = false
    var returnAttributes = false
    var returnRef = false
    var returnPersistentRef = false
    var valueData: Data?
    var persistentReference: Data?
    var authenticationUI = AuthenticationUI.allow
    /// Whether `kSecUseAuthenticationContext` held a context with `interactionNotAllowed`.
    private var contextForbidsInteraction = false

    /// Whether a result pointer is required (any return key set to true).
    var requestsResult: Bool { returnData || returnAttributes || returnRef || returnPersistentRef }

    /// Whether the result has content: `kSecReturnRef` alone is accepted but yields nothing for passwords.
    var producesResult: Bool { returnData || returnAttributes || returnPersistentRef || returnsReference }

    /// Whether `kSecReturnRef` asks for `SecCertificate` or `SecKey` objects.
    var returnsReference: Bool { returnRef && (itemClass == .certificate || itemClass == .key) }

    /// The `kSecAttrSynchronizable` filter of a search (absent or false: only non-synchronizable items).
    var synchronizable: SynchronizableFilter {
        switch attributes["sync"] {
        case .string("syna"): .any
        case let value? where value.booleanValue == true: .synchronizable
        default: .nonSynchronizable
        }
    }

    /// Parses `entries` for `role`.
    /// - Throws: `errSecParam` for a missing class, an unknown or ill-typed key, or a key the role forbids;
    ///   `errSecNoSuchClass` for an unknown class; `errSecUnimplemented` for features not supported yet.
    init(_ entries: [String: KeychainValue], role: Role) throws(KeychainFailure) {
        if let classValue = entries["class"] {
            guard case .string(let raw) = classValue else { throw KeychainFailure(errSecParam) }
            guard let itemClass = ItemClass(rawValue: raw) else { throw KeychainFailure(errSecNoSuchClass) }
            self.itemClass = itemClass
        }
        for (key, value) in entries.sorted(by: { $0.key < $1.key }) where key != "class" {
            try parse(key, value, role: role)
        }
        // A context that forbids interaction wins over kSecUseAuthenticationUIAllow, whatever the key order.
        if contextForbidsInteraction, authenticationUI == .allow { authenticationUI = .fail }
        if itemClass == nil, role != .updateAttributes, persistentReference == nil || role == .add {
            throw KeychainFailure(errSecParam)
        }
        // A delete names its item by persistent reference or by attributes, never both (securityd:
        // "rowid and other attributes are mutually exclusive").
        if role == .delete, persistentReference != nil, !attributes.isEmpty { throw KeychainFailure(errSecParam) }
        // Identities are a join of keys and certificates: searches and deletes are answered from it, while adding
        // or updating one needs SecIdentity objects (see OperationContext.answerIdentityQuery).
        if itemClass == .identity, role != .search, role != .delete { throw KeychainFailure(errSecUnimplemented) }
    }

    private mutating func parse(_ key: String, _ value: KeychainValue, role: Role) throws(KeychainFailure) {
        if key == "nleg" { return }  // kSecUseDataProtectionKeychain: accepted and ignored, as on iOS
        if key.utf8.count == 4 {
            attributes[key] = value
            return
        }
        switch key.first {
        case "m": try parseMatch(key, value, role: role)
        case "r": try parseReturn(key, value, role: role)
        case "v": try parseValue(key, value, role: role)
        case "u": try parseUse(key, value, role: role)
        default: throw KeychainFailure(errSecParam)
        }
    }

    private mutating func parseMatch(_ key: String, _ value: KeychainValue, role: Role) throws(KeychainFailure) {
        switch role {
        case .add, .updateAttributes: throw KeychainFailure(errSecParam)
        case .delete:
            // iOS rejects every match key in a delete; macOS code adds kSecMatchLimitAll, so that one is tolerated.
            guard key == "m_Limit", value == .string("m_LimitAll") else { throw KeychainFailure(errSecParam) }
        case .search, .updateQuery: break
        }
        switch key {
        case "m_Limit":
            switch value {
            case .string("m_LimitOne"): limit = .one
            case .string("m_LimitAll"): limit = .all
            case .integer(let count) where count > 0: limit = count == 1 ? .one : .count(Int(count))
            default: throw KeychainFailure(errSecParam)
            }
        case "m_CaseInsensitive":
            guard let flag = value.booleanValue else { throw KeychainFailure(errSecParam) }
            caseInsensitive = flag
        case "m_DiacriticInsensitive", "m_WidthInsensitive":
            guard value.booleanValue != nil else { throw KeychainFailure(errSecParam) }
        case "m_Policy", "m_Issuers", "m_EmailAddressIfPresent", "m_SubjectContains", "m_SubjectStartsWith",
             "m_SubjectEndsWith", "m_SubjectWholeString", "m_TrustedOnly", "m_ValidOnDate", "m_ItemList",
             "m_SearchList":
            throw KeychainFailure(errSecUnimplemented)  // certificate-only or macOS-only search keys
        default:
            throw KeychainFailure(errSecParam)
        }
    }

    private mutating func parseReturn(_ key: String, _ value: KeychainValue, role: Role) throws(KeychainFailure) {
        // securityd refuses return keys in an update's query (errSecReturn…Unsupported, which is errSecParam) and
        // reads the attributes to update as attributes, so one there is no attribute of the class either. A delete
        // parses them like any query and returns nothing: accepted, ignored.
        guard role != .updateQuery, role != .updateAttributes, let flag = value.booleanValue,
              ["r_Data", "r_Attributes", "r_Ref", "r_PersistentRef"].contains(key)
        else { throw KeychainFailure(errSecParam) }
        guard role != .delete else { return }
        switch key {
        case "r_Data": returnData = flag
        case "r_Attributes": returnAttributes = flag
        case "r_Ref": returnRef = flag
        case "r_PersistentRef": returnPersistentRef = flag
        default: throw KeychainFailure(errSecParam)
        }
    }

    private mutating func parseValue(_ key: String, _ value: KeychainValue, role: Role) throws(KeychainFailure) {
        switch key {
        case "v_Data":
            guard case .data(let data) = value else { throw KeychainFailure(errSecParam) }
            // In a search, an update's query or a delete the data is parsed and never matched (securityd has no
            // index on it): the everyday "delete this query, then add it" code passes one dictionary to both.
            if role == .add || role == .updateAttributes { valueData = data }
        case "v_PersistentRef":
            guard role != .add, role != .updateAttributes, case .data(let data) = value else {
                throw KeychainFailure(errSecParam)
            }
            persistentReference = data
        case "v_Ref":
            // A SecCertificate is added as its DER, a SecKey as its external representation with its class and
            // type. Other references (identities, items) need types this library lacks, and matching items by
            // reference is not supported.
            guard case .reference(let reference) = value else { throw KeychainFailure(errSecUnimplemented) }
            guard role == .add, itemClass == nil || itemClass == reference.itemClass, valueData == nil else {
                throw KeychainFailure(role == .add ? errSecParam : errSecUnimplemented)
            }
            itemClass = reference.itemClass  // iOS infers the class from the reference
            valueData = reference.data
            if case .key(_, let keyClass, let keyType) = reference {
                if attributes["kcls"] == nil { attributes["kcls"] = .string(String(keyClass)) }
                if attributes["type"] == nil { attributes["type"] = .string(String(keyType)) }
            }
        default:
            throw KeychainFailure(errSecParam)
        }
    }

    private mutating func parseUse(_ key: String, _ value: KeychainValue, role: Role) throws(KeychainFailure) {
        guard role != .updateAttributes else { throw KeychainFailure(errSecParam) }
        switch key {
        case "u_AuthUI":
            switch value {
            case .string("u_AuthUIA"): authenticationUI = .allow
            case .string("u_AuthUIF"): authenticationUI = .fail
            case .string("u_AuthUIS"):
                // Skipping locked items only means something to a search; Apple refuses it elsewhere.
                guard role == .search else { throw KeychainFailure(errSecParam) }
                authenticationUI = .skip
            default: throw KeychainFailure(errSecParam)
            }
        case "u_NoAuthUI":
            guard let flag = value.booleanValue else { throw KeychainFailure(errSecParam) }
            if flag { authenticationUI = .fail }
        case "u_ItemList":
            if role == .search { throw KeychainFailure(errSecParam) }
        case "u_AuthCtx":
            guard case .authenticationContext(let allowed) = value else { throw KeychainFailure(errSecParam) }
            if !allowed { contextForbidsInteraction = true }
        case "u_OpPrompt", "u_Keychain":
            break  // prompt text and macOS keychain selection: accepted, not acted on
        default:
            throw KeychainFailure(errSecParam)
        }
    }

    // MARK: - Validation against the class

    /// Checks every attribute against `schema`: a key the class lacks is `errSecNoSuchAttr`, a mistyped value
    /// `errSecParam`.
    func validateAttributes(against schema: ItemSchema, role: Role) throws(KeychainFailure) {
        for (key, value) in attributes.sorted(by: { $0.key < $1.key }) {
            guard let spec = schema.attributes[key] else { throw KeychainFailure(errSecNoSuchAttr) }
            switch spec.kind {
            case .synchronizable where value == .string("syna"):
                guard role == .search || role == .updateQuery || role == .delete else {
                    throw KeychainFailure(errSecParam)
                }
            case .date:
                guard case .date = value else { throw KeychainFailure(errSecParam) }
                if role == .add || role == .updateAttributes { throw KeychainFailure(errSecReadOnlyAttr) }
            default:
                _ = try AttributeCodec.encode(value, as: spec)
            }
        }
    }
}
