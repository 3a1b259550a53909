// SPDX-License-Identifier: Apache-2.0
// Reading a whole collection directory: every journal verified, damage reported per device, the password tried.

@testable import CollectionSync
import SecretCrypto
import Testing

@Suite("Sync: folder verification")
struct FolderVerificationTests {
    @Test("every journal is verified on its own: a damaged one is reported and kept out of the merge")
    func perDevice() throws {
        let scratch = try ScratchFolder()
        let keys = try Fixture.keys()
        let folder = SyncFolder(root: scratch.path, collection: keys.collection)
        let good = DeviceID.random(), bad = DeviceID.random(), torn = DeviceID.random()
        let goodWriter = try JournalWriter.open(folder: folder, device: good, keys: keys).writer
        try goodWriter.append(.deviceName("desk"))
        try goodWriter.append(.deviceName("desktop"))
        let kept = SyncItemID.random()
        try goodWriter.append(.put(kept, Fixture.content("kept")))
        _ = try Fixture.journal(in: folder, device: bad, keys: keys, count: 2)
        var badBytes = try Fixture.read(folder.journalPath(for: bad))
        badBytes[badBytes.count - 1] ^= 1
        try Fixture.write(badBytes, to: folder.journalPath(for: bad))
        _ = try Fixture.journal(in: folder, device: torn, keys: keys, count: 1)
        try Fixture.appendRaw([0, 0, 0, 99, 1], to: folder.journalPath(for: torn))

        #expect(try SyncFolder.collections(in: scratch.path) == [keys.collection])
        let verification = try folder.verify(keys: keys)
        let byDevice = Dictionary(uniqueKeysWithValues: verification.devices.map { ($0.device, $0) })
        #expect(byDevice[good]?.name == "desktop")
        #expect(byDevice[good]?.records == 3)
        #expect(byDevice[good]?.damage == nil)
        #expect(byDevice[bad]?.damage == .tampered(sequence: 2))
        #expect(byDevice[bad]?.records == 0)
        #expect(byDevice[torn]?.waitingForMore == true && byDevice[torn]?.records == 1)
        #expect(Set(verification.merged.items.keys).contains(kept))
        #expect(verification.merged.items.count == 2)
        #expect(try folder.verify(keys: keys, except: good).devices.count == 2)
    }

    @Test("the newest wrap the password opens gives the master key; none opening is an error naming how many")
    func unlock() throws {
        let scratch = try ScratchFolder()
        let master = try SecureRandom.secretBytes(count: 32)
        let keys = try SyncKeys(masterKey: master, collection: .random())
        let folder = SyncFolder(root: scratch.path, collection: keys.collection)
        #expect(throws: NoWrapOpens(tried: 0)) { _ = try folder.unlock(password: Fixture.secret("pw")) }
        for (password, milliseconds) in [("old", 1), ("new", 2)] as [(String, UInt64)] {
            try folder.store(try PasswordWrap.make(
                masterKey: master, password: Fixture.secret(password), keys: keys, device: .random(),
                clock: HybridTimestamp(milliseconds: milliseconds, counter: 0), parameters: PasswordWrapTests.cheap))
        }
        #expect(try folder.unlock(password: Fixture.secret("old")).constantTimeEquals(master))
        #expect(try folder.unlock(password: Fixture.secret("new")).constantTimeEquals(master))
        let error = #expect(throws: NoWrapOpens.self) { _ = try folder.unlock(password: Fixture.secret("nope")) }
        #expect(error?.tried == 2)
    }
}
