// SPDX-License-Identifier: Apache-2.0
// The bus dying, cofferd exiting, another provider owning the name: cofferd exits cleanly, activation brings it back.

import DBusTransport
import DBusWire
import Foundation
import Glibc
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

@Suite("Faults: the bus, activation and a taken name", .timeLimit(.minutes(2)))
struct ProviderFaultTests {
    static let login = DaemonSequence.loginPath
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Installs the project's activation file on `bus`, pointing at the built cofferd, with HOME `home` (so it
    /// serves the data an earlier instance wrote) and the scripted pinentry answering the test login password.
    static func installActivation(on bus: TestBus, home: URL) throws {
        let template = try String(contentsOf: repository.appendingPathComponent("dbus/org.freedesktop.secrets.service.in"),
                                  encoding: .utf8)
        let cofferd = try DaemonHarness.executableURL()
        // dbus-daemon runs Exec with its own environment; `env` gives cofferd the scratch HOME.
        let settings = try DaemonHarness.pinentrySettings(
            at: bus.directory.appendingPathComponent("activated.pinentry-settings"),
            ["COFFER_TEST_PINENTRY_PASSWORDS":
                Array(repeating: DaemonHarness.testLoginPassword, count: 8).joined(separator: ",")])
        let environment = [
            "HOME=\(home.path)", "XDG_DATA_HOME=\(home.path)/.local/share", "XDG_CONFIG_HOME=\(home.path)/.config",
            "XDG_RUNTIME_DIR=\(bus.directory.path)", "PINENTRY_USER_DATA=\(settings.path)",
            "DISPLAY=\(DaemonHarness.scriptedPinentryDisplay)",
        ].map { "'\($0)'" }.joined(separator: " ")
        let pinentry = DaemonHarness.scriptedPinentry().path
        let options = " --log-level debug --pinentry \(pinentry) " + DaemonHarness.cheapKeyDerivation.joined(separator: " ")
        var lines: [String] = []
        for line in template.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("Exec=") {
                let exec = line.dropFirst("Exec=".count)
                    .replacingOccurrences(of: "@bindir@/cofferd", with: "/usr/bin/env \(environment) \(cofferd.path)")
                lines.append("Exec=" + exec + options)
            } else {
                lines.append(String(line))
            }
        }
        try lines.joined(separator: "\n").write(
            to: bus.servicesDirectory.appendingPathComponent("org.freedesktop.secrets.service"), atomically: true,
            encoding: .utf8)
    }

    /// The process that owns `org.freedesktop.secrets` on the client's bus.
    static func providerPID(_ client: SecretService) async throws -> Int32 {
        let call = Message.methodCall(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                      interface: "org.freedesktop.DBus", member: "GetConnectionUnixProcessID",
                                      body: [.string(SecretServiceNames.busName.rawValue)])
        guard case .uint32(let pid) = try await client.connection.call(call).body.first else {
            throw SecretServiceClientError.unexpectedReply("GetConnectionUnixProcessID")
        }
        return Int32(pid)
    }

    /// Reads the item back through a freshly activated cofferd, unlocking login through its prompt.
    static func expectServed(_ item: ObjectPath, on bus: TestBus, _ what: String) async throws -> Int32 {
        try await withClient(on: bus) { client in
            #expect(try await client.unlock([login]) == [login], "\(what)")
            #expect(try await client.secret(of: item).text == "kept across restarts", "\(what)")
            return try await providerPID(client)
        }
    }

    /// Sends SIGTERM to a provider the bus started (not our child) and waits until it gives up the name.
    static func terminate(_ pid: Int32, on bus: TestBus) async throws {
        let watcher = try await bus.connect()
        try await watcher.addMatch("type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',"
            + "arg0='\(SecretServiceNames.busName.rawValue)'")
        kill(pid, SIGTERM)
        try await withDeadline(.seconds(20), waitingFor: "cofferd to give up its name after SIGTERM") {
            for await message in watcher.messages where message.member == "NameOwnerChanged"
                && message.body.count == 3 && message.body[2].string == "" { return }
        }
        await watcher.close()
    }

    @Test("when the bus dies cofferd exits 0; on the next bus, and after it exits, the first call activates it again")
    func busDeathAndActivation() async throws {
        let first = try TestBus()
        defer { first.stop() }
        let daemon = try await DaemonHarness.start(on: first, options: DaemonSequence.options("before-bus-death"))
        let item = try await withClient(on: first) { client in
            try await client.createItem(in: Self.login, label: "restart", attributes: ["restart": "1"],
                                        secret: secret("kept across restarts"), replace: false)
        }
        first.crash()
        let exit = try await withDeadline(.seconds(60), waitingFor: "cofferd to exit after the bus died") {
            await daemon.waitForExit()
        }
        #expect(exit == .exited(0), "log:\n\(daemon.log())")
        #expect(daemon.log().contains("the bus connection closed"), "log:\n\(daemon.log())")

        // A new session bus over the same HOME: nothing runs until a client calls.
        let second = try TestBus()
        defer { second.stop() }
        try Self.installActivation(on: second, home: daemon.homeDirectory)
        let activated = try await Self.expectServed(item, on: second, "the first call after the bus restarted")
        #expect(activated != daemon.processID)

        // cofferd exits (a crash, an upgrade): the next call starts it again.
        try await Self.terminate(activated, on: second)
        let again = try await Self.expectServed(item, on: second, "the first call after cofferd exited")
        #expect(again != activated)
        try await Self.terminate(again, on: second)
    }

    @Test("with gnome-keyring owning the name cofferd exits 3 with one line, and gnome-keyring keeps serving",
          .enabled(if: DaemonHarness.gnomeKeyringInstalled))
    func nameOwnedByAnotherProvider() async throws {
        try await TestBus.withPrivateBus { bus in
            let keyring = try await DaemonHarness.startGnomeKeyring(on: bus)
            let tools = ClientEnvironment(bus: bus)
            let output = try await tools.run(try DaemonHarness.executableURL().path,
                                             ["--address", bus.address, "--memory-only"])
            #expect(output.status == 3, "\(output.stderr)")
            let lines = output.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("already owned by \(keyring.uniqueName.rawValue)"),
                    "\(output.stderr)")
            let stored = try await tools.secretTool(["store", "--label=taken", "taken", "name"],
                                                    input: Data("still gnome-keyring's".utf8))
            stored.expectSuccess("secret-tool store")
            #expect(try await tools.secretTool(["lookup", "taken", "name"]).text == "still gnome-keyring's")
            await keyring.stop()
        }
    }
}
