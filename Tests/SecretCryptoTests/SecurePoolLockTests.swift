// SPDX-License-Identifier: Apache-2.0
// The secure-memory pool is locked page by page as it is used: untouched pages take no memory, used ones are locked.

import Foundation
import Testing
@testable import SecretCrypto

/// Each test looks at a fresh pool in a process of its own: the suites beside it use the pool of this one.
@Suite("Secure memory pool locking")
struct SecurePoolLockTests {
    /// The kernel's view of the mapping that holds an address (`/proc/self/smaps`): sizes in KiB and its flags.
    struct Mapping {
        var sizeKiB = -1
        var residentKiB = -1
        var lockedKiB = -1
        var flags: [Substring] = []

        init?(containing address: UInt) {
            // Read to the end: String(contentsOfFile:) stops after the first page of a /proc file.
            guard let file = FileHandle(forReadingAtPath: "/proc/self/smaps") else { return nil }
            let smaps = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
            file.closeFile()
            var inside = false
            var found = false
            for line in smaps.split(separator: "\n") {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                if let range = fields.first, range.contains("-"), !range.hasSuffix(":") {
                    let bounds = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                    inside = bounds.count == 2 && bounds[0] <= address && address < bounds[1]
                    found = found || inside
                    continue
                }
                guard inside, fields.count >= 2 else { continue }
                switch fields[0] {
                case "Size:": sizeKiB = Int(fields[1]) ?? -1
                case "Rss:": residentKiB = Int(fields[1]) ?? -1
                case "Locked:": lockedKiB = Int(fields[1]) ?? -1
                case "VmFlags:": flags = Array(fields.dropFirst())
                default: break
                }
            }
            guard found else { return nil }
        }
    }

    static func address(of buffer: SecretBytes) -> UInt {
        buffer.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
    }

    @Test("a fresh pool is locked but only its used pages are resident")
    func freshPoolMostlyAbsent() async {
        await #expect(processExitsWith: .success) {
            try SecretCrypto.initialize()
            guard SecretCrypto.isSecureMemoryLocked else { exit(40) }
            let key = try SecretBytes(count: 32)
            guard key.isInSecureMemory, let pool = Mapping(containing: Self.address(of: key)) else { exit(41) }
            // The whole pool is one locked mapping of the configured size.
            guard pool.flags.contains("lo"), pool.sizeKiB == SecretCrypto.defaultSecureMemoryBytes / 1024 else {
                exit(42)
            }
            // libgcrypt's own mlock made all of it resident; now only the few pages touched so far are.
            guard pool.residentKiB >= 4, pool.residentKiB <= pool.sizeKiB / 8 else { exit(43) }
            exit(0)
        }
    }

    @Test("pages the pool hands out are locked as they are first used")
    func usedPagesLocked() async {
        await #expect(processExitsWith: .success) {
            try SecretCrypto.initialize()
            let poolKiB = SecretCrypto.defaultSecureMemoryBytes / 1024
            // Half the pool in buffers small enough to come from it, each written as a secret would be.
            var held: [SecretBytes] = []
            for _ in 0..<(poolKiB / 2) {
                let buffer = try SecretBytes(count: 1000)
                buffer.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0xa5) }
                guard buffer.isInSecureMemory else { exit(50) }
                held.append(buffer)
            }
            guard let pool = Mapping(containing: Self.address(of: held[held.count - 1])),
                  pool.sizeKiB == poolKiB else { exit(51) }
            // Resident now, and every resident page of the pool is locked.
            guard pool.residentKiB >= poolKiB / 2 - 16, pool.lockedKiB == pool.residentKiB else { exit(52) }
            exit(0)
        }
    }
}
