// SPDX-License-Identifier: Apache-2.0
// Altered or rolled-back collection files: the collection becomes unavailable, the file stays as found, others work.

import DBusWire
import Foundation
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

@Suite("PersistenceIntegration: tampered files", .timeLimit(.minutes(2)))
struct PersistenceIntegrationTamperingTests {
    /// Creates `login` with one item and a second persistent collection, "Other", with one item (made by python
    /// secretstorage; its new password comes from the scripted pinentry), then stops the daemon.
    private func makeTwoCollections(_ daemons: DaemonSequence) async throws {
        _ = try await daemons.start(DaemonSequence.options("setup"))
        try await withClient(on: daemons.bus) { client in
            _ = try await client.createItem(in: DaemonSequence.loginPath, label: "login item",
                                            attributes: ["where": "login"], secret: secret("kept in login Rw4q"), replace: false)
        }
        let made = try await ClientEnvironment(bus: daemons.bus).python("""
            import secretstorage
            conn = secretstorage.dbus_init()
            other = secretstorage.create_collection(conn, 'Other')
            other.create_item('other item', {'where': 'other'}, b'in other')
            print(other.collection_path)
            """)
        made.expectSuccess("create Other")
        await daemons.stop()
    }

    /// The collection labelled "Other", unlocked through the prompt (the scripted pinentry answers), and its item.
    private func expectOtherServes(_ client: SecretService) async throws {
        var other: ObjectPath?
        for path in try await client.collections() where try await client.collectionProperties(path).label == "Other" {
            other = path
        }
        let collection = try #require(other, "the Other collection is gone")
        #expect(try await client.collectionProperties(collection).locked)
        #expect(try await client.unlock([collection]) == [collection])
        let found = try await client.searchItems(["where": "other"])
        #expect(found.unlocked.count == 1 && found.locked.isEmpty, "\(found)")
        if let item = found.unlocked.first { #expect(try await client.secret(of: item).text == "in other") }
        // And it takes writes.
        let added = try await client.createItem(in: collection, label: "after", attributes: ["where": "other-2"],
                                                secret: secret("later"), replace: false)
        #expect(try await client.secret(of: added).text == "later")
    }

    /// What every test expects of an unavailable `login`: NoSuchObject on its path, no `default` alias.
    private func expectLoginUnavailable(_ client: SecretService) async throws {
        let login = DaemonSequence.loginPath
        #expect(await failsWithNoSuchObject { _ = try await client.collectionProperties(login) })
        #expect(try await client.readAlias(SecretServiceNames.defaultAlias) == nil)
        #expect(!(try await client.collections()).contains(login))
        #expect(try await client.searchItems(["where": "login"]) == ([], []))
    }

    @Test("one flipped byte near the end of login.coffer: login is unavailable at start, the file is kept, Other works",
          arguments: [5, 40])
    func flippedByte(distanceFromEnd: Int) async throws {
        try await withDaemonSequence { daemons in
            try await makeTwoCollections(daemons)
            var bytes = try daemons.fileBytes("login")
            bytes[bytes.count - distanceFromEnd] ^= 0x01
            try bytes.write(to: daemons.collectionFile("login"))

            let daemon = try await daemons.start(DaemonSequence.options("tampered"))
            try await withClient(on: daemons.bus) { client in
                try await expectLoginUnavailable(client)
                try await expectOtherServes(client)
            }
            // The --unlock runs once the name is claimed; the calls on login above waited for it to find the damage.
            let log = daemon.log()
            #expect(log.contains(daemons.collectionFile("login").path), "the log does not name the file:\n\(log)")
            #expect(log.contains("altered"), "the log gives no reason:\n\(log)")
            await daemons.stop()
            #expect(try daemons.fileBytes("login") == bytes, "the tampered file was changed")
        }
    }

    @Test("a flipped byte found by an unlock prompt (no --unlock): the prompt is dismissed, login becomes unavailable")
    func flippedByteFoundByPrompt() async throws {
        try await withDaemonSequence { daemons in
            try await makeTwoCollections(daemons)
            var bytes = try daemons.fileBytes("login")
            bytes[bytes.count - 5] ^= 0x01
            try bytes.write(to: daemons.collectionFile("login"))

            let daemon = try await daemons.start(DaemonSequence.options("prompted", loginPassword: nil))
            try await withClient(on: daemons.bus) { client in
                let login = DaemonSequence.loginPath
                // The structure is intact, so the collection is listed, locked, until a password opens it.
                #expect(try await client.collectionProperties(login).locked)
                let error = await #expect(throws: (any Error).self) { try await client.unlock([login]) }
                #expect((error as? SecretServiceClientError) == .dismissed, "\(String(describing: error))")
                try await expectLoginUnavailable(client)
                try await expectOtherServes(client)
            }
            let log = daemon.log()
            #expect(log.contains(daemons.collectionFile("login").path), "the log does not name the file:\n\(log)")
            #expect(log.contains("altered"), "the log gives no reason:\n\(log)")
            await daemons.stop()
            #expect(try daemons.fileBytes("login") == bytes, "the tampered file was changed")
        }
    }

    @Test("an older copy of login.coffer put back is refused; the copy stays as it was")
    func olderCopy() async throws {
        try await withDaemonSequence { daemons in
            _ = try await daemons.start(DaemonSequence.options("first"))
            let older = try await withClient(on: daemons.bus) { client in
                _ = try await client.createItem(in: DaemonSequence.loginPath, label: "one",
                                                attributes: ["where": "login"], secret: secret("one"), replace: false)
                let copy = try daemons.fileBytes("login")  // each acknowledged write is on disk
                _ = try await client.createItem(in: DaemonSequence.loginPath, label: "two", attributes: ["n": "2"],
                                                secret: secret("two"), replace: false)
                return copy
            }
            await daemons.stop()
            #expect(try daemons.fileBytes("login") != older)
            try older.write(to: daemons.collectionFile("login"))

            let daemon = try await daemons.start(DaemonSequence.options("rolled-back"))
            let log = daemon.log()
            #expect(log.contains(daemons.collectionFile("login").path), "the log does not name the file:\n\(log)")
            #expect(log.contains("older copy"), "the log gives no reason:\n\(log)")
            try await withClient(on: daemons.bus) { client in
                try await expectLoginUnavailable(client)
            }
            await daemons.stop()
            #expect(try daemons.fileBytes("login") == older, "the older copy was changed")
        }
    }
}
