// SPDX-License-Identifier: Apache-2.0
// kSecAttrSynchronizable against a cofferd with synchronized collections: where adds go, and what searches,
// updates and deletes match.

import DBusWire
import Foundation
import CofferKeychain
import CofferKeychainConfiguration
import SecretServiceClient
import SecretServiceTestSupport
import Testing

extension KeychainSuites {
    @Suite("kSecAttrSynchronizable and synchronized collections", .timeLimit(.minutes(2)))
    struct SynchronizableRoutingTests {
        static let service = "sync-routing"
        static var synchronizable: [String: Any] { [kSecAttrSynchronizable as String: true] }
        static var any: [String: Any] { [kSecAttrSynchronizable as String: kSecAttrSynchronizableAny] }

        /// cofferd (with the cheap key derivation, so that enabling sync is quick) and the library bound to it;
        /// `keychains` are made with `coffer create-keychain NAME` (password "NAME pw") and, like those in
        /// `synchronized`, made synchronized through a folder of their own.
        static func withCofferd(keychains: [String] = [], synchronized: [String],
                                configured: String? = nil,
                                _ body: (SecretService, ClientEnvironment) async throws -> Void) async throws {
            try await TestBus.withPrivateBus { bus in
                let harness = try await DaemonHarness.start(
                    on: bus, options: .init(arguments: DaemonHarness.cheapKeyDerivation))
                let configuration = KeychainConfiguration(
                    busAddress: bus.address, accessGroup: testGroup, lockDirectory: bus.directory.path,
                    synchronizedCollection: configured)
                let client: SecretService
                do {
                    client = try await SecretService.connect(address: bus.address)
                } catch {
                    await harness.kill()
                    throw error
                }
                let outcome: Result<Void, any Error>
                do {
                    let coffer = CofferCLI(bus: bus)
                    for name in keychains {
                        let made = try await coffer.run(["create-keychain", name], input: "\(name) pw\n")
                        try #require(made.status == 0, "\(made.stderr)")
                    }
                    for name in synchronized {
                        let folder = bus.directory.appendingPathComponent("Sync-\(name)").path
                        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                        let password = name == "login" ? DaemonHarness.testLoginPassword : "\(name) pw"
                        let enabled = try await coffer.run(["sync", "enable", "--collection", name, folder],
                                                           input: password + "\n")
                        try #require(enabled.status == 0, "\(enabled.stderr)")
                    }
                    outcome = .success(try await KeychainConfiguration.withConfiguration(configuration) {
                        try await body(client, ClientEnvironment(bus: bus))
                    })
                } catch {
                    outcome = .failure(error)
                }
                await KeychainLibrary.closeConnection(for: configuration)
                await client.close()
                await harness.stop()
                try outcome.get()
            }
        }

        static func collection(_ name: String) -> ObjectPath {
            ObjectPath(unchecked: "/org/freedesktop/secrets/collection/\(name)")
        }

        /// The collection the item `account` of this suite's service was stored in.
        static func home(of account: String, _ client: SecretService) async throws -> ObjectPath? {
            let found = try await client.searchItems(["service": service, "account": account])
            guard let path = (found.unlocked + found.locked).first else { return nil }
            let raw = path.rawValue
            return ObjectPath(unchecked: String(raw[..<(raw.lastIndex(of: "/") ?? raw.endIndex)]))
        }

        /// The accounts a search with `extra` finds, sorted.
        static func accounts(_ extra: [String: Any]) -> [String] {
            var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                        kSecAttrService as String: service, kSecMatchLimit as String: kSecMatchLimitAll,
                                        kSecReturnAttributes as String: true]
            query.merge(extra) { $1 }
            var result: CFTypeRef?
            guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess else { return [] }
            return ((result as? [[String: Any]]) ?? []).compactMap { $0[kSecAttrAccount as String] as? String }.sorted()
        }

