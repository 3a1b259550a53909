// SPDX-License-Identifier: Apache-2.0
// What dump-keychain and search show of locked collections and items: dump-keychain skips them (and says so on
// stderr), search leaves their hidden dates blank, as secret-tool does.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("coffer dump-keychain and search with locked collections")
struct LockedOutputTests {
    @Test func lockedCollectionsAreSkippedAndHiddenDatesBlank() async throws {
        try await withHeadlessCofferd { bus, _, coffer in
            #expect(try await coffer.run(["create-keychain", "work"], input: "work pw\n").status == 0)
            #expect(try await coffer.run(["store", "--label=W", "--collection=work", "place", "work"], input: "w").status == 0)
            #expect(try await coffer.run(["store", "--label=L", "place", "login"], input: "l").status == 0)
            let workPath = try #require(try await keychains(coffer).values.first { $0["label"] as? String == "work" }?["path"]
                as? String)
            #expect(try await coffer.run(["lock-keychain", "work"]).status == 0)

            let skipNote = "coffer: skipped locked keychain 'work' (\(workPath)); -u unlocks it first\n"
            for arguments in [["dump-keychain"], ["dump-keychain", "-d", "--yes-print-secrets"], ["dump-keychain", "work"]] {
                let dump = try await coffer.run(arguments)
                #expect(dump.status == 0, "\(arguments): \(dump.stderr)")
                #expect(!dump.text.contains(workPath), "\(arguments): \(dump.text)")
                #expect(dump.stderr == skipNote, "\(arguments)")
            }
            let all = try await coffer.run(["dump-keychain"])
            #expect(all.text.contains("\"place\"=\"login\""))
            let (_, dumped) = try await coffer.json(["dump-keychain"])
            #expect((dumped as? [[String: Any]])?.contains { ($0["path"] as? String)?.hasPrefix(workPath) == true } == false)

            // search: a locked item's dates are blank, exactly as secret-tool prints them; an open item's match too.
            let secretTool = ClientEnvironment(bus: bus)
            for place in ["work", "login"] {
                let ours = try await coffer.run(["search", "place", place])
                let theirs = try await secretTool.secretTool(["search", "place", place])
                #expect(ours.status == 0, "\(ours.stderr)")
                for field in ["created = ", "modified = "] {
                    let line = { (text: String) in text.split(separator: "\n").first { $0.hasPrefix(field) } }
                    #expect(line(ours.text) != nil && line(ours.text) == line(theirs.text), "\(place): \(ours.text)")
                }
                #expect(!ours.text.contains("1970"))
            }
            let locked = try await coffer.run(["search", "place", "work"])
            #expect(locked.text.contains("created = \nmodified = \n"), "\(locked.text)")
            let (_, json) = try await coffer.json(["search", "place", "work"])
            let item = try #require((json as? [[String: Any]])?.first)
            #expect(item["locked"] as? Bool == true && item["created"] == nil && item["modified"] == nil)
        }
    }
}
