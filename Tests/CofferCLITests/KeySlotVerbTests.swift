// SPDX-License-Identifier: Apache-2.0
// `coffer key-slots` against the real cofferd: a recovery key printed once, and a real systemd-creds round trip
// that unlocks login at start without a password.

import Foundation
import SecretServiceTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("coffer key-slots", .timeLimit(.minutes(2)))
struct KeySlotVerbTests {
    static let password = DaemonHarness.testLoginPassword + "\n"

    /// Runs `body` with a cofferd (cheap key derivation, login unlocked) on a private bus.
    static func withCofferd(_ body: (TestBus, DaemonHarness, CofferCLI) async throws -> Void) async throws {
        try await TestBus.withPrivateBus { bus in
            let daemon = try await DaemonHarness.start(on: bus, options: .init(arguments: DaemonHarness.cheapKeyDerivation))
            do {
                try await body(bus, daemon, CofferCLI(bus: bus))
            } catch {
                await daemon.kill()
                throw error
            }
            #expect(await daemon.stop() == .exited(0), "log:\n\(daemon.log())")
        }
    }

    static func isLocked(_ coffer: CofferCLI, _ id: String) async throws -> Bool? {
        let (_, listed) = try await coffer.json(["list-keychains"])
        return (listed as? [[String: Any]])?.first { $0["id"] as? String == id }?["locked"] as? Bool
    }

    @Test("a recovery key is printed once in groups, unlocks login, and stops working once removed")
    func recoveryKey() async throws {
        try await Self.withCofferd { _, _, coffer in
            let listed = try await coffer.run(["key-slots", "list", "login"])
            #expect(listed.status == 0 && listed.text == "0\tpassword\n", "\(listed.stderr)")
            #expect(try await coffer.run(["key-slots", "add", "login", "recovery"], input: "wrong\n").status == 51)

            let added = try await coffer.run(["key-slots", "add", "login", "recovery"], input: Self.password)
            #expect(added.status == 0, "\(added.stderr)")
            let key = added.text.trimmingCharacters(in: .newlines)
            #expect(key.range(of: "^[A-Z2-7]{4}(-[A-Z2-7]{4}){7}$", options: .regularExpression) != nil, "\(key)")
            #expect(added.stderr.contains("shown only now"))
            #expect(try await coffer.run(["key-slots", "list", "login"]).text == "0\tpassword\n1\trecovery\n")

            #expect(try await coffer.run(["lock-keychain", "login"]).status == 0)
            #expect(try await coffer.run(["key-slots", "unlock", "login"], input: "not a key\n").status == 64)
            let other = String(repeating: "A", count: 32)
            #expect(try await coffer.run(["key-slots", "unlock", "login"], input: other + "\n").status == 51)
            #expect(try await Self.isLocked(coffer, "login") == true)
            // Typed sloppily: lower case, no dashes.
            let typed = key.replacingOccurrences(of: "-", with: "").lowercased()
            let unlocked = try await coffer.run(["key-slots", "unlock", "login"], input: typed + "\n")
            #expect(unlocked.status == 0, "\(unlocked.stderr)")
            #expect(try await Self.isLocked(coffer, "login") == false)

            // The recovery key authorises changes too; then it is removed and no longer opens anything.
            let second = try await coffer.run(["key-slots", "add", "login", "password", "--recovery-key"],
                                              input: key + "\nsecond password\n")
            #expect(second.status == 0 && second.text == "added password slot 2\n", "\(second.stderr)")
            let removed = try await coffer.run(["key-slots", "remove", "login", "1"], input: "second password\n")
            #expect(removed.status == 0, "\(removed.stderr)")
            #expect(removed.text.contains("removed slot 1"))
            #expect(try await coffer.run(["key-slots", "unlock", "login"], input: key + "\n").status == 51)
            #expect(try await coffer.run(["key-slots", "remove", "login", "9"], input: Self.password).status == 44)
            #expect(try await coffer.run(["key-slots", "remove", "login", "2"], input: Self.password).status == 0)
            let last = try await coffer.run(["key-slots", "remove", "login", "0"], input: Self.password)
            #expect(last.status == 69 && last.stderr.contains("last key slot"), "\(last.stderr)")
        }
    }

    @Test("set-keychain-password warns when a recovery slot makes cofferd keep the master key, and not otherwise")
    func passwordChangeReportsKeptMasterKey() async throws {
        try await Self.withCofferd { _, _, coffer in
            let plain = try await coffer.run(["set-keychain-password", "login"], input: Self.password + "second\n")
            #expect(plain.status == 0 && plain.stderr.isEmpty, "\(plain.stderr)")
            #expect(try await coffer.run(["key-slots", "add", "login", "recovery"], input: "second\n").status == 0)
            let kept = try await coffer.run(["set-keychain-password", "login"], input: "second\nthird\n")
            #expect(kept.status == 0, "\(kept.stderr)")
            #expect(kept.stderr.contains("master key was kept for key slot(s) 1"), "\(kept.stderr)")
            #expect(kept.stderr.split(separator: "\n").count == 1)
            #expect(try await coffer.run(["set-keychain-password", "login"], input: "wrong\nx\n").status == 51)
            #expect(try await coffer.run(["unlock-keychain", "login"], input: "third\n").status == 0)
        }
    }