        /// The data of the service's items that `extra` matches, in the order returned.
        static func secrets(_ extra: [String: Any], withAttributes: Bool) -> [String] {
            var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                        kSecAttrService as String: service, kSecMatchLimit as String: kSecMatchLimitAll,
                                        kSecReturnData as String: true, kSecReturnAttributes as String: withAttributes]
            query.merge(extra) { $1 }
            var result: CFTypeRef?
            guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess else { return [] }
            let data = withAttributes ? ((result as? [[String: Any]]) ?? []).compactMap { $0[kSecValueData as String] as? Data }
                : (result as? [Data]) ?? []
            return data.map { String(decoding: $0, as: UTF8.self) }
        }

        @Test("with a synchronized collection beside an unsynchronized default, synchronizable adds go to it; searches, updates and deletes match by the attribute across both")
        func routedBesideDefault() async throws {
            try await Self.withCofferd(keychains: ["work"], synchronized: ["work"]) { (client, _) async throws in
                #expect(try await client.synchronizedCollections() == [Self.collection("work")])
                #expect(addGenericPassword(service: Self.service, account: "travels", password: "t1",
                                           extra: Self.synchronizable) == errSecSuccess)
                #expect(addGenericPassword(service: Self.service, account: "stays", password: "s1") == errSecSuccess)
                #expect(try await Self.home(of: "travels", client) == Self.collection("work"))
                #expect(try await Self.home(of: "stays", client) == Self.collection("login"))
                // The same key, once synchronizable and once not, is two items, as on iOS.
                #expect(addGenericPassword(service: Self.service, account: "stays", password: "s2",
                                           extra: Self.synchronizable) == errSecSuccess)
                #expect(addGenericPassword(service: Self.service, account: "stays", password: "s3",
                                           extra: Self.synchronizable) == errSecDuplicateItem)

                #expect(Self.accounts([:]) == ["stays"])
                #expect(Self.accounts([kSecAttrSynchronizable as String: false]) == ["stays"])
                #expect(Self.accounts(Self.synchronizable) == ["stays", "travels"])
                #expect(Self.accounts(Self.any) == ["stays", "stays", "travels"])
                // A search for data alone (the short way on cofferd, which leaves synchronizable items out itself)
                // answers as one that also returns attributes (the usual way, which checks each item).
                #expect(Self.secrets([:], withAttributes: false) == ["s1"])
                for extra in [[:], Self.synchronizable, Self.any] {
                    #expect(Self.secrets(extra, withAttributes: false) == Self.secrets(extra, withAttributes: true))
                }
                #expect(readGenericPassword(service: Self.service, account: "stays").1 == "s1")
                #expect(readGenericPassword(service: Self.service, account: "stays", extra: Self.synchronizable).1
                        == "s2")

                // An update without the key changes only the unsynchronized item; with Any, every match.
                let stays: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                            kSecAttrService as String: Self.service, kSecAttrAccount as String: "stays"]
                #expect(SecItemUpdate(stays as CFDictionary,
                                      [kSecValueData as String: Data("s4".utf8)] as CFDictionary) == errSecSuccess)
                #expect(readGenericPassword(service: Self.service, account: "stays").1 == "s4")
                #expect(readGenericPassword(service: Self.service, account: "stays", extra: Self.synchronizable).1
                        == "s2")
                let everyStays = stays.merging(Self.any) { $1 }
                #expect(SecItemUpdate(everyStays as CFDictionary,
                                      [kSecAttrLabel as String: "both"] as CFDictionary) == errSecSuccess)
                let found = try await client.searchItems(["service": Self.service, "account": "stays"])
                for path in found.unlocked {
                    #expect(try await client.itemProperties(path).label == "both")
                }
                #expect(found.unlocked.count == 2)

                // A delete with the key true removes only the synchronizable items.
                let everySynchronizable: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                                          kSecAttrService as String: Self.service]
                    .merging(Self.synchronizable) { $1 }
                #expect(SecItemDelete(everySynchronizable as CFDictionary) == errSecSuccess)
                #expect(Self.accounts(Self.any) == ["stays"])
                #expect(try await Self.home(of: "stays", client) == Self.collection("login"))
                // A locked synchronized collection is still reported as one.
                _ = try await client.lock([Self.collection("work")])
                #expect(try await client.synchronizedCollections() == [Self.collection("work")])
            }
        }

        @Test("an update that sets or clears kSecAttrSynchronizable moves the item where an add would put it")
        func updateMoves() async throws {
            try await Self.withCofferd(keychains: ["work"], synchronized: ["work"]) { (client, _) async throws in
                #expect(addGenericPassword(service: Self.service, account: "moves", password: "m1") == errSecSuccess)
                let moves: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                            kSecAttrService as String: Self.service, kSecAttrAccount as String: "moves"]
                #expect(SecItemUpdate(moves as CFDictionary, Self.synchronizable as CFDictionary) == errSecSuccess)
                #expect(try await Self.home(of: "moves", client) == Self.collection("work"))
                #expect(Self.accounts([:]).isEmpty)
                #expect(readGenericPassword(service: Self.service, account: "moves", extra: Self.synchronizable).1
                        == "m1")

                // Back, with a new secret in the same update.
                let back: [String: Any] = [kSecAttrSynchronizable as String: false,
                                           kSecValueData as String: Data("m2".utf8)]
                #expect(SecItemUpdate(moves.merging(Self.synchronizable) { $1 } as CFDictionary,
                                      back as CFDictionary) == errSecSuccess)
                #expect(try await Self.home(of: "moves", client) == Self.collection("login"))
                #expect(readGenericPassword(service: Self.service, account: "moves").1 == "m2")
                let found = try await client.searchItems(["service": Self.service])
                #expect(found.unlocked.count + found.locked.count == 1, "the original is gone")

                // A move onto an item with the same key is a duplicate, and nothing moves.
                #expect(addGenericPassword(service: Self.service, account: "moves", password: "m3",
                                           extra: Self.synchronizable) == errSecSuccess)
                #expect(SecItemUpdate(moves as CFDictionary, Self.synchronizable as CFDictionary)
                        == errSecDuplicateItem)
                #expect(Self.accounts(Self.any) == ["moves", "moves"])
                #expect(try await Self.home(of: "moves", client) != nil)
            }
        }

        @Test("when the default collection is synchronized, synchronizable adds go to it, before a configured one")
        func defaultSynchronized() async throws {
            try await Self.withCofferd(keychains: ["work"], synchronized: ["login", "work"],
                                       configured: "work") { (client, _) async throws in
                #expect(addGenericPassword(service: Self.service, account: "travels", password: "t1",
                                           extra: Self.synchronizable) == errSecSuccess)
                #expect(try await Self.home(of: "travels", client) == Self.collection("login"))
            }
        }

        @Test("among several synchronized collections the configured one takes synchronizable adds, by id or label")
        func configuredCollection() async throws {
            for (configured, expected) in [("second", "second"), ("work", "work"), (nil, "login"),
                                           ("nowhere", "login")] as [(String?, String)] {
                try await Self.withCofferd(keychains: ["work", "second"], synchronized: ["work", "second"],
                                           configured: configured) { (client, _) async throws in
                    #expect(addGenericPassword(service: Self.service, account: "travels", password: "t1",
                                               extra: Self.synchronizable) == errSecSuccess)
                    #expect(try await Self.home(of: "travels", client) == Self.collection(expected),
                            "configured: \(configured ?? "none")")
                    #expect(Self.accounts(Self.synchronizable) == ["travels"])
                }
            }
        }

        @Test("the configured collection may be named by its label")
        func configuredByLabel() async throws {
            try await Self.withCofferd(keychains: ["work", "second"], synchronized: ["work", "second"],
                                       configured: "Second Label") { (client, _) async throws in
                try await client.setLabel(ofCollection: Self.collection("second"), to: "Second Label")
                #expect(addGenericPassword(service: Self.service, account: "travels", password: "t1",
                                           extra: Self.synchronizable) == errSecSuccess)
                #expect(try await Self.home(of: "travels", client) == Self.collection("second"))
            }
        }

        // The variable's value is passed in: setenv here would race with every child process the other suites
        // start (Foundation's Process copies the environment while another thread may reallocate it).
        @Test("COFFER_KEYCHAIN_SYNC_COLLECTION names the collection when the configuration does not")
        func environmentVariable() {
            #expect(KeychainConfiguration.synchronizedCollectionVariable == "COFFER_KEYCHAIN_SYNC_COLLECTION")
            #expect(KeychainConfiguration().resolvedSynchronizedCollection(environment: "from-environment")
                == "from-environment")
            #expect(KeychainConfiguration(synchronizedCollection: "field")
                .resolvedSynchronizedCollection(environment: "from-environment") == "field")
            #expect(KeychainConfiguration().resolvedSynchronizedCollection(environment: "") == nil)
            #expect(KeychainConfiguration().resolvedSynchronizedCollection(environment: nil) == nil)
        }

        @Test("gnome-keyring synchronizes nothing: a synchronizable add goes to the default collection and keeps the attribute")
        func otherProvider() async throws {
            try await withKeychain(.gnomeKeyring) { _, _, client in
                #expect(try await client.synchronizedCollections().isEmpty)
                #expect(addGenericPassword(service: Self.service, account: "travels", password: "t1",
                                           extra: Self.synchronizable) == errSecSuccess)
                let defaultCollection = try await client.readAlias("default")
                let home = try await Self.home(of: "travels", client)
                #expect(home != nil && home == defaultCollection, "\(String(describing: home)) \(String(describing: defaultCollection))")
                #expect(Self.accounts(Self.synchronizable) == ["travels"])
                #expect(Self.accounts([:]).isEmpty)
                // An update of the attribute changes only the attribute: nothing to move to.
                let travels: [String: Any] = [kSecClass as String: kSecClassGenericPassword,
                                              kSecAttrService as String: Self.service,
                                              kSecAttrSynchronizable as String: true]
                #expect(SecItemUpdate(travels as CFDictionary,
                                      [kSecAttrSynchronizable as String: false] as CFDictionary) == errSecSuccess)
                #expect(Self.accounts([:]) == ["travels"])
                #expect(try await Self.home(of: "travels", client) == defaultCollection)
            }
        }
    }
}
