// SPDX-License-Identifier: Apache-2.0
// coffer status and coffer doctor against cofferd on a private bus, and without any provider.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("coffer status and doctor")
struct DiagnosticsTests {
    @Test func statusAndDoctorSeeCofferdAndItsFiles() async throws {
        try await Provider.cofferd.with { bus, harness in
            let coffer = CofferCLI(bus: bus)
            let status = try await coffer.run(["status"])
            #expect(status.status == 0, "\(status.stderr)")
            #expect(status.text.contains("provider:   cofferd (pid \(harness.processID ?? 0)"))
            #expect(status.text.contains("login [default]: \"Login\", unlocked"))
            #expect(status.text.contains(harness.dataDirectory.path))
            let (_, json) = try await coffer.json(["status"])
            let report = try #require(json as? [String: Any])
            #expect(report["dataDirectory"] as? String == harness.dataDirectory.path)
            #expect((report["files"] as? [String])?.contains("login.coffer") == true)
            #expect((report["process"] as? [String: Any])?["pid"] as? Int == Int(harness.processID ?? 0))

            // A healthy setup: no errors. The host's gnome-keyring (autostart, activation, units, PAM) would be
            // competitors, so the system directories are empty stand-ins.
            let system = bus.directory.appendingPathComponent("empty-system").path
            try FileManager.default.createDirectory(atPath: system, withIntermediateDirectories: true)
            let healthy = try await coffer.run(["doctor", "--json", "--system-root", system],
                                               environment: ["XDG_CONFIG_DIRS": system, "XDG_DATA_DIRS": system])
            #expect(healthy.status == 0, "\(healthy.text)")
            let list = try #require(try JSONSerialization.jsonObject(with: healthy.stdout) as? [[String: Any]])
            #expect(list.contains { $0["check"] as? String == "provider" && $0["severity"] as? String == "ok" })
            #expect(list.contains { ($0["message"] as? String)?.contains("login.coffer: header and records intact") == true })
            #expect(list.contains { ($0["message"] as? String)?.contains("is held by the provider on this bus (pid "
                + "\(harness.processID ?? 0))") == true })

            // A collection file put back from an older copy, another one that is not a collection file, and a
            // directory opened to others: each becomes an error with a fix.
            let login = harness.collectionFile("login")
            let old = harness.dataDirectory.appendingPathComponent("old.coffer")
            try FileManager.default.copyItem(at: login, to: old)  // holds id 'login': the name does not match
            try Data("not a collection".utf8).write(to: harness.dataDirectory.appendingPathComponent("junk.coffer"))
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: harness.dataDirectory.path)
            // A name no collection id can have, and a generations line that is not '<id> <number>'.
            try FileManager.default.copyItem(at: login, to: harness.dataDirectory.appendingPathComponent("a-b.coffer"))
            let generations = harness.dataDirectory.appendingPathComponent("generations")
            try (String(contentsOf: generations, encoding: .utf8) + "login +99\n")
                .write(to: generations, atomically: false, encoding: .utf8)
            let broken = try await coffer.run(["doctor"])
            #expect(broken.text.contains("a-b.coffer has a name that is not a valid collection id"))
            #expect(broken.text.contains("generations: line ") && broken.text.contains("cofferd ignores that line"))
            #expect(broken.status == 1)
            #expect(broken.text.contains("old.coffer holds collection 'login' but is named 'old.coffer'"))
            #expect(broken.text.contains("junk.coffer is damaged: not a Coffer collection file"))
            #expect(broken.text.contains("is readable by others (mode 755)"))
            #expect(broken.text.contains("fix: chmod 700 \(harness.dataDirectory.path)"))
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: harness.dataDirectory.path)
        }
    }

    @Test func noProviderIsItsOwnExitStatus() async throws {
        try await TestBus.withPrivateBus { bus in
            let coffer = CofferCLI(bus: bus)
            let status = try await coffer.run(["status"])
            #expect(status.status == 53)
            #expect(status.text.contains("provider:   none running and none activatable"))
            let lookup = try await coffer.run(["lookup", "a", "b"])
            #expect(lookup.status == 53)
            #expect(lookup.stderr.split(separator: "\n").count == 1)
            let doctor = try await coffer.run(["doctor"])
            #expect(doctor.status == 1 && doctor.text.contains("no provider runs and none can be activated"))
            // With no activation file anywhere, the fixes name what works on an installed system: the package and
            // the file it restores, beside the coffer being run (here the build directory's ../share).
            let empty = bus.directory.appendingPathComponent("no-data-dirs")
            try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
            let bare = try await coffer.run(["doctor"], environment: ["XDG_DATA_DIRS": empty.path])
            #expect(bare.text.contains("no D-Bus activation file names org.freedesktop.secrets"), "\(bare.text)")
            #expect(bare.text.contains("`sudo apt install --reinstall coffer`"), "\(bare.text)")
            let share = try CofferCLI.executable().resolvingSymlinksInPath().deletingLastPathComponent()
                .deletingLastPathComponent().path
            #expect(bare.text.contains(share + "/share/dbus-1/services/org.freedesktop.secrets.service"), "\(bare.text)")
            #expect(!bare.text.contains("run `make install`"), "\(bare.text)")
            let noBus = try await coffer.run(["list-keychains"], environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"])
            #expect(noBus.status == 53)
        }
    }

    @Test func helpDocumentsEveryExitStatus() async throws {
        try await TestBus.withPrivateBus { bus in
            let help = try await CofferCLI(bus: bus).run(["help"])
            #expect(help.status == 0)
            for line in ["44  no matching item", "36  the collection or item is locked", "53  no session bus",
                         "64  bad arguments", "128  a prompt was dismissed"] {
                #expect(help.text.contains(line), "\(line)")
            }
        }
    }
}
