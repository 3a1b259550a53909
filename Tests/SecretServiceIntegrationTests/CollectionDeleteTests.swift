// SPDX-License-Identifier: Apache-2.0
// Deleting a locked collection takes its password, as reading it does.

import DBusWire
import Foundation
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

@Suite("cofferd: deleting a locked collection", .timeLimit(.minutes(2)))
struct CollectionDeleteTests {
    @Test("Delete of a locked login answers with an unlock prompt; dismissed keeps the file, unlocked deletes it")
    func lockedDeleteNeedsThePassword() async throws {
        try await withDaemonSequence { daemons in
            _ = try await daemons.start(DaemonSequence.options(
                "delete", pinentryAnswers: ["CANCEL", DaemonHarness.testLoginPassword]))
            let login = DaemonSequence.loginPath
            let file = daemons.collectionFile("login").path
            try await withClient(on: daemons.bus) { client in
                _ = try await client.lock([login])
                let first = try await client.collectionProxy(login).delete()
                #expect(first != .root, "a locked collection was deleted without a prompt")
                #expect(try await client.runPrompt(first) == .dismissed)
                #expect(FileManager.default.fileExists(atPath: file), "the file went with a dismissed prompt")
                #expect(try await client.collections().contains(login))
                #expect(try await client.collectionProperties(login).locked)

                let second = try await client.collectionProxy(login).delete()
                #expect(try await client.runPrompt(second) == .completed(.objectPaths([login])))
                #expect(!FileManager.default.fileExists(atPath: file))
                #expect(try await !client.collections().contains(login))
            }
            await daemons.stop()
        }
    }
}
