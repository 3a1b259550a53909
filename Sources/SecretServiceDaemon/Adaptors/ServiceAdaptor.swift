// org.freedesktop.Secret.Service
// SPDX-License-Identifier: Apache-2.0
// The service object: sessions, collections, search, secrets in bulk, aliases.

import DBusWire
import Logging
import SecretCrypto
import SecretServiceProtocol
import SecretStore

/// Serves `org.freedesktop.Secret.Service` on `/org/freedesktop/secrets`.
struct ServiceAdaptor {
    let context: DaemonContext

    static let interface = ServedInterface(
        SecretServiceNames.serviceInterface, adaptor: ServiceAdaptor.init,
        methods: [
            AdaptorMethod("OpenSession", in: [.init("algorithm", .string), .init("input", .variant)],
                          out: [.init("output", .variant), .init("result", .objectPath)]) { adaptor, call in
                try await adaptor.openSession(algorithm: call.args.string(0), input: call.args.variant(1),
                                              caller: call.caller)
            },
            AdaptorMethod("CreateCollection",
                          in: [.init("properties", SecretInterfaces.propertyMap), .init("alias", .string)],
                          out: [.init("collection", .objectPath), .init("prompt", .objectPath)]) { adaptor, call in
                try await adaptor.createCollection(properties: call.args.properties(0), alias: call.args.string(1),
                                                   caller: call.caller)
            },
            AdaptorMethod("SearchItems", in: [.init("attributes", SecretInterfaces.attributes)],
                          out: [.init("unlocked", SecretInterfaces.paths), .init("locked", SecretInterfaces.paths)],
                          waitsForUnlocks: true) { adaptor, call in
                await adaptor.searchItems(try call.args.attributes(0), caller: call.caller)
            },
            AdaptorMethod("Unlock", in: [.init("objects", SecretInterfaces.paths)],
                          out: [.init("unlocked", SecretInterfaces.paths), .init("prompt", .objectPath)],
                          waitsForUnlocks: true) { adaptor, call in
                try await adaptor.unlock(try call.args.objectPaths(0), caller: call.caller)
            },
            AdaptorMethod("Lock", in: [.init("objects", SecretInterfaces.paths)],
                          out: [.init("locked", SecretInterfaces.paths), .init("Prompt", .objectPath)],
                          waitsForUnlocks: true) { adaptor, call in
                try await adaptor.lock(try call.args.objectPaths(0))
            },
            AdaptorMethod("GetSecrets", in: [.init("items", SecretInterfaces.paths), .init("session", .objectPath)],
                          out: [.init("secrets", .dictionary(key: .objectPath, value: SecretInterfaces.secret))],
                          waitsForUnlocks: true) { adaptor, call in
                try await adaptor.getSecrets(items: call.args.objectPaths(0), session: call.args.objectPath(1),
                                             caller: call.caller)
            },
            // An alias read names a collection an unlock may yet find damaged and take out of service.
            AdaptorMethod("ReadAlias", in: [.init("name", .string)], out: [.init("collection", .objectPath)],
                          waitsForUnlocks: true) { adaptor, call in
                try await adaptor.readAlias(try call.args.string(0))
            },
            AdaptorMethod("SetAlias", in: [.init("name", .string), .init("collection", .objectPath)]) { adaptor, call in
                try await adaptor.setAlias(name: call.args.string(0), collection: call.args.objectPath(1))
            },
        ],
        properties: [PropertyDescription("Collections", SecretInterfaces.paths)],
        signals: [
            SignalDescription("CollectionCreated", [.init("collection", .objectPath)]),
            SignalDescription("CollectionDeleted", [.init("collection", .objectPath)]),
            SignalDescription("CollectionChanged", [.init("collection", .objectPath)]),
        ])

    /// The service's properties.
    func properties() async -> [String: DBusValue] {
        ["Collections": .objectPaths(await context.store.collectionIDs().map(Paths.collection))]
    }

    // MARK: - Sessions

