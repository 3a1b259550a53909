// SPDX-License-Identifier: Apache-2.0
// coffer doctor on where cofferd's systemd user unit was installed: under a prefix systemd --user never searches
// (PREFIX=$HOME/.local puts it in ~/.local/lib/systemd/user) it is an error with the command that fixes it.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("coffer doctor: cofferd's unit location")
struct DoctorUnitLocationTests {
    @Test func unitOutsideTheSearchPathIsAnErrorUntilMoved() async throws {
        try await TestBus.withPrivateBus { bus in
            let coffer = CofferCLI(bus: bus)
            let home = try #require(coffer.environment.variables["HOME"])
            let system = bus.directory.appendingPathComponent("empty-system").path
            let prefix = bus.directory.appendingPathComponent("prefix").path
            let manager = FileManager.default
            for directory in [system, prefix + "/bin", prefix + "/lib/systemd/user", home + "/.local/share/dbus-1/services"] {
                try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            // What `make install PREFIX=…` leaves: the daemon, its unit beside it, and an activation file naming it.
            try "#!/bin/sh\nexit 0\n".write(toFile: prefix + "/bin/cofferd", atomically: true, encoding: .utf8)
            try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: prefix + "/bin/cofferd")
            let unit = prefix + "/lib/systemd/user/cofferd.service"
            try "[Service]\nExecStart=\(prefix)/bin/cofferd\n".write(toFile: unit, atomically: true, encoding: .utf8)
            try "[D-BUS Service]\nName=org.freedesktop.secrets\nExec=\(prefix)/bin/cofferd\nSystemdService=cofferd.service\n"
                .write(toFile: home + "/.local/share/dbus-1/services/org.freedesktop.secrets.service", atomically: true,
                       encoding: .utf8)
            let doctor = ["doctor", "--system-root", system]
            let environment = ["XDG_CONFIG_DIRS": system, "XDG_DATA_DIRS": system]

            let stray = try await coffer.run(doctor, environment: environment)
            #expect(stray.status == 1)
            #expect(stray.text.contains("error   unit: \(unit) is where the install put cofferd's unit, but systemd "
                + "--user never looks there"), "\(stray.text)")
            #expect(stray.text.contains("fix: mkdir -p \(home)/.config/systemd/user && mv \(unit)"), "\(stray.text)")

            try manager.createDirectory(atPath: home + "/.config/systemd/user", withIntermediateDirectories: true)
            try manager.moveItem(atPath: unit, toPath: home + "/.config/systemd/user/cofferd.service")
            let found = try await coffer.run(doctor, environment: environment)
            #expect(found.text.contains("ok      unit: \(home)/.config/systemd/user/cofferd.service"), "\(found.text)")
            #expect(!found.text.contains("error   unit"), "\(found.text)")
        }
    }
}
