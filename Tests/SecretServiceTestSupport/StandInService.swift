// SPDX-License-Identifier: Apache-2.0
// What every scripted stand-in service of the tests does the same way: claim its name, serve on its own loop thread,
// and (for a stand-in Secret Service) open plain sessions.

public import DBusTransport
public import DBusWire
import SecretServiceClient
import SecretServiceProtocol

/// Helpers for the tests' scripted services (a held-replies provider, a fake logind, …).
public enum StandInService {
    /// Connects to `bus`, serves every object under `path` and owns `name`.
    /// - Throws: when the name is owned already, or the bus fails.
    public static func claim(_ name: BusName, at path: ObjectPath, on bus: TestBus) async throws -> Connection {
        let connection = try await bus.connect()
        try await connection.registerObjectTree(at: path)
        let reply = try await connection.requestName(name, flags: [.doNotQueue])
        guard reply == .primaryOwner else {
            throw SecretServiceClientError.transport("stand-in for \(name): \(reply)")
        }
        return connection
    }

    /// A connection that owns `org.freedesktop.secrets` on `bus` and serves `/org/freedesktop/secrets`.
    public static func claimSecretService(on bus: TestBus) async throws -> Connection {
        try await claim(SecretServiceNames.busName, at: SecretServiceNames.servicePath, on: bus)
    }

    /// Runs a stand-in's script on its connection's own loop thread, not the shared pool: a test blocked in a
    /// synchronous call (SecItem's) holds a pool thread and other suites may hold the rest, and a stand-in on the
    /// pool could then never answer.
    public static func run(on connection: Connection, _ script: @escaping @Sendable () async -> Void)
        -> Task<Void, Never> {
        Task(executorPreference: connection.taskExecutor) { await script() }
    }

    /// `OpenSession`'s answer from a stand-in Secret Service: a session for `plain`, which is all a stand-in
    /// offers (its clients are configured for it), and `NotSupported` for any other algorithm.
    public static func openSessionReply(to call: Message) -> Message {
        guard call.body.first?.string == "plain" else {
            return call.makeErrorReply(DBusError(.notSupported, "plain only"))
        }
        return call.makeReply([.variant(.string("")), .objectPath("/org/freedesktop/secrets/session/1")])
    }
}
