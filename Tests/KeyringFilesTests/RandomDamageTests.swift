// SPDX-License-Identifier: Apache-2.0
// Seeded random damage to every format's structures: each parse returns or throws a KeyringFileError, never crashes.

import Foundation
@testable import KeyringFiles
import SecretCrypto
import SecretServiceTestSupport
import Testing

/// Seeded damage (xorshift64*), shared by a test's rounds so a failure names a reproducible round.
private final class DamageSource: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed | 1 }

    func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 2_685_821_657_736_338_717
    }

    /// Overwrites bytes, writes big or small words, cuts or inserts, at random places from `start` on.
    func damage(_ bytes: inout [UInt8], from start: Int = 0) {
        var random = self
        guard bytes.count > start else { return }
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let at = Int.random(in: start..<bytes.count, using: &random)
            guard at < bytes.count else { continue }
            switch Int.random(in: 0..<5, using: &random) {
            case 0: bytes[at] = UInt8.random(in: 0...255, using: &random)
            case 1: bytes.replaceSubrange(at..<min(at + 4, bytes.count), with: [0xFF, 0xFF, 0xFF, 0xFF])
            case 2: bytes.replaceSubrange(at..<min(at + 4, bytes.count), with: [0, 0, 0, UInt8.random(in: 0...64, using: &random)])
            case 3: bytes.removeSubrange(at..<min(at + Int.random(in: 1...16, using: &random), bytes.count))
            default: bytes.insert(contentsOf: [UInt8](repeating: UInt8.random(in: 0...255, using: &random), count: 3), at: at)
            }
        }
    }

    /// A damaged copy.
    func damaged(_ bytes: [UInt8], from start: Int = 0) -> [UInt8] {
        var copy = bytes
        damage(&copy, from: start)
        return copy
    }
}

/// Runs the rounds off the cooperative pool: `input` makes each round's bytes from a source seeded with the round,
/// `parse` must return or throw a ``KeyringFileError``.
private func checkRounds(seed: UInt64, input: @escaping @Sendable (DamageSource) throws -> [UInt8],
                         parse: @escaping @Sendable ([UInt8]) throws -> ImportedKeyring,
                         sourceLocation: SourceLocation = #_sourceLocation) async {
    let failures = await unexpectedOutcomes(RandomDamageTests.rounds) { round in
        let error = thrownError { try parse(try input(DamageSource(seed: seed << 32 | UInt64(round)))) }
        return error == nil || error is KeyringFileError ? nil : "round \(round): \(String(describing: error))"
    }
    #expect(failures.isEmpty, "\(failures.prefix(5))", sourceLocation: sourceLocation)
}

@Suite("random damage")
struct RandomDamageTests {
    /// Rounds per format: 500 in CI; `COFFER_PARSER_DAMAGE_ROUNDS` raises it for a longer run.
    static let rounds = ProcessInfo.processInfo.environment["COFFER_PARSER_DAMAGE_ROUNDS"].flatMap(Int.init) ?? 500
    static let cheap = ParseLimits(maximumItems: 1000, maximumKDFIterations: 10)

    @Test("binary keyrings whose decrypted block is damaged but still passes the MD5 check")
    func binaryPlaintext() async {
        await checkRounds(seed: 1, input: { source in
            var writer = BinaryKeyringWriter()
            writer.iterations = 1
            writer.items = [
                .init(type: 1, label: "a", secret: [1, 2, 3], attributes: [("k", .string("v")), ("n", .number(5))],
                      accessList: [(1, "x", "/y")]),
                .init(label: "b", secret: nil, attributes: [("k2", .string(nil))]),
            ]
            writer.damage = { source.damage(&$0) }
            return try writer.write(password: "p")
        }, parse: { try KeyringFile.parse($0, password: secretBytes("p"), limits: Self.cheap) })
    }

    @Test("libsecret items whose decrypted body is damaged but still passes the MAC")
    func libsecretItems() async throws {
        await checkRounds(seed: 5, input: { source in
            var writer = LibsecretFileWriter()
            writer.items = [
                .init(label: "a", attributes: ["k": "v", "xdg:content-type": "text/plain"], secret: [1, 2]),
                .init(label: "b", attributes: [:], secret: []),
            ]
            writer.damage = { source.damage(&$0) }
            return try writer.write(password: "p")
        }, parse: { try KeyringFile.parse($0, password: secretBytes("p"), limits: Self.cheap) })
    }

    @Test("libsecret file bodies with damaged GVariant framing")
    func libsecretBody() async throws {
        let file = try await WrittenKeyrings.libsecret.value
        await checkRounds(seed: 2, input: { $0.damaged(file, from: 18) },
                    parse: { try LibsecretFileFormat.parse($0, password: secretBytes("x"), limits: Self.cheap) })
    }

    @Test("textual keyrings with damaged lines")
    func textual() async throws {
        let file = try await WrittenKeyrings.textual.value
        await checkRounds(seed: 3, input: { $0.damaged(file) },
                    parse: { try GnomeKeyringTextualFormat.parse($0, limits: Self.cheap) })
    }

    @Test("archive payloads with damaged lengths (past the GCM check)")
    func archivePayload() async throws {
        let keyring = ImportedKeyring(format: .cofferArchive, label: "L", items: KeyringSamples.items.map {
            ImportedItem(label: $0.label, attributes: $0.attributes, secret: try! SecretBytes(copying: $0.secret))
        })
        let payload = try ArchivePayload.encode(keyring).copyBytes()
        await checkRounds(seed: 4, input: { $0.damaged(payload) },
                    parse: { try ArchivePayload.decode(try SecretBytes(copying: $0), limits: Self.cheap) })
    }
}
