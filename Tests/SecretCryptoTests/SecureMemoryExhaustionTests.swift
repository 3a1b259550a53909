// SPDX-License-Identifier: Apache-2.0
// Secure memory running out: a clear error, never ordinary memory.

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
}
