// SPDX-License-Identifier: Apache-2.0
// security(1)'s password verbs through the built coffer, against cofferd and against gnome-keyring.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("coffer security(1) password verbs")
struct SecurityPasswordVerbTests {
    /// One provider per run; the steps share it because each works on its own item.
    @Test(arguments: Provider.allCases)
    func genericPasswords(provider: Provider) async throws {
        try await provider.with { bus, _ in
            let coffer = CofferCLI(bus: bus)
            // The secret arrives on stdin: no warning, exit 0.
            let add = try await coffer.run(["add-generic-password", "-a", "alice", "-s", "mail", "-j", "note"],
                                           input: "stdin secret")
            #expect(add.status == 0, "\(add.stderr)")
            #expect(!add.stderr.contains(argvWarning))

            let find = try await coffer.run(["find-generic-password", "-a", "alice", "-s", "mail", "-g"])
            #expect(find.status == 0, "\(find.stderr)")
            #expect(find.text.contains("class: \"genp\""))
            #expect(find.text.contains("\"acct\"<blob>=\"alice\""))
            #expect(find.text.contains("\"svce\"<blob>=\"mail\""))
            #expect(find.text.contains("\"icmt\"<blob>=\"note\""))
            #expect(find.text.contains("0x00000007 <blob>=\"mail\""))  // the label defaults to the service
            #expect(find.stderr.contains("password: \"stdin secret\""))
            #expect(!find.text.contains("stdin secret"))  // -g shows the password on stderr only

            let only = try await coffer.run(["find-generic-password", "-s", "mail", "-w"])
            #expect(only.status == 0 && only.text == "stdin secret\n")

            // Adding it again is a duplicate (security's 45); -U with -w on argv updates it and warns.
            let duplicate = try await coffer.run(["add-generic-password", "-a", "alice", "-s", "mail"], input: "x")
            #expect(duplicate.status == 45)
            #expect(duplicate.stderr.split(separator: "\n").count == 1)
            let update = try await coffer.run(["add-generic-password", "-a", "alice", "-s", "mail", "-w", "argv pw", "-U"])
            #expect(update.status == 0, "\(update.stderr)")
            #expect(update.stderr.contains(argvWarning))

            let (json, value) = try await coffer.json(["find-generic-password", "-s", "mail", "-w"])
            #expect(json.status == 0)
            let object = try #require(value as? [String: Any])
            #expect(object["password"] as? String == "argv pw")
            #expect(object["class"] as? String == "genp")
            let attributes = try #require(object["attributes"] as? [String: Any])
            #expect(attributes["account"] as? String == "alice")
            #expect(attributes["service"] as? String == "mail")

            // -X gives bytes in hex; security's "-w last" form reads the secret from stdin.
            let hex = try await coffer.run(["add-generic-password", "-a", "bob", "-s", "hex", "-X", "00ff41"])
            #expect(hex.status == 0, "\(hex.stderr)")
            let hexFind = try await coffer.run(["find-generic-password", "-s", "hex", "-g"])
            #expect(hexFind.stderr.contains("password: 0x00FF41"))
            let last = try await coffer.run(["add-generic-password", "-a", "carol", "-s", "last", "-w"], input: "typed")
            #expect(last.status == 0, "\(last.stderr)")
            #expect(!last.stderr.contains(argvWarning))
            #expect(try await coffer.run(["find-generic-password", "-s", "last", "-w"]).text == "typed\n")

            let delete = try await coffer.run(["delete-generic-password", "-a", "alice", "-s", "mail"])
            #expect(delete.status == 0, "\(delete.stderr)")
            #expect(delete.text.contains("password has been deleted."))
            let gone = try await coffer.run(["find-generic-password", "-s", "mail"])
            #expect(gone.status == 44)
            #expect(gone.stderr == "coffer: SecKeychainSearchCopyNext: The specified item could not be found in the keychain.\n")
            #expect(try await coffer.run(["delete-generic-password", "-s", "mail"]).status == 44)

            // Bad arguments: 64 and one line.
            let missing = try await coffer.run(["add-generic-password", "-s", "only-service"], input: "x")
            #expect(missing.status == 64)
            #expect(missing.stderr.split(separator: "\n").count == 1)
            #expect(try await coffer.run(["add-generic-password", "-a", "a", "-s", "s", "-c", "toolong"]).status == 64)
            #expect(try await coffer.run(["find-generic-password", "--no-such-flag"]).status == 64)
        }
    }

    @Test(arguments: Provider.allCases)
    func internetPasswords(provider: Provider) async throws {
        try await provider.with { bus, _ in
            let coffer = CofferCLI(bus: bus)
            let add = try await coffer.run([
                "add-internet-password", "-a", "dave", "-s", "example.org", "-r", "htps", "-P", "8443",
                "-p", "/login", "-d", "CORP", "-l", "Example",
            ], input: "web secret")
            #expect(add.status == 0, "\(add.stderr)")

            let find = try await coffer.run(["find-internet-password", "-s", "example.org", "-r", "https", "-g"])
            #expect(find.status == 0, "\(find.stderr)")
            #expect(find.text.contains("class: \"inet\""))
            #expect(find.text.contains("\"srvr\"<blob>=\"example.org\""))
            #expect(find.text.contains("\"ptcl\"<uint32>=\"htps\""))
            #expect(find.text.contains("\"port\"<uint32>=0x000020FB"))
            #expect(find.text.contains("\"path\"<blob>=\"/login\""))
            #expect(find.text.contains("\"sdmn\"<blob>=\"CORP\""))
            #expect(find.text.contains("0x00000007 <blob>=\"Example\""))
            #expect(find.stderr.contains("password: \"web secret\""))

            // Another port is another item; a search by port tells them apart.
            #expect(try await coffer.run(["find-internet-password", "-s", "example.org", "-P", "443"]).status == 44)
            let (_, value) = try await coffer.json(["find-internet-password", "-a", "dave", "-w"])
            let object = try #require(value as? [String: Any])
            #expect(object["password"] as? String == "web secret")
            #expect((object["attributes"] as? [String: Any])?["port"] as? String == "8443")

            #expect(try await coffer.run(["delete-internet-password", "-s", "example.org", "-a", "dave"]).status == 0)
            #expect(try await coffer.run(["find-internet-password", "-s", "example.org"]).status == 44)
            #expect(try await coffer.run(["add-internet-password", "-a", "x", "-s", "y", "-P", "70000"]).status == 64)
        }
    }
}
