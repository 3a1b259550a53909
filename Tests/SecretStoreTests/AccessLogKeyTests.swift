// SPDX-License-Identifier: Apache-2.0
// The key that seals a collection's access-log entries: there exactly while the collection is unlocked, and
// handed on when a password change replaces the master key.

import Foundation
import SecretCrypto
import SecretServiceProtocol
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

    @Test("the change is told, and waited for, before the file holding the new master key is in place")
    func toldBeforeTheFileChanges() async throws {
        let dir = try ScratchDirectory()
        let store = try await dir.store()
        _ = try await store.createCollection(label: "C", alias: "", password: password("old"), preferredID: "c")
        let before = try #require(Self.key(await store.accessLogKey(of: "c")))
        let oldFile = try Data(contentsOf: URL(fileURLWithPath: dir.file("c")))
        let seen = Mutex<(file: Data?, key: [UInt8]?)>((nil, nil))
        await store.onAccessLogKeyChange { _, _, _ in
            // The store takes calls while the log writes: what it holds and what is on disk are still the old.
            let key = Self.key(await store.accessLogKey(of: "c"))
            let file = try Data(contentsOf: URL(fileURLWithPath: dir.file("c")))
            seen.withLock { $0 = (file, key) }
        }
        #expect(try await store.passwordChange(of: "c", from: password("old"), to: password("new")) == .rekeyed)
        let (file, key) = seen.withLock { $0 }
        #expect(file == oldFile)
        #expect(key == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.file("c"))) != oldFile)
    }

    @Test("a change the log cannot record does not take place: the old password and key stay, also after a restart")
    func unrecordedChangeRefused() async throws {
        let dir = try ScratchDirectory()
        let first: [UInt8]
        do {
            let store = try await dir.store()
            _ = try await store.createCollection(label: "C", alias: "", password: password("old"), preferredID: "c")
            first = try #require(Self.key(await store.accessLogKey(of: "c")))
            await store.onAccessLogKeyChange { _, _, _ in throw Failure("the log cannot be written") }
            await #expect(throws: SecretServiceError.self) {
                try await store.passwordChange(of: "c", from: password("old"), to: password("new"))
            }
            #expect(Self.key(await store.accessLogKey(of: "c")) == first)
            try await store.setLocked("c", true)
        }
        let store = try await dir.store()
        #expect(try await !store.unlock("c", password: password("new")))
        #expect(try await store.unlock("c", password: password("old")))
        #expect(Self.key(await store.accessLogKey(of: "c")) == first)
    }

    @Test("a key slot's removal that replaces the master key tells the log first too")
    func slotRemovalTold() async throws {
        let dir = try ScratchDirectory()
        let store = try await dir.store()
        _ = try await store.createCollection(label: "C", alias: "", password: password("pw"), preferredID: "c")
        let before = try #require(Self.key(await store.accessLogKey(of: "c")))
        let slot = try #require(try await store.addKeySlot(to: "c", authorizedBy: password("pw"), kind: .password,
                                                           secret: password("second")))
        let oldFile = try Data(contentsOf: URL(fileURLWithPath: dir.file("c")))
        let told = Mutex<[(old: [UInt8], new: [UInt8], file: Data?)]>([])
        await store.onAccessLogKeyChange { _, old, new in
            let file = try Data(contentsOf: URL(fileURLWithPath: dir.file("c")))
            told.withLock { $0.append((old.copyBytes(), new.copyBytes(), file)) }
        }
        #expect(try await store.removeKeySlot(slot, from: "c", authorizedBy: password("pw")) == .rekeyed)
        let after = try #require(Self.key(await store.accessLogKey(of: "c")))
        let changes = told.withLock { $0 }
        #expect(changes.count == 1 && changes.first?.old == before && changes.first?.new == after
                && changes.first?.file == oldFile)
    }

    @Test("a re-key overtaken by another while the log writes uses nothing it planned: the other's keys stand")
    func overtakenWhileTheLogWrites() async throws {
        let dir = try ScratchDirectory()
        let latest: [UInt8]
        do {
            let store = try await dir.store()
            _ = try await store.createCollection(label: "C", alias: "", password: password("pw"), preferredID: "c")
            let told = Mutex(0)
            await store.onAccessLogKeyChange { _, _, _ in
                guard told.withLock({ $0 += 1; return $0 }) == 1 else { return }
                // While the log writes the first change, another re-keys the collection under it.
                let outcome = try await store.passwordChange(of: "c", from: password("pw"), to: password("other"))
                #expect(outcome == .rekeyed)
            }
            // The slot the change was authorized by is no longer the one in the file: refused, nothing written.
            #expect(try await store.passwordChange(of: "c", from: password("pw"), to: password("new")) == .refused)
            #expect(told.withLock { $0 } == 2)
            latest = try #require(Self.key(await store.accessLogKey(of: "c")))
            try await store.setLocked("c", true)
        }
        let store = try await dir.store()
        #expect(try await !store.unlock("c", password: password("new")))
        #expect(try await !store.unlock("c", password: password("pw")))
        #expect(try await store.unlock("c", password: password("other")))
        #expect(Self.key(await store.accessLogKey(of: "c")) == latest)
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
