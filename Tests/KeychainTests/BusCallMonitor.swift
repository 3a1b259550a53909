// SPDX-License-Identifier: Apache-2.0
// What the Keychain library asks the provider: the method calls on the bus while a piece of test code runs.

import DBusTransport
import DBusWire
import SecretServiceProtocol
import SecretServiceTestSupport

/// The method calls every client makes while `body` runs, in the order the bus routed them, seen by eavesdropping.
///
/// The watch ends at a marker call sent after `body`: the bus routes calls in order, so every call `body` made (each
/// answered before `body` returned) reaches the monitor before the marker does.
func methodCalls(on bus: TestBus, marker: Connection, during body: @Sendable () async throws -> Void)
    async throws -> [Message] {
    let markerPath: ObjectPath = "/io/coffer/tests/marker"
    let monitor = try await bus.connect()
    // Method calls reach the application only under a registered object tree: take the whole tree.
    try await monitor.registerObjectTree(at: "/")
    try await monitor.addMatch("type='method_call',eavesdrop='true'")
    let watching = Task { () -> [Message] in
        var calls: [Message] = []
        for await message in monitor.messages where message.kind == .methodCall {
            if message.path == markerPath { break }
            calls.append(message)
        }
        return calls
    }
    try await body()
    // Not a Peer call: libdbus answers those itself, before the monitor's object tree sees them.
    _ = try? await marker.call(Message.methodCall(destination: SecretServiceNames.busName, path: markerPath,
                                                  interface: "io.coffer.Tests", member: "Marker"))
    defer { watching.cancel() }
    let calls = try await withDeadline(.seconds(20), waitingFor: "the marker call") {
        // A cancelled wait (the deadline) ends the watch, so the deadline can report instead of hanging.
        await withTaskCancellationHandler { await watching.value } onCancel: { watching.cancel() }
    }
    await monitor.close()
    return calls
}

/// How many calls of each member `body` made (see ``methodCalls(on:marker:during:)``).
func calls(on bus: TestBus, marker: Connection, during body: @Sendable () async throws -> Void)
    async throws -> [String: Int] {
    var counts: [String: Int] = [:]
    for call in try await methodCalls(on: bus, marker: marker, during: body) {
        if let member = call.member { counts[member.rawValue, default: 0] += 1 }
    }
    return counts
}
