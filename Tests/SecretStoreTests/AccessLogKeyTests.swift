// SPDX-License-Identifier: Apache-2.0
// The key that seals a collection's access-log entries: there exactly while the collection is unlocked, and
// handed on when a password change replaces the master key.

import Foundation
import SecretCrypto
@testable import SecretStore
import Synchronization
import Testing

@Suite("Collection files: the access-log key")
struct AccessLogKeyTests {
    static func key(_ answer: CollectionLogKey) -> [UInt8]? {
        if case .available(let key) = answer { return key.copyBytes() }
        return nil
    }

    @Test("available while unlocked and the same after a restart; locked while locked; absent in memory or unknown")
    func availability() async throws {
        let dir = try ScratchDirectory()
        let first: [UInt8]
        do {
            let store = try await dir.store()
            _ = try await store.createCollection(label: "C", alias: "", password: password("pw"), preferredID: "c")
            first = try #require(Self.key(await store.accessLogKey(of: "c")))
            #expect(first.count == 32)
            _ = try await store.createCollection(label: "S", inMemory: true, preferredID: "s")
            guard case .absent = await store.accessLogKey(of: "s") else { throw Failure("in memory has a key") }
            guard case .absent = await store.accessLogKey(of: "nothing") else { throw Failure("unknown has a key") }
            try await store.setLocked("c", true)
            guard case .locked = await store.accessLogKey(of: "c") else { throw Failure("locked has a key") }
        }
        let store = try await dir.store()
        #expect(try await store.unlock("c", password: password("pw")))
        #expect(Self.key(await store.accessLogKey(of: "c")) == first)
    }

    @Test("a password change that replaces the master key hands the previous key on, and the key changes")
    func passwordChange() async throws {
        let dir = try ScratchDirectory()
        let store = try await dir.store()
        _ = try await store.createCollection(label: "C", alias: "", password: password("old"), preferredID: "c")
        let before = try #require(Self.key(await store.accessLogKey(of: "c")))
        let told = Mutex<[(String, [UInt8], [UInt8])]>([])
        await store.onAccessLogKeyChange { id, old, new in
            told.withLock { $0.append((id, old.copyBytes(), new.copyBytes())) }
        }
        #expect(try await store.passwordChange(of: "c", from: password("old"), to: password("new")) == .rekeyed)
        let after = try #require(Self.key(await store.accessLogKey(of: "c")))
        #expect(after != before)
        let changes = told.withLock { $0 }
        #expect(changes.count == 1 && changes.first?.0 == "c" && changes.first?.1 == before
                && changes.first?.2 == after)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
