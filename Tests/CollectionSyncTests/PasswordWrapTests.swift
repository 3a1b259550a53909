// SPDX-License-Identifier: Apache-2.0
// The password wraps in the folder: joining with the password, and what an altered wrap does.

@testable import CollectionSync
import SecretCrypto
import Testing

@Suite("Sync: password wraps")
struct PasswordWrapTests {
    /// Cheap parameters: the tests check the format, not the cost.
    static let cheap = Argon2idParameters(iterations: 1, memoryKiB: 64, parallelism: 1)

    let scratch: ScratchFolder
    let master: SecretBytes
    let keys: SyncKeys
    let folder: SyncFolder

    init() throws {
        scratch = try ScratchFolder()
        master = try SecureRandom.secretBytes(count: 32)
        keys = try SyncKeys(masterKey: master, collection: .random())
        folder = SyncFolder(root: scratch.path, collection: keys.collection)
    }

    func wrap(_ password: String, device: DeviceID = .random(), at milliseconds: UInt64 = 1) throws -> PasswordWrap {
        try PasswordWrap.make(masterKey: master, password: Fixture.secret(password), keys: keys, device: device,
                              clock: HybridTimestamp(milliseconds: milliseconds, counter: 0), parameters: Self.cheap)
    }

    @Test("the right password gives the master key back through the folder; a wrong one is refused")
    func roundTrip() throws {
        let made = try wrap("correct horse")
        try folder.store(made)
        let found = try #require(try folder.wraps().first)
        #expect(found == made)
        #expect(try found.unwrap(password: Fixture.secret("correct horse")).constantTimeEquals(master))
        #expect(throws: CryptoError.authenticationFailed) { _ = try found.unwrap(password: Fixture.secret("wrong")) }
        #expect(found.isAuthentic(keys: keys))
        #expect(!found.isAuthentic(keys: try Fixture.keys(collection: keys.collection)))
    }

    @Test("an empty password works, as for automatic login locally")
    func emptyPassword() throws {
        #expect(try wrap("").unwrap(password: SecretBytes(count: 0)).constantTimeEquals(master))
    }

    @Test("wraps are tried newest first; a password change on one device supersedes the older wrap")
    func newestFirst() throws {
        let laptop = DeviceID.random(), desktop = DeviceID.random()
        try folder.store(try wrap("old", device: laptop, at: 10))
        try folder.store(try wrap("new", device: desktop, at: 20))
        try Fixture.write([1, 2, 3], to: folder.directory + "/" + DeviceID.random().description + ".wrap")
        let wraps = try folder.wraps()
        #expect(wraps.map(\.device) == [desktop, laptop])
        #expect(try wraps[0].unwrap(password: Fixture.secret("new")).constantTimeEquals(master))
    }

    @Test("altering any byte of a wrap makes it fail to decode, to unwrap, or to authenticate")
    func tampering() throws {
        let bytes = try wrap("pw").encode()
        // Every byte but the parameters', whose change Argon2id would pay for: those are checked separately.
        let parameterBytes = (8 + 2 + 16 + 16 + 8)..<(8 + 2 + 16 + 16 + 8 + 12)
        for position in 0..<bytes.count where !parameterBytes.contains(position) {
            var altered = bytes
            altered[position] ^= 0x01
            guard let decoded = try? PasswordWrap.decode(altered) else { continue }
            #expect(!decoded.isAuthentic(keys: keys), "byte \(position)")
            #expect(throws: (any Error).self, "byte \(position)") { _ = try decoded.unwrap(password: Fixture.secret("pw")) }
        }
        var cheaper = try PasswordWrap.decode(bytes)
        cheaper.parameters.memoryKiB = 128
        #expect(!cheaper.isAuthentic(keys: keys))
        #expect(throws: CryptoError.authenticationFailed) { _ = try cheaper.unwrap(password: Fixture.secret("pw")) }
    }

    @Test("parameters beyond the bounds are refused before any key is derived")
    func bounds() throws {
        var costly = try PasswordWrap.decode(try wrap("pw").encode())
        costly.parameters = Argon2idParameters(iterations: 1_000, memoryKiB: 4 * 1024 * 1024, parallelism: 1)
        #expect(throws: SyncFormatError.self) { _ = try costly.unwrap(password: Fixture.secret("pw")) }
        #expect(throws: SyncFormatError.self) {
            _ = try PasswordWrap.make(masterKey: master, password: Fixture.secret("pw"), keys: keys, device: .random(),
                                      clock: .zero, parameters: costly.parameters)
        }
    }
}
