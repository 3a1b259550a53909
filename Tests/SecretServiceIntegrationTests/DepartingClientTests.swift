// SPDX-License-Identifier: Apache-2.0
// Clients that call and leave the bus at once: nothing they made stays behind, and other clients are served.

import DBusTransport
import DBusWire
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

@Suite("Clients that leave at once", .timeLimit(.minutes(3)))
struct DepartingClientTests {
    static let login: ObjectPath = "/org/freedesktop/secrets/collection/login"

    /// The child node names of `path`, as cofferd lists them.
    static func children(of path: ObjectPath, asking connection: Connection) async throws -> [String] {
        let call = Message.methodCall(destination: SecretServiceNames.busName, path: path,
                                      interface: SecretServiceNames.introspectableInterface, member: "Introspect",
                                      body: [])
        let xml = try #require(try await connection.call(call).body.first?.string)
        return xml.split(separator: "<node name=\"").dropFirst().compactMap { $0.split(separator: "\"").first }
            .map(String.init)
    }

    /// More rounds than the daemon-wide prompt cap (docs/DAEMON.md, "Limits"), which each round used to fill by one.
    static let rounds = 1_100

    @Test("clients that send OpenSession and Unlock and leave at once leave nothing behind; others are served")
    func nothingLeftBehind() async throws {
        try await withCofferd { env, daemon in
            let bus = env.bus
            let honest = try await SecretService.connect(address: bus.address)
            // Unlock makes a prompt only for a locked collection.
            _ = try await honest.lock([Self.login])
            for _ in 0..<Self.rounds {
                let client = try await Connection.connect(address: bus.address)
                for (member, body) in [("OpenSession", [DBusValue.string("plain"), .variant(.string(""))]),
                                       ("Unlock", [.objectPaths([Self.login])])] as [(MemberName, [DBusValue])] {
                    try await client.send(.methodCall(destination: SecretServiceNames.busName,
                                                      path: SecretServiceNames.servicePath,
                                                      interface: SecretServiceNames.serviceInterface,
                                                      member: member, body: body))
                }
                await client.close()  // Sends what is queued, then leaves without waiting for the replies.
            }
            // cofferd handles the departures and the calls concurrently; ask until it has finished with them.
            let own = honest.session.path.rawValue.split(separator: "/").last.map(String.init)
            let sessions = "/org/freedesktop/secrets/session" as ObjectPath
            let connection = honest.connection
            let left = try await withDeadline(.seconds(30), waitingFor: "cofferd to drop what departed clients made") {
                while true {
                    let top = try await Self.children(of: SecretServiceNames.servicePath, asking: connection)
                    let open = try await Self.children(of: sessions, asking: connection)
                    if !top.contains("prompt") && open == [own].compactMap({ $0 }) { return (top, open) }
                    try Task.checkCancellation()
                }
            }
            #expect(!left.0.contains("prompt"))
            let unlock = try await ServiceProxy(connection: honest.connection).unlock([Self.login])
            #expect(unlock.prompt != .root, "login is locked, so unlocking it needs a prompt")
            let extra = try await honest.openSession(preferring: .dh)
            #expect(extra.algorithm == .dh)
            await honest.close()
        }
    }
}
