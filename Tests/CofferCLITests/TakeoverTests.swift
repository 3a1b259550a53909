// SPDX-License-Identifier: Apache-2.0
// `coffer takeover` against a real gnome-keyring-daemon holding items, on a private bus with a scratch HOME.

import DBusTransport
import DBusWire
import Foundation
import SecretCrypto
import SecretServiceClient
import SecretServiceTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("coffer takeover from gnome-keyring", .enabled(if: DaemonHarness.gnomeKeyringInstalled),
       .timeLimit(.minutes(3)))
struct TakeoverTests {
    /// What a client sees of one item; the secret as bytes so that binary secrets compare exactly.
    struct Snapshot: Hashable, CustomStringConvertible {
        var label: String
        var attributes: [String: String]
        var secret: [UInt8]
        var description: String { "\(label) \(attributes.sorted { $0.key < $1.key }) (\(secret.count) bytes)" }
    }

    /// The items secret-tool stores into gnome-keyring's login keyring: a plain password, a label and attributes
    /// beyond ASCII, a secret with control bytes, a newline and bytes that are not UTF-8.
    static let loginItems: [(label: String, attributes: [String], secret: [UInt8])] = [
        ("Mail password for alice", ["service", "imap", "user", "alice"], Array("hunter2".utf8)),
        ("Ünïcode ✓ token", ["app", "tökén", "kind", "api"], Array("pa ss\u{1}\nword".utf8) + [0xFF, 0x00, 0x7F]),
        ("Git credential", ["protocol", "https", "host", "example.org"], Array(repeating: 0x61, count: 300)),
    ]
    static let workPassword = "a different work password"

