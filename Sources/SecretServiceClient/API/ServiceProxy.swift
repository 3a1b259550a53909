// SPDX-License-Identifier: Apache-2.0
// org.freedesktop.Secret.Service: one method per spec member, with the spec's argument types.

public import DBusTransport
public import DBusWire
public import SecretServiceProtocol

/// Calls `org.freedesktop.Secret.Service` on `/org/freedesktop/secrets`. Each method is exactly one D-Bus call;
/// prompts are returned, not run.
public struct ServiceProxy: Sendable {
    let target: ProxyTarget

    /// The service's path, `/org/freedesktop/secrets`.
    public var path: ObjectPath { target.path }

    /// - Parameters:
    ///   - connection: the bus connection.
    ///   - destination: the provider's bus name.
    public init(connection: Connection, destination: BusName = SecretServiceNames.busName) {
        target = ProxyTarget(connection: connection, destination: destination, path: SecretServiceNames.servicePath)
    }

    /// The `Properties` interface of the service object.
    public var properties: PropertiesProxy {
        PropertiesProxy(connection: target.connection, path: target.path, destination: target.destination)
    }

    /// `OpenSession(s algorithm, v input) → (v output, o result)`.
    /// - Parameters:
    ///   - algorithm: the algorithm name (`plain` or `dh-ietf1024-sha256-aes128-cbc-pkcs7`).
    ///   - input: the value inside the `v` input (`s ""` for plain, the public key `ay` for DH).
    /// - Returns: the content of the output variant and the session path (`/` if negotiation needs another round).
    /// - Throws: `SecretServiceError` (`notSupported` for an unknown algorithm) or `SecretServiceClientError`.
    public func openSession(algorithm: String, input: DBusValue) async throws -> (output: DBusValue, session: ObjectPath) {
        let (body, _) = try await target.call(
            SecretServiceNames.serviceInterface, "OpenSession", [.string(algorithm), .variant(input)],
            expecting: "vo")
        guard let output = body[0].variantValue else {
            throw SecretServiceClientError.unexpectedReply("OpenSession output is not a variant")
        }
        return (output, try ReplyValue.objectPath(body[1], "OpenSession result"))
    }

    /// `CreateCollection(a{sv} properties, s alias) → (o collection, o prompt)`.
    /// - Parameters:
    ///   - properties: fully qualified property keys (`org.freedesktop.Secret.Collection.Label`).
    ///   - alias: an alias to give the collection, or `""`.
    /// - Returns: the collection (`/` when a prompt must run first) and the prompt (`/` when none).
    /// - Throws: `SecretServiceError` or `SecretServiceClientError`.
    public func createCollection(properties: [String: DBusValue], alias: String) async throws
        -> (collection: ObjectPath, prompt: ObjectPath) {
        let (body, _) = try await target.call(
            SecretServiceNames.serviceInterface, "CreateCollection", [.variantDictionary(properties), .string(alias)],
            expecting: "oo")
        return (try ReplyValue.objectPath(body[0], "collection"), try ReplyValue.objectPath(body[1], "prompt"))
    }

    /// `SearchItems(a{ss} attributes) → (ao unlocked, ao locked)`.
    /// - Parameter attributes: pairs every match must carry (empty matches everything).
    /// - Returns: matching items, split by lock state.
    /// - Throws: `SecretServiceError` or `SecretServiceClientError`.
    public func searchItems(_ attributes: [String: String]) async throws
        -> (unlocked: [ObjectPath], locked: [ObjectPath]) {
        let (body, _) = try await target.call(
            SecretServiceNames.serviceInterface, "SearchItems", [.stringDictionary(attributes)], expecting: "aoao")
        return (try ReplyValue.objectPaths(body[0], "unlocked"), try ReplyValue.objectPaths(body[1], "locked"))
    }

