// SPDX-License-Identifier: Apache-2.0
// The Secret portal end to end: Debian's xdg-desktop-portal on the private bus, routing to cofferd, and clients in
// bwrap sandboxes that carry a /.flatpak-info, as Flatpak applications do.

import DBusWire
import Foundation
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

@Suite("Secret portal through xdg-desktop-portal", .timeLimit(.minutes(2)))
struct SecretPortalTests {
    @Test("a sandboxed application gets one secret on every call, another application another, both kept in login")
    func perApplicationSecrets() async throws {
        try await withPortal { portal in
            let first = try await portal.retrieve(as: "org.example.First")
            #expect(first.response == 0)
            #expect(first.secret.count == 64)
            #expect(Set(first.secret).count > 1, "the secret is not random bytes")
            let again = try await portal.retrieve(as: "org.example.First")
            #expect(again.response == 0)
            #expect(again.secret == first.secret)
            let second = try await portal.retrieve(as: "org.example.Second")
            #expect(second.response == 0)
            #expect(second.secret.count == 64)
            #expect(second.secret != first.secret)
            // Kept as gnome-keyring and oo7 keep it: an item in login whose attribute app_id names the application.
            let stored = try await portal.env.secretTool(["lookup", "app_id", "org.example.First"])
            stored.expectSuccess("secret-tool lookup")
            #expect(stored.stdout == first.secret)
        }
    }

    @Test("a portal secret already in login, stored the way gnome-keyring stores it, is the one handed out")
    func existingSecretIsKept() async throws {
        try await withPortal { portal in
            let known = Data((0..<64).map { UInt8($0 * 3 & 0xFF) })
            let store = try await portal.env.secretTool(["store", "--label", "imported", "app_id", "org.example.Kept"],
                                                         input: known)
            store.expectSuccess("secret-tool store")
            let answer = try await portal.retrieve(as: "org.example.Kept")
            #expect(answer.response == 0)
            #expect(answer.secret == known)
        }
    }

    @Test("a descriptor nobody reads is response 2, and cofferd goes on serving")
    func descriptorWithoutReader() async throws {
        try await withPortal { portal in
            let lost = try await portal.retrieve(as: "org.example.Gone", withoutReader: true)
            #expect(lost.response == 2)
            let next = try await portal.retrieve(as: "org.example.Gone")
            #expect(next.response == 0)
            #expect(next.secret.count == 64)
        }
    }

    @Test("a locked login is unlocked through the usual prompt; a dismissed prompt is response 1 and nothing")
    func lockedLoginPrompts() async throws {
        let options = DaemonSequence.options("portal-locked",
                                             pinentryAnswers: ["CANCEL", DaemonHarness.testLoginPassword])
        try await withPortal(options) { portal in
            let login = DaemonSequence.loginPath
            let locked = try await withClient(on: portal.bus) { try await $0.lock([login]) }
            #expect(locked == [login])
            let dismissed = try await portal.retrieve(as: "org.example.Locked")
            #expect(dismissed.response == 1)
            #expect(dismissed.secret.isEmpty)
            let unlocked = try await portal.retrieve(as: "org.example.Locked")
            #expect(unlocked.response == 0)
            #expect(unlocked.secret.count == 64)
            #expect(portal.daemon.pinentryCommands.filter { $0 == "GETPIN" }.count == 2)
            let properties = try await withClient(on: portal.bus) { try await $0.collectionProperties(login) }
            #expect(!properties.locked)
        }
    }

    @Test("an unsandboxed program gets nothing, through the portal or by calling cofferd's backend with an app id")
    func unsandboxedCallerGetsNothing() async throws {
        try await withPortal { portal in
            // Through the frontend: it knows no app id for a program outside a sandbox.
            let unsandboxed = try await portal.retrieve(as: nil)
            #expect(unsandboxed.response == 2)
            #expect(unsandboxed.secret.isEmpty)
            // Straight to cofferd, claiming to be a sandboxed application that has a secret.
            let victim = try await portal.retrieve(as: "org.example.Victim")
            #expect(victim.response == 0)
            let direct = try await portal.env.python(Self.directCall(appID: "org.example.Victim"))
            direct.expectSuccess("the direct call")
            #expect(direct.text == "org.freedesktop.DBus.Error.AccessDenied\n\n", "\(direct.text)")
        }
    }

    /// Calls `org.freedesktop.impl.portal.Secret.RetrieveSecret` on cofferd itself; prints the error name and the
    /// hex of whatever reached the descriptor.
    static func directCall(appID: String) -> String {
        """
        import dbus, os
        bus = dbus.SessionBus()
        r, w = os.pipe()
        backend = bus.get_object('org.freedesktop.secrets', '/org/freedesktop/portal/desktop')
        try:
            backend.RetrieveSecret(dbus.ObjectPath('/org/freedesktop/portal/desktop/request/1_1/t'), '\(appID)',
                                   dbus.types.UnixFd(w), {}, dbus_interface='org.freedesktop.impl.portal.Secret')
            print('answered')
        except dbus.DBusException as error:
            print(error.get_dbus_name())
        os.close(w)
        data = b''
        while True:
            chunk = os.read(r, 4096)
            if not chunk:
                break
            data += chunk
        print(data.hex())
        """
    }
}