    @Test("every item arrives with label, attributes, secret; gnome-keyring replaced; idempotent; --undo reverts")
    func fullSwitch() async throws {
        try await TestBus.withPrivateBus { bus in
            let keyring = try await DaemonHarness.startGnomeKeyring(on: bus)
            let home = keyring.homeDirectory
            let system = try Self.systemFixtures(in: bus.directory)
            let environment = try Self.environment(home: home, system: system)
            let takeover = ["takeover", "--system-root", system.path]
            let client = ClientEnvironment(bus: bus)
            for item in Self.loginItems {
                let stored = try await client.secretTool(["store", "--label=\(item.label)"] + item.attributes,
                                                         input: Data(item.secret))
                #expect(stored.status == 0, "\(stored.stderr)")
            }
            // A second keyring with its own password: its file cannot be read with the login password, so
            // takeover reads it through the running gnome-keyring.
            let coffer = CofferCLI(bus: bus)
            let created = try await coffer.run(["create-keychain", "Work"], input: Self.workPassword + "\n")
            #expect(created.status == 0, "\(created.stderr)")
            let before = try await Self.withService(bus) { service in
                let work = try await Self.collection(labelled: "Work", in: service)
                _ = try await service.createItem(in: work, label: "VPN", attributes: ["host": "vpn.example.org"],
                                                 secret: try SecretBytes(copying: Array("vpn secret".utf8)),
                                                 contentType: "text/plain", replace: false)
                let login = try #require(try await service.readAlias("login"))
                return (login: try await Self.snapshot(login, service), work: try await Self.snapshot(work, service))
            }
            #expect(before.login.count == Self.loginItems.count && before.work.count == 1)

            // KeePassXC's integration switched on, among other settings that must survive untouched.
            let keepassxc = home.appendingPathComponent(".config/keepassxc/keepassxc.ini")
            let settings = "[General]\nConfigVersion=2\n\n[FdoSecrets]\nEnabled=true\nShowNotification=false\n"
            try FileManager.default.createDirectory(at: keepassxc.deletingLastPathComponent(),
                                                    withIntermediateDirectories: true)
            try settings.write(to: keepassxc, atomically: true, encoding: .utf8)

            let doctor = ["doctor", "--system-root", system.path]
            let competing = try await coffer.run(doctor, environment: environment)
            #expect(competing.status == 1, "\(competing.text)")
            for expected in ["error   provider: gnome-keyring-daemon", "error   autostart: ", "error   activation: ",
                             "error   systemd: gnome-keyring-daemon.socket is enabled", "warning pam: ",
                             "error   keepassxc: ",
                             "fix: run `coffer takeover`", "fix: as root, replace pam_gnome_keyring.so"] {
                #expect(competing.text.contains(expected), "missing '\(expected)' in:\n\(competing.text)")
            }

            let first = try await coffer.run(takeover + ["--yes"], input: DaemonHarness.gnomeKeyringPassword + "\n",
                                             environment: environment)
            #expect(first.status == 0, "\(first.text)\n\(first.stderr)")
            #expect(first.text.contains("imported 3 items into login"), "\(first.text)")
            #expect(first.text.contains("imported 1 item into Work"), "\(first.text)")
            #expect(first.text.contains("pam.d/login line 1") && first.text.contains("pam_coffer.so"),
                    "the PAM line is reported: \(first.text)")
            #expect(!first.text.contains("line 2"), "a commented-out line is not: \(first.text)")
            let ended = await keyring.waitForExit()
            #expect(ended == .signalled(SIGKILL) || ended == .signalled(SIGTERM) || ended == .exited(0), "\(ended)")

            let probe = try await bus.connect()
            let owner = try #require(try await probe.processID(of: "org.freedesktop.secrets"))
            #expect(Self.executableName(of: owner) == "cofferd")
            await probe.close()

            let after = try await Self.withService(bus) { service in
                // cofferd's login collection, with the default alias pointing at it.
                let login: ObjectPath = "/org/freedesktop/secrets/collection/login"
                #expect(try await service.readAlias("default") == login)
                let work = try await Self.collection(labelled: "Work", in: service)
                return (login: try await Self.snapshot(login, service), work: try await Self.snapshot(work, service))
            }
            #expect(after.login == before.login)
            #expect(after.work == before.work)

            let overrides = Self.overrides(in: home)
            #expect(try String(contentsOfFile: overrides.autostart, encoding: .utf8).contains("Hidden=true"))
            #expect(try String(contentsOfFile: overrides.activation, encoding: .utf8).contains("cofferd"))
            #expect(try String(contentsOfFile: overrides.gnomeActivation, encoding: .utf8).contains("Exec=/bin/false"))
            #expect(try String(contentsOf: keepassxc, encoding: .utf8)
                    == settings.replacingOccurrences(of: "Enabled=true", with: "Enabled=false"))
            for link in overrides.masks {
                #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == "/dev/null", "\(link)")
            }

            let healthy = try await coffer.run(doctor, environment: environment)
            for gone in ["error   provider", "error   autostart", "error   activation", "error   systemd"] {
                #expect(!healthy.text.contains(gone), "'\(gone)' after takeover:\n\(healthy.text)")
            }
            #expect(healthy.text.contains("ok      provider: cofferd"), "\(healthy.text)")

