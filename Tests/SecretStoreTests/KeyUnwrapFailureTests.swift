// SPDX-License-Identifier: Apache-2.0
// A master key that cannot be unwrapped for want of secure memory is a failure, never a wrong password.

import Foundation
import SecretCrypto
import SecretServiceProtocol
@testable import SecretStore
import Testing

@Suite("Key unwrapping without secure memory")
struct KeyUnwrapFailureTests {
    @Test("with the secure pool used up, unwrapping with the right key is `failed`, not a wrong password")
    func exhaustedPoolIsNotWrongPassword() async {
        // In a process of its own: filling the pool here would starve the suites running beside it.
        await #expect(processExitsWith: .success) {
            let parameters = Argon2idParameters(iterations: 1, memoryKiB: 64, parallelism: 1)
            let salt = [UInt8](repeating: 7, count: 16)
            let kek = try KeyWrapping.keyEncryptionKey(password: SecretBytes(copying: Array("right".utf8)), salt: salt,
                                                       parameters: parameters)
            let wrap = try KeySlotWrapping.seal(master: CollectionKeys.newMaster(), kek: kek, id: 0, kind: .password,
                                                parameters: parameters, salt: salt, collectionID: "c")
            guard (try? KeySlotWrapping.open(wrap, kek: kek, collectionID: "c")) != nil else { exit(1) }
            var held: [SecretBytes] = []
            while let buffer = try? SecretBytes(count: 200) { held.append(buffer) }
            do {
                _ = try KeySlotWrapping.open(wrap, kek: kek, collectionID: "c")
                exit(2)  // `nil` would say the password was wrong; a key cannot have been unwrapped.
            } catch {
                guard case SecretServiceError.failed? = error as? SecretServiceError else { exit(4) }
                exit(held.isEmpty ? 3 : 0)
            }
        }
    }
}