/// cofferd with an unlocked login collection, and xdg-desktop-portal activatable on the same private bus with
/// cofferd's `.portal` file as its only backend.
struct PortalFixture {
    let env: ClientEnvironment
    let bus: TestBus
    let daemon: DaemonHarness

    /// What the application saw: the Request's response code and the bytes that reached its descriptor.
    struct Answer {
        var response: Int
        var secret: Data
    }

    /// Runs the client as the Flatpak application `appID` (in a bwrap sandbox with a `/.flatpak-info`), or, for
    /// `nil`, as an unsandboxed program.
    /// - Parameter withoutReader: the application closes the pipe's read end before it asks, so the secret has
    ///   nowhere to go.
    func retrieve(as appID: String?, withoutReader: Bool = false) async throws -> Answer {
        let script = bus.directory.appendingPathComponent("portal-client.py")
        try Self.client.write(to: script, atomically: true, encoding: .utf8)
        let output: ClientOutput
        if let appID {
            let command = try FlatpakSandbox.command(appID: appID, in: bus, running: [
                "/usr/bin/python3", script.path,
            ] + (withoutReader ? ["no-reader"] : []))
            output = try await env.run(command[0], Array(command.dropFirst()))
        } else {
            output = try await env.run("/usr/bin/python3", [script.path] + (withoutReader ? ["no-reader"] : []))
        }
        output.expectSuccess("the portal client")
        let fields = output.text.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 2, let response = Int(fields[0]) else {
            throw DaemonHarness.StartError("unexpected client output: \(output.text) \(output.stderr)")
        }
        let hex = Array(fields[1].trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        let bytes = stride(from: 0, to: hex.count - 1, by: 2).compactMap {
            UInt8(String(decoding: hex[$0...$0 + 1], as: UTF8.self), radix: 16)
        }
        return Answer(response: response, secret: Data(bytes))
    }

    /// Asks `org.freedesktop.portal.Secret` for the caller's secret through a pipe, waits for the Request's Response
    /// signal (subscribed before the call, at the handle path the portal documents), then reads the pipe to its end.
    static let client = """
        import dbus, os, sys
        from dbus.mainloop.glib import DBusGMainLoop
        from gi.repository import GLib
        DBusGMainLoop(set_as_default=True)
        bus = dbus.SessionBus()
        r, w = os.pipe()
        if 'no-reader' in sys.argv:
            os.close(r)
        token = 'coffer'
        sender = bus.get_unique_name()[1:].replace('.', '_')
        handle = '/org/freedesktop/portal/desktop/request/%s/%s' % (sender, token)
        loop = GLib.MainLoop()
        result = {}
        def on_response(code, results):
            result['code'] = int(code)
            loop.quit()
        bus.add_signal_receiver(on_response, 'Response', 'org.freedesktop.portal.Request', None, handle)
        portal = bus.get_object('org.freedesktop.portal.Desktop', '/org/freedesktop/portal/desktop')
        portal.RetrieveSecret(dbus.types.UnixFd(w), {'handle_token': token},
                              dbus_interface='org.freedesktop.portal.Secret')
        os.close(w)
        loop.run()
        data = b''
        while 'no-reader' not in sys.argv:
            chunk = os.read(r, 4096)
            if not chunk:
                break
            data += chunk
        print(result['code'], data.hex())
        """
}

/// Runs `body` with cofferd (login unlocked) and an activatable xdg-desktop-portal on a fresh private bus. The
/// portal exits with the bus.
func withPortal(_ options: DaemonHarness.SubprocessOptions = DaemonSequence.options("portal"),
                _ body: (PortalFixture) async throws -> Void,
                sourceLocation: SourceLocation = #_sourceLocation) async throws {
    try await withDaemonSequence { daemons in
        let bus = daemons.bus
        // xdg-desktop-portal 1.16 reads backends from $XDG_DESKTOP_PORTAL_DIR; later versions from XDG_DATA_DIRS.
        let portals = bus.directory.appendingPathComponent("portals", isDirectory: true)
        try FileManager.default.createDirectory(at: portals, withIntermediateDirectories: true)
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        try FileManager.default.copyItem(at: repository.appendingPathComponent("dbus/coffer.portal"),
                                         to: portals.appendingPathComponent("coffer.portal"))
        // `env` execs the portal, so the process cofferd checks runs /usr/libexec/xdg-desktop-portal itself.
        let service = """
            [D-BUS Service]
            Name=org.freedesktop.portal.Desktop
            Exec=/usr/bin/env XDG_DESKTOP_PORTAL_DIR=\(portals.path) /usr/libexec/xdg-desktop-portal

            """
        try service.write(to: bus.servicesDirectory.appendingPathComponent("org.freedesktop.portal.Desktop.service"),
                          atomically: true, encoding: .utf8)
        let daemon = try await daemons.start(options)
        try await body(PortalFixture(env: ClientEnvironment(bus: bus), bus: bus, daemon: daemon))
        await daemons.stop(sourceLocation: sourceLocation)
    }
}
