// SPDX-License-Identifier: Apache-2.0
// "Lock everything" leaves the in-memory session collection unlocked, as gnome-keyring does, so a headless session
// can go on using it; naming it locks it on purpose.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("coffer lock-keychain -a and lock spare the session collection")
struct LockAllTests {
    @Test func lockAllLeavesSessionUsableHeadless() async throws {
        try await withHeadlessCofferd { _, _, coffer in
            let store = try await coffer.run(["store", "--label=temp", "--collection=session", "kind", "temp"],
                                             input: "in memory")
            #expect(store.status == 0, "\(store.stderr)")

            for verb in [["lock-keychain", "-a"], ["lock"]] {
                let (lock, json) = try await coffer.json(verb)
                #expect(lock.status == 0, "\(verb): \(lock.stderr)")
                let locked = (json as? [String: Any])?["locked"] as? [String] ?? []
                #expect(locked.contains("/org/freedesktop/secrets/collection/login"), "\(verb)")
                #expect(!locked.contains { $0.hasSuffix("/session") }, "\(verb): \(locked)")
                let collections = try await keychains(coffer)
                #expect(collections["login"]?["locked"] as? Bool == true, "\(verb)")
                #expect(collections["session"]?["locked"] as? Bool == false, "\(verb)")
                // Nobody can answer a prompt here, yet the session collection's item is still readable.
                let lookup = try await coffer.run(["lookup", "kind", "temp"])
                #expect(lookup.status == 0 && lookup.text == "in memory", "\(verb): \(lookup.stderr)")
            }

            // Named explicitly, the session collection is locked (cofferd honours it; see `lock-keychain --help`).
            #expect(try await coffer.run(["lock-keychain", "session"]).status == 0)
            #expect(try await keychains(coffer)["session"]?["locked"] as? Bool == true)
        }
    }

    @Test func helpSaysWhatLockAllSpares() async throws {
        try await TestBus.withPrivateBus { bus in
            let coffer = CofferCLI(bus: bus)
            let lockKeychainHelp = try await help(["lock-keychain"], coffer)
            #expect(lockKeychainHelp.contains("except the in-memory 'session' collection"))
            let lockHelp = try await help(["lock"], coffer)
            #expect(lockHelp.contains("the in-memory 'session' collection is left unlocked"))
        }
    }
}