    /// `Unlock(ao objects) → (ao unlocked, o prompt)`.
    /// - Parameter objects: collections or items to unlock.
    /// - Returns: the objects unlocked at once, and a prompt for the rest (`/` when none).
    /// - Throws: `SecretServiceError` or `SecretServiceClientError`.
    public func unlock(_ objects: [ObjectPath]) async throws -> (unlocked: [ObjectPath], prompt: ObjectPath) {
        let (body, _) = try await target.call(
            SecretServiceNames.serviceInterface, "Unlock", [.objectPaths(objects)], expecting: "aoo")
        return (try ReplyValue.objectPaths(body[0], "unlocked"), try ReplyValue.objectPath(body[1], "prompt"))
    }

    /// `Lock(ao objects) → (ao locked, o prompt)`.
    /// - Parameter objects: collections or items to lock.
    /// - Returns: the objects locked at once, and a prompt for the rest (`/` when none).
    /// - Throws: `SecretServiceError` or `SecretServiceClientError`.
    public func lock(_ objects: [ObjectPath]) async throws -> (locked: [ObjectPath], prompt: ObjectPath) {
        let (body, _) = try await target.call(
            SecretServiceNames.serviceInterface, "Lock", [.objectPaths(objects)], expecting: "aoo")
        return (try ReplyValue.objectPaths(body[0], "locked"), try ReplyValue.objectPath(body[1], "prompt"))
    }

    /// `GetSecrets(ao items, o session) → (a{o(oayays)} secrets)`.
    /// - Parameters:
    ///   - items: the items to read; locked or unknown ones are usually left out of the answer.
    ///   - session: the caller's session, which encodes the answer.
    /// - Returns: the encoded secrets by item path.
    /// - Throws: `SecretServiceError` (`noSession`) or `SecretServiceClientError`.
    public func getSecrets(_ items: [ObjectPath], session: ObjectPath) async throws -> [ObjectPath: WireSecret] {
        let entries = try await secretEntries(items, session: session)
        var secrets: [ObjectPath: WireSecret] = [:]
        secrets.reserveCapacity(entries.count)
        for (path, secret) in entries { secrets[path] = secret }
        return secrets
    }

    /// ``getSecrets(_:session:)``'s answer in the order the provider gave it, for a caller that builds its own table
    /// (one per item read is enough).
    func secretEntries(_ items: [ObjectPath], session: ObjectPath) async throws -> [(ObjectPath, WireSecret)] {
        let (body, _) = try await target.call(
            SecretServiceNames.serviceInterface, "GetSecrets", [.objectPaths(items), .objectPath(session)],
            expecting: Signature([.dictionary(key: .objectPath, value: WireSecret.type)]))
        guard let entries = body[0].dictionaryEntries else {
            throw SecretServiceClientError.unexpectedReply("GetSecrets did not return a map")
        }
        return try entries.map { entry in
            (try ReplyValue.objectPath(entry.key, "item"), try ReplyValue.secret(entry.value, "secret"))
        }
    }

    /// `ReadAlias(s name) → (o collection)`.
    /// - Parameter name: the alias, for example `default`.
    /// - Returns: the collection, or `/` when the alias is not set.
    /// - Throws: `SecretServiceError` or `SecretServiceClientError`.
    public func readAlias(_ name: String) async throws -> ObjectPath {
        let (body, _) = try await target.call(
            SecretServiceNames.serviceInterface, "ReadAlias", [.string(name)], expecting: "o")
        return try ReplyValue.objectPath(body[0], "collection")
    }

    /// `SetAlias(s name, o collection)`.
    /// - Parameters:
    ///   - name: the alias.
    ///   - collection: the collection it names, or `/` to remove the alias.
    /// - Throws: `SecretServiceError` or `SecretServiceClientError`.
    public func setAlias(_ name: String, collection: ObjectPath) async throws {
        try await target.call(
            SecretServiceNames.serviceInterface, "SetAlias", [.string(name), .objectPath(collection)],
            expecting: .empty)
    }

    /// The `Collections` property (`ao`).
    /// - Throws: `SecretServiceError` or `SecretServiceClientError`.
    public func collections() async throws -> [ObjectPath] {
        try ReplyValue.objectPaths(
            try await properties.get(SecretServiceNames.serviceInterface, "Collections"), "Collections")
    }
}