    @Test("when systemd-creds cannot seal the key (a TPM2 asked for, none present), no slot is added and no file left",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-creds")
              && !FileManager.default.fileExists(atPath: "/dev/tpmrm0") && !FileManager.default.fileExists(atPath: "/dev/tpm0"),
                   "needs systemd-creds and a machine without a TPM2"))
    func failedSealAddsNothing() async throws {
        try await Self.withCofferd { bus, _, coffer in
            let sealed = bus.directory.appendingPathComponent("creds/coffer-login.cred").path
            let failed = try await coffer.run(["key-slots", "add", "login", "systemd-credential", "--credential-file",
                                               sealed, "--creds-option=--with-key=tpm2"], input: Self.password)
            #expect(failed.status == 1, "\(failed.stderr)")
            #expect(failed.stderr.hasPrefix("coffer: systemd-creds could not encrypt the key"), "\(failed.stderr)")
            #expect(failed.stderr.split(separator: "\n").count == 1)
            #expect(!FileManager.default.fileExists(atPath: sealed))
            #expect(try await coffer.run(["key-slots", "list", "login"]).text == "0\tpassword\n")
        }
    }

    static var canRunSystemdCreds: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-creds")
    }

    /// On a machine without one, `systemd-creds encrypt` creates the host key `/var/lib/systemd/credential.secret`.
    /// That key is the machine's, not a fixture of this test: it stays, as removing it would make every credential
    /// sealed with it undecryptable.
    @Test("systemd-creds encrypt, then decrypt into $CREDENTIALS_DIRECTORY, unlocks login at start without a password",
          .enabled(if: canRunSystemdCreds, "systemd 252 encrypts with the host key only as root"))
    func systemdCredentialRoundTrip() async throws {
        try await TestBus.withPrivateBus { bus in
            let scratch = bus.directory.appendingPathComponent("systemd-creds", isDirectory: true)
            let sealed = scratch.appendingPathComponent("coffer-login.cred").path
            let first = try await DaemonHarness.start(on: bus, options: .init(arguments: DaemonHarness.cheapKeyDerivation))
            let coffer = CofferCLI(bus: bus)
            do {
                #expect(try await coffer.run(["store", "--label", "kept", "slot", "credential"], input: "s3cret").status == 0)
                let added = try await coffer.run(["key-slots", "add", "login", "systemd-credential",
                                                  "--credential-file", sealed], input: Self.password)
                #expect(added.status == 0, "\(added.stderr)")
                #expect(added.text.contains("LoadCredentialEncrypted=coffer-login:\(sealed)"), "\(added.text)")
                #expect(try await coffer.run(["key-slots", "list", "login"]).text == "0\tpassword\n1\tsystemd-credential\n")
            } catch {
                await first.kill()
                throw error
            }
            #expect(await first.stop() == .exited(0))

            // What systemd does for LoadCredentialEncrypted=: decrypt into a directory only the service reads.
            let credentials = scratch.appendingPathComponent("credentials", isDirectory: true)
            try FileManager.default.createDirectory(at: credentials, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            let decrypt = try await ClientEnvironment(bus: bus).run(
                "/usr/bin/systemd-creds", ["decrypt", "--name=coffer-login", sealed,
                                           credentials.appendingPathComponent("coffer-login").path])
            #expect(decrypt.status == 0, "\(decrypt.stderr)")
            let plain = try Data(contentsOf: credentials.appendingPathComponent("coffer-login"))
            #expect(plain.count == 32)
            #expect(try Data(contentsOf: URL(fileURLWithPath: sealed)).range(of: plain) == nil, "the key is in clear")

            let second = try await DaemonHarness.start(on: bus, options: .init(
                arguments: DaemonHarness.cheapKeyDerivation, loginPassword: nil,
                environment: ["CREDENTIALS_DIRECTORY": credentials.path], name: "cofferd-credential"))
            do {
                #expect(try await Self.isLocked(coffer, "login") == false, "log:\n\(second.log())")
                let lookup = try await coffer.run(["lookup", "slot", "credential"])
                #expect(lookup.status == 0 && lookup.text == "s3cret", "\(lookup.stderr)")
                #expect(second.pinentryCommands.isEmpty, "a password was asked for")
            } catch {
                await second.kill()
                throw error
            }
            #expect(await second.stop() == .exited(0))
        }
    }
}
