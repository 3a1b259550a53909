// SPDX-License-Identifier: Apache-2.0
// Seeded random damage to every format's structures: each parse returns or throws a KeyringFileError, never crashes.

import Foundation
@testable import KeyringFiles
import SecretCrypto
import Testing

/// A small deterministic generator (SplitMix64), so a failure names a reproducible round.
private struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Overwrites bytes, writes big or small words, cuts or inserts, at random places.
private func damage(_ bytes: inout [UInt8], from start: Int = 0, using random: inout SeededGenerator) {
    guard bytes.count > start else { return }
    for _ in 0..<Int.random(in: 1...4, using: &random) {
        let at = Int.random(in: start..<max(start + 1, bytes.count), using: &random)
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

private func expectTyped(_ error: (any Error)?, _ round: Int, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(error == nil || error is KeyringFileError, "round \(round): \(String(describing: error))",
            sourceLocation: sourceLocation)
}

@Suite("random damage")
struct RandomDamageTests {
    /// Rounds per format: 1500 in CI; `COFFER_PARSER_DAMAGE_ROUNDS` raises it for a longer run.
    static let rounds = ProcessInfo.processInfo.environment["COFFER_PARSER_DAMAGE_ROUNDS"].flatMap(Int.init) ?? 1500
    static let cheap = ParseLimits(maximumItems: 1000, maximumKDFIterations: 10)

    @Test("binary keyrings whose decrypted block is damaged but still passes the MD5 check")
    func binaryPlaintext() throws {
        var random = SeededGenerator(state: 1)
        for round in 0..<Self.rounds {
            var writer = BinaryKeyringWriter()
            writer.iterations = 1
            writer.items = [
                .init(type: 1, label: "a", secret: [1, 2, 3], attributes: [("k", .string("v")), ("n", .number(5))],
                      accessList: [(1, "x", "/y")]),
                .init(label: "b", secret: nil, attributes: [("k2", .string(nil))]),
            ]
            var generator = random
            writer.damage = { damage(&$0, using: &generator) }
            let file = try writer.write(password: "p")
            random = generator
            expectTyped(thrownError { try KeyringFile.parse(file, password: secretBytes("p"), limits: Self.cheap) }, round)
        }
    }

    @Test("libsecret items whose decrypted body is damaged but still passes the MAC")
    func libsecretItems() throws {
        var random = SeededGenerator(state: 5)
        for round in 0..<Self.rounds {
            var writer = LibsecretFileWriter()
            writer.items = [
                .init(label: "a", attributes: ["k": "v", "xdg:content-type": "text/plain"], secret: [1, 2]),
                .init(label: "b", attributes: [:], secret: []),
            ]
            var generator = random
            writer.damage = { damage(&$0, using: &generator) }
            let file = try writer.write(password: "p")
            random = generator
            expectTyped(thrownError { try KeyringFile.parse(file, password: secretBytes("p"), limits: Self.cheap) }, round)
        }
    }

    @Test("libsecret file bodies with damaged GVariant framing")
    func libsecretBody() async throws {
        let file = try await WrittenKeyrings.libsecret.value
        var random = SeededGenerator(state: 2)
        for round in 0..<Self.rounds {
            var damaged = file
            damage(&damaged, from: 18, using: &random)
            expectTyped(thrownError {
                try LibsecretFileFormat.parse(damaged, password: secretBytes("x"), limits: Self.cheap)
            }, round)
        }
    }

    @Test("textual keyrings with damaged lines")
    func textual() async throws {
        let file = try await WrittenKeyrings.textual.value
        var random = SeededGenerator(state: 3)
        for round in 0..<Self.rounds {
            var damaged = file
            damage(&damaged, using: &random)
            expectTyped(thrownError { try GnomeKeyringTextualFormat.parse(damaged, limits: Self.cheap) }, round)
        }
    }

    @Test("archive payloads with damaged lengths (past the GCM check)")
    func archivePayload() throws {
        let keyring = ImportedKeyring(format: .cofferArchive, label: "L", items: KeyringSamples.items.map {
            ImportedItem(label: $0.label, attributes: $0.attributes, secret: SecretBytes(copying: $0.secret))
        })
        let payload = ArchivePayload.encode(keyring).copyBytes()
        var random = SeededGenerator(state: 4)
        for round in 0..<Self.rounds {
            var damaged = payload
            damage(&damaged, using: &random)
            expectTyped(thrownError { try ArchivePayload.decode(SecretBytes(copying: damaged), limits: Self.cheap) }, round)
        }
    }
}