    private func openSession(algorithm: String, input: DBusValue, caller: BusName) async throws(SecretServiceError)
        -> HandlerResult {
        let negotiated: SecretSession.Algorithm
        let output: DBusValue
        switch algorithm {
        case SecretServiceNames.plainAlgorithm:
            guard input.string != nil else { throw .invalidArgs("the plain algorithm takes an empty string as input") }
            negotiated = .plain
            output = .string("")
        case SecretServiceNames.dhAlgorithm:
            guard let peerKey = input.bytes else { throw .invalidArgs("the DH algorithm takes a byte array as input") }
            do {
                let cipher = try DHSessionCipher(peerPublicKey: peerKey)
                negotiated = .dh(cipher)
                output = .bytes(cipher.publicKey)
            } catch let error as CryptoError where error == .secureMemoryExhausted {
                throw .limitsExceeded("the secure memory for encrypted sessions is used up; close some sessions")
            } catch let error as CryptoError where error == .invalidPublicKey {
                throw .invalidArgs("the client's public key is not acceptable")
            } catch {
                throw .failed("the session could not be set up: \(error)")
            }
        default:
            throw .notSupported("the session algorithm '\(algorithm.prefix(64))' is not supported")
        }
        let session = try await context.clients.openSession(owner: caller, algorithm: negotiated)
        return context.registered([.variant(output), .objectPath(session.path)], for: caller)
    }

    // MARK: - Collections and search

    /// `CreateCollection`: returns an existing collection named by `alias` at once; otherwise, when the daemon keeps
    /// files and can ask for passwords, a prompt asks for the new collection's password (twice) and creates it
    /// encrypted; without either, the collection lives in memory and no prompt is needed.
    private func createCollection(properties: [String: DBusValue], alias: String, caller: BusName)
        async throws(SecretServiceError) -> HandlerResult {
        let label = try Self.collectionLabel(in: properties)
        let store = context.store
        if !alias.isEmpty, let existing = await store.resolveAlias(alias) {
            return HandlerResult([.objectPath(Paths.collection(existing)), .objectPath(.root)])
        }
        guard store.keepsFiles, let prompter = context.prompter as? any PasswordPrompter else {
            let (id, _) = try await store.createCollection(label: label, alias: alias, inMemory: true)
            return HandlerResult([.objectPath(Paths.collection(id)), .objectPath(.root)])
        }
        let logger = context.logger
        // The first collection for the default alias becomes `login`, which `coffer unlock-keychain` also creates.
        let existingIDs = await store.collectionIDs()
        let makesDefault = alias == SecretServiceNames.defaultAlias
            && !existingIDs.contains(SecretServiceNames.loginCollection)
        let question = makesDefault ? PromptQuestion.unlock(collection: nil) : .create(label: label)
        let work = PromptWork(emptyResult: .objectPath(.root), question: question) { windowID in
            let request = PasswordRequest(collectionLabel: label, windowID: windowID, caller: caller, attempt: 1,
                                          errorText: nil)
            guard let password = await prompter.newPassword(for: request), !Task.isCancelled else { return nil }
            // The first collection made for the default alias becomes `login`, the name clients hard-code.
            let existing = await store.collectionIDs()
            let isFirstDefault = alias == SecretServiceNames.defaultAlias && !existing.contains(SecretServiceNames.loginCollection)
            do {
                let (id, _) = try await store.createCollection(label: label, alias: alias, password: password,
                                                               preferredID: isFirstDefault ? SecretServiceNames.loginCollection : nil)
                return .objectPath(Paths.collection(id))
            } catch {
                logger.error("the collection could not be created", metadata: ["error": "\(error)"])
                return nil
            }
        }
        let prompt = try await context.clients.createPrompt(owner: caller, work: work)
        return context.registered([.objectPath(.root), .objectPath(Paths.prompt(prompt))], for: caller)
    }

    /// The label a `CreateCollection`-style property map asks for (`""` when it names none).
    /// - Throws: `invalidArgs` when the label is not a string.
    static func collectionLabel(in properties: [String: DBusValue]) throws(SecretServiceError) -> String {
        guard let value = properties[SecretPropertyKeys.collectionLabel] ?? properties["Label"] else { return "" }
        guard let text = value.string else { throw .invalidArgs("the collection label must be a string") }
        return text
    }

