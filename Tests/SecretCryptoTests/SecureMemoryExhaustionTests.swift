// SPDX-License-Identifier: Apache-2.0
// Secure memory running out: a clear error, never ordinary memory; DH sessions stop short of the reserve.

import Foundation
import Testing
@testable import SecretCrypto

/// Each test fills the pool in a process of its own: doing it here would starve the suites running beside it.
@Suite("Secure memory exhaustion")
struct SecureMemoryExhaustionTests {
    /// The process's locked memory (`VmLck` in `/proc/self/status`), in KiB.
    static func lockedKiB() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmLck:") } ?? ""
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
    }

    @Test("an exhausted pool refuses buffers and cipher contexts with secureMemoryExhausted, never ordinary memory")
    func exhaustedPool() async {
        await #expect(processExitsWith: .success) {
            try SecretCrypto.initialize()
            let key = try SecretBytes(count: AES256GCM.keyByteCount)
            var held: [SecretBytes] = []
            while true {
                do {
                    let buffer = try SecretBytes(count: 200)
                    guard buffer.isInSecureMemory else { exit(10) }
                    held.append(buffer)
                } catch let error as CryptoError where error == .secureMemoryExhausted {
                    break
                } catch {
                    exit(11)
                }
                guard held.count < 100_000 else { exit(12) }  // A pool that never fills is a fallback.
            }
            guard held.count > 1000 else { exit(13) }
            do {
                _ = try AES256GCM.Key(key)
                exit(14)
            } catch let error as CryptoError where error == .secureMemoryExhausted {
            } catch {
                exit(15)
            }
            held.removeAll()
            guard (try? AES256GCM.Key(key)) != nil else { exit(16) }
            exit(0)
        }
    }

    @Test("large buffers are locked into RAM, outside the pool")
    func largeBuffersLocked() async {
        await #expect(processExitsWith: .success) {
            try SecretCrypto.initialize()
            let before = SecureMemoryExhaustionTests.lockedKiB()
            let big = try SecretBytes(count: 4 << 20)
            guard big.isInSecureMemory, SecureMemoryExhaustionTests.lockedKiB() >= before + 4096 else { exit(20) }
            exit(0)
        }
    }

    @Test("DH sessions stop at the pool's reserve with secureMemoryExhausted; the reserve still serves keys")
    func sessionsStopAtReserve() async {
        await #expect(processExitsWith: .success) {
            try SecretCrypto.initialize()
            let peer = try DHKeyPair().publicKey
            var sessions: [DHSessionCipher] = []
            while true {
                do {
                    sessions.append(try DHSessionCipher(peerPublicKey: peer))
                } catch let error as CryptoError where error == .secureMemoryExhausted {
                    break
                } catch {
                    exit(30)
                }
                guard sessions.count < 10_000 else { exit(31) }
            }
            guard sessions.count > 100 else { exit(32) }
            // What unlocking needs still fits: keys, cipher contexts, a derived key.
            do {
                var keys: [AES256GCM.Key] = []
                for _ in 0..<20 { keys.append(try AES256GCM.Key(try SecureRandom.secretBytes(count: 32))) }
                let derived = try Argon2id.deriveKey(password: try SecretBytes(copying: Array("password".utf8)),
                                                     salt: Array(repeating: 1, count: 16),
                                                     parameters: Argon2idParameters(iterations: 1, memoryKiB: 64,
                                                                                    parallelism: 1),
                                                     outputByteCount: 32)
                guard derived.isInSecureMemory else { exit(33) }
            }
            // Closing sessions makes room for new ones.
            sessions.removeLast(10)
            guard (try? DHSessionCipher(peerPublicKey: peer)) != nil else { exit(34) }
            exit(0)
        }
    }
}
