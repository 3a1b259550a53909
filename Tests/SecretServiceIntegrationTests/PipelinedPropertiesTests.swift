// SPDX-License-Identifier: Apache-2.0
// The client reads many items' properties with every GetAll in flight at once: a stand-in provider that answers
// only once all of them have arrived proves it.

import DBusTransport
import DBusWire
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Testing

/// A connection that owns `org.freedesktop.secrets`, answers `OpenSession(plain)`, and holds every `GetAll` reply
/// until `expected` calls are waiting: a client that awaits each reply before sending the next call never gets one.
/// An item whose path ends in `gone` is answered with `NoSuchObject`, as for an item deleted meanwhile.
private struct HeldRepliesProvider {
    let server: Task<Void, Never>

    static func start(on bus: TestBus, expected: Int) async throws -> HeldRepliesProvider {
        let connection = try await StandInService.claimSecretService(on: bus)
        let server = StandInService.run(on: connection) {
            var held: [Message] = []
            for await call in connection.messages where call.kind == .methodCall {
                switch call.member?.rawValue {
                case "OpenSession":
                    _ = try? await connection.send(StandInService.openSessionReply(to: call))
                case "GetAll":
                    held.append(call)
                    guard held.count == expected else { continue }
                    for call in held {
                        let label = call.path?.rawValue ?? ""
                        if label.hasSuffix("/gone") {
                            _ = try? await connection.send(call.makeErrorReply(
                                SecretServiceError.noSuchObject("deleted meanwhile").dbusError))
                            continue
                        }
                        _ = try? await connection.send(call.makeReply([.variantDictionary([
                            "Label": .string(label), "Attributes": .stringDictionary(["path": label]),
                            "Created": .uint64(1), "Modified": .uint64(2), "Locked": .boolean(false),
                        ])]))
                    }
                    held.removeAll()
                default:
                    _ = try? await connection.send(call.makeErrorReply(DBusError(.unknownMethod, "not scripted")))
                }
            }
        }
        return HeldRepliesProvider(server: server)
    }
}

@Suite("Pipelined item properties", .timeLimit(.minutes(1)))
struct PipelinedPropertiesTests {
    @Test("the properties of 50 items are requested all at once and come back in the order asked")
    func allInFlight() async throws {
        _ = try await TestBus.withPrivateBus { bus in
            let paths = (0..<50).map { ObjectPath("/org/freedesktop/secrets/collection/c/\($0)")! }
            let provider = try await HeldRepliesProvider.start(on: bus, expected: paths.count)
            let client = try await SecretService.connect(address: bus.address, algorithm: .plain)
            let results = try await withDeadline(.seconds(45), waitingFor: "50 GetAll replies") {
                await withTaskExecutorPreference(client.connection.taskExecutor) {
                    await client.itemProperties(of: paths)
                }
            }
            #expect(try results.map { try $0.get().label } == paths.map(\.rawValue))
            #expect(try results.map { try $0.get().attributes["path"] } == paths.map(\.rawValue))
            await client.close()
            provider.server.cancel()
        }
    }

    @Test("an item deleted meanwhile fails alone; the others still arrive")
    func failureStaysWithItsItem() async throws {
        _ = try await TestBus.withPrivateBus { bus in
            let paths = ["0", "gone", "2"].map { ObjectPath("/org/freedesktop/secrets/collection/c/\($0)")! }
            let provider = try await HeldRepliesProvider.start(on: bus, expected: paths.count)
            let client = try await SecretService.connect(address: bus.address, algorithm: .plain)
            let results = try await withDeadline(.seconds(45), waitingFor: "3 GetAll replies") {
                await withTaskExecutorPreference(client.connection.taskExecutor) {
                    await client.itemProperties(of: paths)
                }
            }
            #expect(try results[0].get().label == paths[0].rawValue)
            #expect(throws: SecretServiceError.self) { try results[1].get() }
            #expect(try results[2].get().label == paths[2].rawValue)
            await client.close()
            provider.server.cancel()
        }
    }
}
