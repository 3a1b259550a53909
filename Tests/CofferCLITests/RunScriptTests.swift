// SPDX-License-Identifier: Apache-2.0
// scripts/run-cofferd, which `make run` uses: it refuses to start beside another provider, and the private bus it
// starts when there is no session bus goes away with cofferd.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("make run's script")
struct RunScriptTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/run-cofferd").path

    @Test func anotherProviderOnTheSessionBusIsNamedWithTheWayToSwitch() async throws {
        try await TestProvider.gnomeKeyring.with { bus, harness in
            // The stand-in would fail loudly if it were started.
            let run = try await ClientEnvironment(bus: bus).run(Self.script, ["/bin/false"])
            #expect(run.status == 1)
            #expect(!run.text.contains("serving on the session bus"), "\(run.text)")
            let firstLine = run.stderr.split(separator: "\n").first ?? ""
            #expect(firstLine.contains("already served on this session bus by gnome-keyring")
                    && firstLine.contains("(pid \(harness.processID ?? 0))"), "\(run.stderr)")
            #expect(run.stderr.contains("`coffer takeover`"), "\(run.stderr)")
        }
    }

    @Test func privateBusStopsWithCofferd() async throws {
        try await TestBus.withPrivateBus { bus in
            // A stand-in for cofferd that records the bus it was given, checks that the bus answers, and fails.
            let standIn = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("Fixtures/cofferd-stand-in")
            let recorded = bus.directory.appendingPathComponent("stand-in.address")

            let client = ClientEnvironment(bus: bus)
            let run = try await client.run(Self.script, [standIn.path], extraEnvironment: [
                "DBUS_SESSION_BUS_ADDRESS": "", "COFFER_TEST_STAND_IN_RECORD": recorded.path,
            ])
            #expect(run.status == 3, "\(run.text)\(run.stderr)")  // cofferd's status, passed on
            let address = try String(contentsOf: recorded, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(!address.isEmpty && address != bus.address)
            #expect(run.text.contains("export DBUS_SESSION_BUS_ADDRESS='\(address)'"), "\(run.text)")
            // The script waited for the bus to exit before it did, so nothing answers there any more.
            let probe = try await client.run("/usr/bin/dbus-send", ["--address=\(address)", "--dest=org.freedesktop.DBus",
                "--print-reply", "/org/freedesktop/DBus", "org.freedesktop.DBus.GetId"])
            #expect(probe.status != 0, "the private bus outlived the script: \(probe.text)")
        }
    }
}
