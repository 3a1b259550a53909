// SPDX-License-Identifier: Apache-2.0
// The connection's limit on incoming bodies: measured before decoding, refused with a D-Bus error, link kept.

@testable import DBusTransport
import DBusWire
import SecretServiceTestSupport
import Testing

@Suite("Incoming size limit", .timeLimit(.minutes(1)))
struct SizeLimitTests {
    static func measure(_ body: [DBusValue]) throws -> Int {
        let message = Message.methodCall(destination: nil, path: "/o", interface: nil, member: "M", body: body)
        let encoded = try MessageEncoder.encode(message)
        return withExtendedLifetime(encoded) { MessageBodySize.of(encoded.pointer, limit: .max) }
    }

    @Test("bodies are measured from the wire form: arrays by their length prefix, the rest value by value")
    func measuring() throws {
        #expect(try Self.measure([]) == 0)
        #expect(try Self.measure([.bytes(Array(repeating: 1, count: 1000))]) == 1004)
        #expect(try Self.measure([.array(.int32, Array(repeating: .int32(7), count: 250))]) == 1004)
        #expect(try Self.measure([.string("abc"), .byte(1), .uint64(2)]) == 8 + 1 + 8)
        #expect(try Self.measure([.variant(.structure([.int16(1), .objectPath("/a")]))]) == 3 + 2 + 7)
        #expect(try Self.measure([.signature("a{sv}"), .boolean(true)]) == 7 + 4)
    }

    @Test("measuring stops once the limit is passed")
    func measuringStopsAtTheLimit() throws {
        let message = Message.methodCall(destination: nil, path: "/o", interface: nil, member: "M",
                                         body: Array(repeating: .bytes(Array(repeating: 0, count: 100)), count: 50))
        let encoded = try MessageEncoder.encode(message)
        withExtendedLifetime(encoded) {
            #expect(MessageBodySize.of(encoded.pointer, limit: .max) == 50 * 104)
            #expect(MessageBodySize.of(encoded.pointer, limit: 300) == 3 * 104)
        }
    }

    @Test("the default limit is the protocol's, and the limit can be changed")
    func defaultAndSetting() async throws {
        try await TestBus.withPrivateBus { bus in
            let connection = try await bus.connect()
            #expect(await connection.maximumIncomingBodySize == 128 << 20)
            await connection.setMaximumIncomingBodySize(4096)
            #expect(await connection.maximumIncomingBodySize == 4096)
            await connection.setMaximumIncomingBodySize(-1)
            #expect(await connection.maximumIncomingBodySize == 0)
        }
    }

    @Test("a call over the receiver's limit gets LimitsExceeded and never reaches it; both stay connected")
    func oversizedCall() async throws {
        try await TestBus.withPrivateBus { bus in
            let server = try await EchoServer(bus: bus)
            await server.connection.setMaximumIncomingBodySize(1024)
            let client = try await bus.connect()
            do {
                _ = try await client.call(server.call("Echo", [.bytes(Array(repeating: 7, count: 1021))]))
                Issue.record("expected LimitsExceeded")
            } catch let error as DBusError {
                #expect(error.name == .limitsExceeded)
                #expect(error.message.contains("1024 bytes"), "\(error.message)")
            }
            let fits: [DBusValue] = [.bytes(Array(repeating: 7, count: 1020))]
            #expect(try await client.call(server.call("Echo", fits)).body == fits)
            // The oversized call never reached the application: the first call it saw is the one that fits.
            #expect(await server.nextCall()?.body == fits)
            #expect(await server.connection.isConnected)
            #expect(await client.isConnected)
        }
    }

    @Test("a signal over the limit is dropped; a reply over it fails the call")
    func oversizedSignalAndReply() async throws {
        try await TestBus.withPrivateBus { bus in
            let server = try await EchoServer(bus: bus)
            let client = try await bus.connect()
            await client.setMaximumIncomingBodySize(64)
            let big: [DBusValue] = [.string(String(repeating: "x", count: 100))]
            await #expect(throws: TransportError.invalidMessage) { try await client.call(server.call("Echo", big)) }

            try await client.addMatch("type='signal',interface='org.example.Signals'")
            for body in [big, [.string("small")]] {
                try await server.connection.send(.signal(path: "/org/example", interface: "org.example.Signals",
                                                         member: "Changed", body: body))
            }
            let signal = try #require(await firstMessage(client.messages) { $0.interface == "org.example.Signals" })
            #expect(signal.body == [.string("small")])
            #expect(await client.isConnected)
        }
    }
}
