// SPDX-License-Identifier: Apache-2.0
// Tests for once-per-process libgcrypt initialisation.

import Testing
@testable import SecretCrypto

@Suite("SecretCrypto.initialize")
struct InitializationTests {
    @Test("initialize is idempotent and later sizes are ignored")
    func idempotent() throws {
        try SecretCrypto.initialize()
        try SecretCrypto.initialize(secureMemoryBytes: 1 << 16)
        try SecretCrypto.initialize(secureMemoryBytes: 0)  // Already initialised: the first call's outcome wins.
    }

    @Test("concurrent first use is safe")
    func concurrent() async throws {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    try SecretCrypto.initialize()
                    return try SecretBytes(count: 32).count
                }
            }
            for try await count in group {
                #expect(count == 32)
            }
        }
    }

    @Test("the run-time libgcrypt is 1.10 or newer")
    func libraryVersion() throws {
        try SecretCrypto.initialize()
        let parts = SecretCrypto.libraryVersion.split(separator: ".").compactMap { Int($0) }
        #expect(parts.count >= 2)
        #expect(parts[0] > 1 || (parts[0] == 1 && parts[1] >= 10))
    }

    @Test("small secrets land in the secure-memory pool")
    func securePool() throws {
        try SecretCrypto.initialize()
        #expect(try SecretBytes(count: 64).isInSecureMemory)
    }
}