            // Again: nothing to change, nothing imported twice, no password needed.
            let second = try await coffer.run(takeover + ["--yes"], environment: environment)
            #expect(second.status == 0, "\(second.text)\n\(second.stderr)")
            #expect(second.text.contains("nothing to do"), "\(second.text)")
            let again = try await Self.withService(bus) { service in
                try await Self.snapshot(try #require(try await service.readAlias("default")), service)
            }
            #expect(again == before.login)

            let undone = try await coffer.run(takeover + ["--undo"], environment: environment)
            #expect(undone.status == 0, "\(undone.stderr)")
            for path in [overrides.autostart, overrides.activation, overrides.gnomeActivation] + overrides.masks {
                #expect(!FileManager.default.fileExists(atPath: path) && (try? FileManager.default
                    .destinationOfSymbolicLink(atPath: path)) == nil, "\(path) is still there")
            }
            #expect(try String(contentsOf: keepassxc, encoding: .utf8) == settings, "KeePassXC's file restored exactly")
            let nothing = try await coffer.run(takeover + ["--undo"], environment: environment)
            #expect(nothing.status == 0 && nothing.text.contains("nothing to undo"), "\(nothing.text)")
            kill(pid_t(owner), SIGTERM)
        }
    }

    @Test("a wrong login password stops takeover before anything changes: gnome-keyring keeps serving")
    func wrongPasswordChangesNothing() async throws {
        try await TestBus.withPrivateBus { bus in
            let keyring = try await DaemonHarness.startGnomeKeyring(on: bus)
            let home = keyring.homeDirectory
            let system = try Self.systemFixtures(in: bus.directory)
            let environment = try Self.environment(home: home, system: system)
            let stored = try await ClientEnvironment(bus: bus).secretTool(["store", "--label=one", "k", "v"],
                                                                          input: Data("s".utf8))
            #expect(stored.status == 0, "\(stored.stderr)")
            let refused = try await CofferCLI(bus: bus).run(["takeover", "--yes", "--system-root", system.path],
                                                            input: "not the password\n",
                                                            environment: environment)
            #expect(refused.status == 51, "\(refused.text)\n\(refused.stderr)")
            #expect(refused.stderr.contains("login.keyring") && refused.stderr.contains("nothing was changed"),
                    "\(refused.stderr)")
            let overrides = Self.overrides(in: home)
            for path in [overrides.autostart, overrides.activation, overrides.gnomeActivation] + overrides.masks {
                #expect((try? FileManager.default.attributesOfItem(atPath: path)) == nil, "\(path) was written")
            }
            #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent(".local/share/coffer").path))
            let probe = try await bus.connect()
            #expect(try await probe.nameOwner(of: "org.freedesktop.secrets") == keyring.uniqueName)
            await probe.close()
            await keyring.stop()
        }
    }

    @Test("a keyring readable neither from its file nor over D-Bus (own password, locked) stops takeover first")
    func unreadableKeyringChangesNothing() async throws {
        try await TestBus.withPrivateBus { bus in
            let keyring = try await DaemonHarness.startGnomeKeyring(on: bus)
            let home = keyring.homeDirectory
            let system = try Self.systemFixtures(in: bus.directory)
            let environment = try Self.environment(home: home, system: system)
            let coffer = CofferCLI(bus: bus)
            let created = try await coffer.run(["create-keychain", "Work"], input: Self.workPassword + "\n")
            #expect(created.status == 0, "\(created.stderr)")
            try await Self.withService(bus) { service in
                _ = try await service.createItem(in: try await Self.collection(labelled: "Work", in: service),
                                                 label: "VPN", attributes: ["host": "vpn.example.org"],
                                                 secret: try SecretBytes(copying: Array("vpn".utf8)),
                                                 contentType: "text/plain", replace: false)
            }
            let locked = try await coffer.run(["lock-keychain", "Work"])
            #expect(locked.status == 0, "\(locked.stderr)")

            let refused = try await coffer.run(["takeover", "--yes", "--system-root", system.path],
                                               input: DaemonHarness.gnomeKeyringPassword + "\n",
                                               environment: environment)
            #expect(refused.status == 51, "\(refused.text)\n\(refused.stderr)")
            #expect(refused.stderr.contains("Work.keyring") && refused.stderr.contains("locked in the running provider")
                    && refused.stderr.contains("nothing was changed"), "\(refused.stderr)")
            let overrides = Self.overrides(in: home)
            for path in [overrides.autostart, overrides.activation, overrides.gnomeActivation] + overrides.masks {
                #expect((try? FileManager.default.attributesOfItem(atPath: path)) == nil, "\(path) was written")
            }
            let probe = try await bus.connect()
            #expect(try await probe.nameOwner(of: "org.freedesktop.secrets") == keyring.uniqueName)
            await probe.close()
            await keyring.stop()
        }
    }

    @Test("with systemd --user, units are masked and unmasked by systemctl; without an old provider cofferd just starts")
    func systemctlPath() async throws {
        try await TestBus.withPrivateBus { bus in
            let coffer = CofferCLI(bus: bus)
            let home = try #require(coffer.environment.variables["HOME"])
            let system = try Self.systemFixtures(in: bus.directory)
            // A systemctl that records its arguments and stands for a running user instance: the private socket
            // exists under XDG_RUNTIME_DIR (the bus directory), show-environment answers, cofferd.service is unknown.
            let bin = bus.directory.appendingPathComponent("bin")
            let log = bus.directory.appendingPathComponent("systemctl.log").path
            try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: bus.directory.appendingPathComponent("systemd"),
                                                    withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: bus.directory.appendingPathComponent("systemd/private").path,
                                               contents: nil)
            let recorder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Fixtures/systemctl-recorder")
            try FileManager.default.createSymbolicLink(atPath: bin.appendingPathComponent("systemctl").path,
                                                       withDestinationPath: recorder.path)
            let environment = [
                "PATH": bin.path + ":/usr/bin:/bin",
                "COFFER_TEST_SYSTEMCTL_LOG": log,
                "XDG_CONFIG_DIRS": system.appendingPathComponent("xdg").path,
                "XDG_DATA_DIRS": system.appendingPathComponent("share").path,
            ]
            let takeover = ["takeover", "--system-root", system.path]

            let first = try await coffer.run(takeover + ["--yes"], input: "new login password\n",
                                             environment: environment)
            #expect(first.status == 0, "\(first.text)\n\(first.stderr)")
            let calls = try String(contentsOfFile: log, encoding: .utf8)
            #expect(calls.contains("--user --quiet mask --now gnome-keyring-daemon.socket"), "\(calls)")
            #expect(calls.contains("--user --quiet mask --now gnome-keyring-daemon.service"), "\(calls)")
            #expect(!calls.contains("start cofferd.service"), "an unknown unit is not started: \(calls)")
            let probe = try await bus.connect()
            let owner = try #require(try await probe.processID(of: "org.freedesktop.secrets"))
            #expect(Self.executableName(of: owner) == "cofferd")
            await probe.close()
            try await Self.withService(bus) { service in
                let login: ObjectPath = "/org/freedesktop/secrets/collection/login"
                let alias = try await service.readAlias("default")
                let locked = try await service.collectionProperties(login).locked
                #expect(alias == login)
                #expect(!locked)
            }
            #expect(FileManager.default.fileExists(atPath: home + "/.config/autostart/gnome-keyring-secrets.desktop"))

            let undone = try await coffer.run(takeover + ["--undo"], environment: environment)
            #expect(undone.status == 0, "\(undone.stderr)")
            let after = try String(contentsOfFile: log, encoding: .utf8)
            #expect(after.contains("--user --quiet unmask gnome-keyring-daemon.socket"), "\(after)")
            #expect(after.contains("--user --quiet unmask gnome-keyring-daemon.service"), "\(after)")
            kill(pid_t(owner), SIGTERM)
        }
    }

    @Test("with cofferd already serving, a password that does not open its locked login stops takeover first")
    func runningCofferdWithOtherPassword() async throws {
        try await TestBus.withPrivateBus { bus in
            let daemon = try await DaemonHarness.start(.subprocess, on: bus)
            let coffer = CofferCLI(bus: bus)
            let home = try #require(coffer.environment.variables["HOME"])
            let system = try Self.systemFixtures(in: bus.directory)
            let environment = try Self.environment(home: URL(fileURLWithPath: home), system: system)
            // Locked: the import would have to open it with the password given (an unlocked login needs none).
            let locked = try await coffer.run(["lock-keychain", "login"])
            #expect(locked.status == 0, "\(locked.stderr)")
            let refused = try await coffer.run(["takeover", "--yes", "--system-root", system.path],
                                               input: "not \(DaemonHarness.testLoginPassword)\n",
                                               environment: environment)
            #expect(refused.status == 51, "\(refused.text)\n\(refused.stderr)")
            #expect(refused.stderr.contains("does not unlock cofferd's existing login collection"), "\(refused.stderr)")
            let overrides = Self.overrides(in: URL(fileURLWithPath: home))
            for path in [overrides.autostart, overrides.activation, overrides.gnomeActivation] + overrides.masks {
                #expect((try? FileManager.default.attributesOfItem(atPath: path)) == nil, "\(path) was written")
            }
            #expect(await daemon.stop() == .exited(0))
        }
    }
}
