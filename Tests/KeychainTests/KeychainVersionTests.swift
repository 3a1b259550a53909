// SPDX-License-Identifier: Apache-2.0
// Placeholder test file so the target builds until the Keychain tests land.

import Keychain
import Testing

@Test("the Keychain library reports its version")
func keychainVersion() {
    #expect(KeychainLibrary.version == "0.1.0")
}
