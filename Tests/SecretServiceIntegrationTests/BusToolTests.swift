// SPDX-License-Identifier: Apache-2.0
// Generic D-Bus tools against cofferd: introspection walkers, malformed calls, name ownership, shutdown.

import DBusWire
import Foundation
import SecretServiceTestSupport
import Testing

@Suite("D-Bus tools against cofferd")
struct BusToolTests {
    @Test("gdbus introspect --recurse and busctl tree walk collections, aliases and items")
    func treeWalkers() async throws {
        try await withCofferd { env, _ in
            try await env.secretTool(["store", "--label=x", "k", "v"], input: Data("s".utf8)).expectSuccess("store")
            let gdbus = try await env.run("/usr/bin/gdbus", [
                "introspect", "--session", "--dest", "org.freedesktop.secrets", "--object-path",
                "/org/freedesktop/secrets", "--recurse",
            ])
            gdbus.expectSuccess("gdbus introspect")
            for expected in ["node /org/freedesktop/secrets/collection/login/1",
                             "node /org/freedesktop/secrets/aliases/default",
                             "interface org.freedesktop.Secret.Item", "interface org.freedesktop.Secret.Service"] {
                #expect(gdbus.text.contains(expected), "missing \(expected)")
            }
            let busctl = try await env.run("/usr/bin/busctl", [
                "--address=\(env.bus.address)", "tree", "--list", "org.freedesktop.secrets",
            ])
            busctl.expectSuccess("busctl tree")
            #expect(busctl.text.contains("/org/freedesktop/secrets/collection/login/1"))
            #expect(busctl.text.contains("/org/freedesktop/secrets/aliases/session"))
        }
    }

    @Test("malformed calls get spec error names and the daemon keeps serving")
    func malformedCalls() async throws {
        try await withCofferd { env, _ in
            func send(_ path: String, _ member: String, _ args: [String]) async throws -> ClientOutput {
                try await env.run("/usr/bin/dbus-send", [
                    "--session", "--print-reply", "--dest=org.freedesktop.secrets", path, member,
                ] + args)
            }
            let wrongType = try await send("/org/freedesktop/secrets", "org.freedesktop.Secret.Service.ReadAlias",
                                           ["int32:5"])
            #expect(wrongType.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs"), "\(wrongType.stderr)")
            let bogus = try await send("/org/freedesktop/secrets/collection/nothing",
                                       "org.freedesktop.Secret.Collection.Delete", [])
            #expect(bogus.stderr.contains("org.freedesktop.Secret.Error.NoSuchObject"), "\(bogus.stderr)")
            let unknown = try await send("/org/freedesktop/secrets", "org.freedesktop.Secret.Service.Explode", [])
            #expect(unknown.stderr.contains("org.freedesktop.DBus.Error.UnknownMethod"), "\(unknown.stderr)")
            let algorithm = try await send("/org/freedesktop/secrets", "org.freedesktop.Secret.Service.OpenSession",
                                           ["string:rot13", "variant:string:"])
            #expect(algorithm.stderr.contains("org.freedesktop.DBus.Error.NotSupported"), "\(algorithm.stderr)")
            let stolen = try await send("/org/freedesktop/secrets/collection/login/1",
                                        "org.freedesktop.Secret.Item.GetSecret",
                                        ["objpath:/org/freedesktop/secrets/session/1"])
            #expect(stolen.stderr.contains("org.freedesktop.Secret.Error"), "\(stolen.stderr)")
            let ping = try await send("/org/freedesktop/secrets", "org.freedesktop.DBus.Peer.Ping", [])
            ping.expectSuccess("Ping")
            let alias = try await send("/org/freedesktop/secrets", "org.freedesktop.Secret.Service.ReadAlias",
                                       ["string:default"])
            alias.expectSuccess("ReadAlias after bad calls")
            #expect(alias.text.contains("/org/freedesktop/secrets/collection/login"))
        }
    }

    @Test("a second cofferd refuses a taken name with one line; --replace takes it over from one that allows it")
    func nameOwnership() async throws {
        try await TestBus.withPrivateBus { bus in
            let env = ClientEnvironment(bus: bus)
            let first = try await DaemonHarness.start(.subprocess, on: bus, arguments: ["--allow-replacement"])
            let cofferd = try DaemonHarness.executableURL().path
            let refused = try await env.run(cofferd, ["--address", bus.address, "--memory-only"])
            #expect(refused.status == 3)
            let lines = refused.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("already owned"), "\(refused.stderr)")

            let replacement = try await DaemonHarness.startReplacing(on: bus)
            let firstExit = await first.waitForExit()
            #expect(firstExit == .exited(0))
            let owner = try await env.run("/usr/bin/dbus-send", [
                "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                "org.freedesktop.DBus.GetNameOwner", "string:org.freedesktop.secrets",
            ])
            #expect(owner.text.contains(replacement.uniqueName.rawValue))
            // The replacement was started without --allow-replacement: a further --replace is refused.
            let again = try await env.run(cofferd, ["--address", bus.address, "--memory-only", "--replace"])
            #expect(again.status == 3, "\(again.stderr)")
            #expect(await replacement.stop() == .exited(0))
        }
    }
}
