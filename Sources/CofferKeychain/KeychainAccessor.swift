// SPDX-License-Identifier: Apache-2.0
// `Keychain`: a Swift-style front to the SecItem functions (service or server, options, typed errors).

public import Foundation

/// Keychain items of one service (generic passwords) or one server (internet passwords), read and written by key
/// (the account), in the spirit of KeychainAccess:
///
/// ```swift
/// let keychain = Keychain(service: "com.example.app")
/// keychain["token"] = "s3cr3t"
/// let token = keychain["token"]
/// try keychain.set(Settings(...), key: "settings")       // any Codable value, stored as JSON
/// let saved = try await keychain.get("settings", as: Settings.self)
/// ```
///
/// It is a value: options return a modified copy (`Keychain(service: "s").label("Work").synchronizable(true)`).
/// Every call goes through `SecItemAdd`, `SecItemCopyMatching`, `SecItemUpdate` and `SecItemDelete`, so it has
/// exactly their semantics and works against any Secret Service provider.
public struct Keychain: Sendable {
    public let itemClass: ItemClass
    /// The generic-password service (`kSecAttrService`); empty for internet passwords.
    public let service: String
    /// The internet-password host (`kSecAttrServer`); empty for generic passwords.
    public let server: String
    /// The internet-password port; 0 when the server gave none.
    public let port: Int
    /// The internet-password path (`kSecAttrPath`); empty when the server gave none.
    public let path: String
    public let protocolType: ProtocolType?
    public let authenticationType: AuthenticationType?
    /// The access group written to and searched; `nil` means the configuration's default groups.
    public private(set) var accessGroup: String?
    public private(set) var synchronizable = false
    public private(set) var accessibility = Accessibility.whenUnlocked
    /// The label new items get (`nil`: the service or server).
    public private(set) var label: String?
    public private(set) var comment: String?
    /// Whether a locked collection may be unlocked with a prompt (else `.interactionNotAllowed`).
    public private(set) var allowsInteraction = true
    /// The bus and library settings; `nil` means ``KeychainConfiguration/current`` at each call.
    public private(set) var configuration: KeychainConfiguration?

    /// Generic passwords of `service`.
    public init(service: String) {
        self.init(itemClass: .genericPassword, service: service, server: "", port: 0, path: "", protocolType: nil,
                  authenticationType: nil)
    }

    /// Generic passwords of `service` in `accessGroup`.
    public init(service: String, accessGroup: String) {
        self.init(service: service)
        self.accessGroup = accessGroup
    }

    /// Internet passwords of `server`, which may be a host (`git.example.org`) or a URL whose host, port and path
    /// are used (`https://git.example.org:8443/repo`).
    public init(server: String, protocolType: ProtocolType, authenticationType: AuthenticationType = .default) {
        if let url = URL(string: server), let host = url.host, !host.isEmpty {
            self.init(itemClass: .internetPassword, service: "", server: host, port: url.port ?? 0,
                      path: url.path == "/" ? "" : url.path, protocolType: protocolType,
                      authenticationType: authenticationType)
        } else {
            self.init(itemClass: .internetPassword, service: "", server: server, port: 0, path: "",
                      protocolType: protocolType, authenticationType: authenticationType)
        }
    }

    /// Internet passwords of `server`'s host, port and path.
    public init(server: URL, protocolType: ProtocolType, authenticationType: AuthenticationType = .default) {
        self.init(server: server.absoluteString, protocolType: protocolType, authenticationType: authenticationType)
    }

    private init(itemClass: ItemClass, service: String, server: String, port: Int, path: String,
                 protocolType: ProtocolType?, authenticationType: AuthenticationType?) {
        self.itemClass = itemClass
        self.service = service
        self.server = server
        self.port = port
        self.path = path
        self.protocolType = protocolType
        self.authenticationType = authenticationType
    }

    // MARK: - Options (each returns a modified copy)

    public func accessGroup(_ group: String) -> Keychain { with { $0.accessGroup = group } }
    public func synchronizable(_ synchronizable: Bool) -> Keychain { with { $0.synchronizable = synchronizable } }
    public func accessibility(_ accessibility: Accessibility) -> Keychain { with { $0.accessibility = accessibility } }
    public func label(_ label: String) -> Keychain { with { $0.label = label } }
    public func comment(_ comment: String) -> Keychain { with { $0.comment = comment } }
    public func allowsInteraction(_ allowed: Bool) -> Keychain { with { $0.allowsInteraction = allowed } }
    public func configuration(_ configuration: KeychainConfiguration) -> Keychain {
        with { $0.configuration = configuration }
    }

    private func with(_ change: (inout Keychain) -> Void) -> Keychain {
        var copy = self
        change(&copy)
        return copy
    }

    // MARK: - Dictionaries for the SecItem functions

    /// Class, service or server fields, access group and interaction: what selects this keychain's items.
    var baseQuery: [String: Any] {
        var query: [String: Any] = [:]
        switch itemClass {
        case .genericPassword:
            query[kSecClass as String] = kSecClassGenericPassword
            query[kSecAttrService as String] = service
        case .internetPassword:
            query[kSecClass as String] = kSecClassInternetPassword
            query[kSecAttrServer as String] = server
            if let protocolType { query[kSecAttrProtocol as String] = protocolType.rawValue }
            if let authenticationType { query[kSecAttrAuthenticationType as String] = authenticationType.rawValue }
            if port != 0 { query[kSecAttrPort as String] = port }
            if !path.isEmpty { query[kSecAttrPath as String] = path }
        }
        if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
        if !allowsInteraction { query[kSecUseAuthenticationUI as String] = kSecUseAuthenticationUIFail }
        return query
    }

    /// The search for `key` (or every key), synchronizable or not.
    func searchQuery(_ key: String?) -> [String: Any] {
        var query = baseQuery
        if let key { query[kSecAttrAccount as String] = key }
        query[kSecAttrSynchronizable as String] = kSecAttrSynchronizableAny
        return query
    }

    /// The attributes written with a value: the options.
    var writtenAttributes: [String: Any] {
        var attributes: [String: Any] = [kSecAttrAccessible as String: accessibility.rawValue]
        if let label { attributes[kSecAttrLabel as String] = label }
        if let comment { attributes[kSecAttrComment as String] = comment }
        return attributes
    }

    /// Runs `body` with this keychain's configuration in force.
    func bound<T>(_ body: () throws(Error) -> T) throws(Error) -> T {
        guard let configuration else { return try body() }
        let result = KeychainConfiguration.withConfiguration(configuration) { Result { () throws(Error) in try body() } }
        return try result.get()
    }
}
