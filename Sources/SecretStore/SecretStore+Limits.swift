// SPDX-License-Identifier: Apache-2.0
// The store-wide limits: how many collections, and how many secret bytes all of them hold together.

import SecretServiceProtocol

extension SecretStore {
    /// Secret bytes held in every collection, as stored (sealed, so a little more than the plaintext). Summed on
    /// demand rather than kept as a running count, so no write path can let a counter drift from the items.
    func storedSecretBytes() -> Int {
        collections.values.reduce(0) { $0 + $1.sealedSecretBytes }
    }

    /// Checks that one more collection fits; files that failed to open count too, since their names stay taken.
    /// - Throws: ``SecretServiceError/limitsExceeded(_:)``.
    func checkRoomForCollection() throws(SecretServiceError) {
        try limits.check(newCollectionAmong: collections.count + unavailable.count)
    }
}
