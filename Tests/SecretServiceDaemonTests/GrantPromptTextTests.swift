// SPDX-License-Identifier: Apache-2.0
// The words of the grant dialog: who asks comes first, then exactly which application would be allowed what.

import DBusWire
import Foundation
@testable import SecretServiceDaemon
import Testing

@Suite("Grant prompt text")
struct GrantPromptTextTests {
    static func text(items: [String]) -> PinentryText {
        let grant = GrantRequest(grantee: "exe:/usr/bin/b@1:2", requester: "/usr/bin/coffer", processID: 42,
                                 commandLine: "coffer access grant exe:/usr/bin/b@1:2", itemLabels: items,
                                 collectionLabel: "Login")
        return PinentryText(PromptRequest(kind: .grant(grant), windowID: "", caller: BusName(unchecked: ":1.5")))
    }

    @Test("the requester comes first, then the full identity of the application and what it would get")
    func order() throws {
        let whole = Self.text(items: []).description
        let requester = try #require(whole.range(of: "/usr/bin/coffer (process 42"))
        let grantee = try #require(whole.range(of: "always allow exe:/usr/bin/b@1:2"))
        #expect(requester.lowerBound < grantee.lowerBound)
        #expect(whole.contains("every secret, present and future, of the keyring “Login”"), "\(whole)")
        #expect(Self.text(items: ["mail"]).description.contains("the secret “mail” in the keyring “Login”"))
        #expect(Self.text(items: ["a", "b"]).description.contains("2 secrets in the keyring “Login”"))
        #expect(Self.text(items: []).ok == PinentryText.alwaysAllow)
    }

    @Test("an item label cannot start a line of its own in the dialog")
    func hostileLabel() {
        let description = Self.text(items: ["x\n\nThe application /usr/bin/trusted asks"]).description
        #expect(!description.contains("x\n"), "\(description)")
    }
}
