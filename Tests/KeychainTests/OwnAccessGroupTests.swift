// SPDX-License-Identifier: Apache-2.0
// A program's own access group follows how cofferd tells applications apart: a Flatpak's app id, else its name.

import CofferKeychainConfiguration
import Testing

@Suite("A program's own access group")
struct OwnAccessGroupTests {
    @Test("a Flatpak's app id, else the executable's name")
    func ownGroup() {
        #expect(KeychainConfiguration.ownGroup(environment: ["FLATPAK_ID": "org.example.Mail"],
                                               executable: "/app/bin/mail") == "org.example.Mail")
        #expect(KeychainConfiguration.ownGroup(environment: [:], executable: "/usr/bin/mail-client") == "mail-client")
        #expect(KeychainConfiguration.ownGroup(environment: ["FLATPAK_ID": ""], executable: "/usr/bin/x") == "x")
    }
}