    /// `SearchItems`: items the caller may not use come back in the locked list (so clients unlock them, which
    /// asks the user), or under `strict` not at all.
    private func searchItems(_ attributes: [String: String], caller: BusName) async -> HandlerResult {
        let found = await search(attributes, caller: caller)
        return HandlerResult([.objectPaths(found.unlocked.map { Paths.item($0.collection, $0.item) }),
                              .objectPaths(found.locked)])
    }

    /// The matches of `attributes` as `SearchItems` splits them for `caller`, newest `Modified` first: those it can
    /// read now, and the paths of those it must unlock first.
    func search(_ attributes: [String: String], caller: BusName) async -> (unlocked: [ItemRef], locked: [ObjectPath]) {
        var unlocked: [ItemRef] = []
        var locked: [ObjectPath] = []
        let matches = await context.store.search(attributes)
        for (found, readable) in zip(matches, await readability(of: matches, caller: caller)) {
            switch readable {
            case true?: unlocked.append(found)
            case false?: locked.append(Paths.item(found.collection, found.item))
            case nil: break
            }
        }
        return (unlocked, locked)
    }

    /// How each of a search's `matches` shows to `caller`: `true` for one it can read now, `false` for one it must
    /// unlock first (its collection is locked, or the caller's application may not use it, which the unlock asks
    /// the user about), `nil` for one hidden from it (under `strict`).
    func readability(of matches: [ItemRef], caller: BusName) async -> [Bool?] {
        let permitted = await context.access.permitted(caller, matches.map { ($0.collection, $0.item) })
        return zip(matches, permitted).map { found, permitted in
            // Nobody's creator is known while the collection is locked: shown locked to everyone.
            if found.isLocked { return false }
            if permitted { return true }
            return context.access.hides(found.collection) ? nil : false
        }
    }

    // MARK: - Secrets

    private func getSecrets(items: [ObjectPath], session sessionPath: ObjectPath, caller: BusName)
        async throws(SecretServiceError) -> HandlerResult {
        let session = try await context.session(at: sessionPath, caller: caller)
        var seen = Set<ObjectPath>(minimumCapacity: items.count)
        var located: [(path: ObjectPath, collection: String, item: String)] = []
        for path in items where seen.insert(path).inserted {
            // Unknown and locked items are left out, as clients expect, rather than failing the whole call.
            guard let (collection, item) = await context.itemLocation(for: path) else { continue }
            located.append((path, collection, item))
        }
        let permitted = await context.access.permitsUses(caller, located.map { ($0.collection, $0.item) }, for: .read)
        var readable: [(path: ObjectPath, collection: String, item: String)] = []
        for ((path, collection, item), permitted) in zip(located, permitted) {
            guard permitted else {
                if await context.store.itemExists(collection: collection, item: item),
                   (try? await context.store.collectionInfo(collection, countingItemTimes: false).isLocked) == false {
                    await context.access.refused(caller, collection: collection, item: item)
                }
                continue
            }
            readable.append((path, collection, item))
        }
        // One visit to the store for all of them; an item gone or locked meanwhile is left out.
        let encoder = session.encoder(count: readable.count)
        let encoded = try await context.store.secrets(readable.map { ($0.collection, $0.item) }) {
            index, secret throws(SecretServiceError) in try encoder.encode(secret, at: index)
        }
        let entries = zip(readable, encoded).compactMap { item, wire in
            wire.map { DictEntry(.objectPath(item.path), $0.dbusValue) }
        }
        return HandlerResult([.dictionary(key: .objectPath, value: WireSecret.type, entries)])
    }

    // MARK: - Aliases

    private func readAlias(_ name: String) async throws(SecretServiceError) -> HandlerResult {
        guard let id = await context.store.resolveAlias(name) else { return HandlerResult([.objectPath(.root)]) }
        return HandlerResult([.objectPath(Paths.collection(id))])
    }

    private func setAlias(name: String, collection: ObjectPath) async throws(SecretServiceError) -> HandlerResult {
        if collection == .root {
            try await context.store.setAlias(name, to: nil)
            return HandlerResult()
        }
        guard let id = await context.collectionID(for: collection) else { throw .noSuchObject("no such collection") }
        try await context.store.setAlias(name, to: id)
        return HandlerResult()
    }
}
