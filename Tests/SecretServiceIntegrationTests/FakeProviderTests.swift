// SPDX-License-Identifier: Apache-2.0
// The client's prompt handling against a scripted stand-in provider: vanishing providers and spoofed signals.

import DBusTransport
import DBusWire
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

/// A connection that owns `org.freedesktop.secrets` and answers only `OpenSession(plain)` and `Prompt()`.
private struct FakeProvider {
    let connection: Connection
    /// Yields once per `Prompt()` call, after the reply went out.
    let prompted: AsyncStream<Void>
    let server: Task<Void, Never>

    static let promptPath: ObjectPath = "/org/freedesktop/secrets/prompt/1"

    /// - Parameter closeAfterPrompt: leave the bus right after answering `Prompt()`.
    static func start(on bus: TestBus, closeAfterPrompt: Bool) async throws -> FakeProvider {
        let connection = try await StandInService.claimSecretService(on: bus)
        let (prompted, promptedSink) = AsyncStream.makeStream(of: Void.self)
        let server = StandInService.run(on: connection) {
            for await call in connection.messages where call.kind == .methodCall {
                switch call.member?.rawValue {
                case "OpenSession":
                    _ = try? await connection.send(StandInService.openSessionReply(to: call))
                case "Prompt":
                    _ = try? await connection.send(call.makeReply())
                    promptedSink.yield()
                    if closeAfterPrompt {
                        await connection.close()
                        return
                    }
                default:
                    _ = try? await connection.send(call.makeErrorReply(DBusError(.unknownMethod, "not scripted")))
                }
            }
        }
        return FakeProvider(connection: connection, prompted: prompted, server: server)
    }
}

@Suite("Prompts against a scripted provider", .timeLimit(.minutes(1)))
struct FakeProviderTests {
    @Test("the provider leaving the bus while a prompt shows is reported as providerVanished")
    func providerVanishes() async throws {
        _ = try await TestBus.withPrivateBus { bus in
            let fake = try await FakeProvider.start(on: bus, closeAfterPrompt: true)
            let client = try await SecretService.connect(address: bus.address, algorithm: .plain)
            await #expect(throws: SecretServiceClientError.providerVanished) {
                _ = try await client.runPrompt(FakeProvider.promptPath)
            }
            await client.close()
            _ = await fake.server.value
        }
    }

    @Test("a Completed signal from anyone but the provider is ignored")
    func spoofedCompletedIsIgnored() async throws {
        _ = try await TestBus.withPrivateBus { bus in
            let fake = try await FakeProvider.start(on: bus, closeAfterPrompt: false)
            let client = try await SecretService.connect(address: bus.address, algorithm: .plain)
            let running = Task { try await client.runPrompt(FakeProvider.promptPath) }
            var prompted = fake.prompted.makeAsyncIterator()
            await prompted.next()

            // An impostor claims the prompt was dismissed; the Ping round trip makes sure the client's connection
            // has taken the impostor's signal in before the genuine one is sent.
            let impostor = try await bus.connect()
            try await impostor.send(.signal(
                path: FakeProvider.promptPath, interface: SecretServiceNames.promptInterface, member: "Completed",
                body: [.boolean(true), .variant(.string(""))], destination: client.connection.uniqueName))
            _ = try await impostor.call(.methodCall(
                destination: client.connection.uniqueName, path: "/", interface: SecretServiceNames.peerInterface,
                member: "Ping"))
            await impostor.close()

            let created: ObjectPath = "/org/freedesktop/secrets/collection/fake"
            try await fake.connection.send(.signal(
                path: FakeProvider.promptPath, interface: SecretServiceNames.promptInterface, member: "Completed",
                body: [.boolean(false), .variant(.objectPath(created))], destination: client.connection.uniqueName))
            #expect(try await running.value == .completed(.objectPath(created)))

            await client.close()
            await fake.connection.close()
            _ = await fake.server.value
        }
    }
}
