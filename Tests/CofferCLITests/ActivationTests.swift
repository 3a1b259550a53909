// SPDX-License-Identifier: Apache-2.0
// D-Bus activation: a private bus whose service directory holds the generated activation file starts cofferd on
// the first client call (here secret-tool lookup), in the scratch HOME the test gives it.

import DBusTransport
import DBusWire
import Foundation
import SecretServiceTestSupport
import Testing

@Suite("cofferd D-Bus activation")
struct ActivationTests {
    @Test func secretToolLookupActivatesCofferd() async throws {
        try await TestBus.withPrivateBus { bus in
            // dbus-daemon starts activated services with its own environment (inherited from this test process, so
            // the real HOME) plus DBUS_STARTER_*; UpdateActivationEnvironment is the bus's way to change it. Without
            // it the activated cofferd would write into the user's home, so this must succeed first.
            let home = bus.directory.appendingPathComponent("activated-home", isDirectory: true)
            let scratch = [
                "HOME": home.path, "XDG_DATA_HOME": home.path + "/.local/share",
                "XDG_CONFIG_HOME": home.path + "/.config", "XDG_CACHE_HOME": home.path + "/.cache",
                "XDG_RUNTIME_DIR": bus.directory.path,
            ]
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            // coffer stores and secret-tool reads: two applications, which access control would ask about.
            try DaemonHarness.turnAccessControlOff(configHome: home.appendingPathComponent(".config"))
            let control = try await bus.connect()
            _ = try await control.call(.methodCall(
                destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                member: "UpdateActivationEnvironment", body: [.stringDictionary(scratch)]))

            // The activation file exactly as `make install` generates it, pointing at the built cofferd.
            let cofferd = try DaemonHarness.executableURL()
            let template = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("dbus/org.freedesktop.secrets.service.in")
            let service = try String(contentsOf: template, encoding: .utf8)
                .replacingOccurrences(of: "@bindir@", with: cofferd.deletingLastPathComponent().path)
            try FileManager.default.createDirectory(at: bus.servicesDirectory, withIntermediateDirectories: true)
            try service.write(to: bus.servicesDirectory.appendingPathComponent("org.freedesktop.secrets.service"),
                              atomically: true, encoding: .utf8)
            #expect(try await control.nameOwner(of: "org.freedesktop.secrets") == nil)

            // Nothing owns the name; secret-tool's first call makes the bus start cofferd.
            let lookup = try await ClientEnvironment(bus: bus).secretTool(["lookup", "activation", "test"])
            #expect(lookup.status == 1 && lookup.text.isEmpty, "\(lookup.stderr)")  // no such item, but served
            let owner = try #require(try await control.nameOwner(of: "org.freedesktop.secrets"))
            let pid = try #require(try await control.processID(of: owner))
            let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
            #expect(URL(fileURLWithPath: executable).resolvingSymlinksInPath().path
                    == cofferd.resolvingSymlinksInPath().path)
            let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ") ?? Data()
            let variables = environ.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            #expect(variables.contains("HOME=\(home.path)"))

            // It serves: a secret stored with coffer into the session collection comes back through secret-tool.
            let coffer = CofferCLI(bus: bus)
            let store = try await coffer.run(["store", "--label=activated", "--collection=session", "via", "activation"],
                                             input: "activated secret")
            #expect(store.status == 0, "\(store.stderr)")
            #expect(try await ClientEnvironment(bus: bus).secretTool(["lookup", "via", "activation"]).text
                    == "activated secret")

            // Stop it and wait for the name to go, so no process outlives the test.
            try await control.addMatch("type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',"
                + "arg0='org.freedesktop.secrets'")
            kill(pid_t(pid), SIGTERM)
            let released = try await withDeadline(.seconds(20), waitingFor: "cofferd to release its name") {
                for await message in control.messages where message.member == "NameOwnerChanged"
                    && message.body.count == 3 && message.body[2].string == "" {
                    return true
                }
                return false
            }
            #expect(released)
            await control.close()
        }
    }
}
