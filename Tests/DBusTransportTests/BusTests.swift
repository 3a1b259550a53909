// SPDX-License-Identifier: Apache-2.0
// Signals, match rules, names and connection lifecycle on a private bus.

import DBusTransport
import DBusWire
import Glibc
import SecretServiceTestSupport
import Testing

@Suite("Bus", .timeLimit(.minutes(1)))
struct BusTests {
    @Test func uniqueNamesAreAssigned() async throws {
        try await TestBus.withPrivateBus { bus in
            let first = try await bus.connect()
            let second = try await bus.connect()
            #expect(first.uniqueName.isUnique && second.uniqueName.isUnique)
            #expect(first.uniqueName != second.uniqueName)
            #expect(await first.isConnected)
            #expect(try await first.nameOwner(of: second.uniqueName) == second.uniqueName)
        }
    }

    @Test func signalArrivesAfterAddMatch() async throws {
        try await TestBus.withPrivateBus { bus in
            let listener = try await bus.connect()
            let emitter = try await bus.connect()
            let rule = "type='signal',interface='org.example.Signals'"
            try await listener.addMatch(rule)
            let body: [DBusValue] = [.string("hello"), .variantDictionary(["count": .uint32(3)])]
            try await emitter.send(.signal(path: "/org/example", interface: "org.example.Signals", member: "Changed",
                                           body: body))
            let signal = try #require(await firstMessage(listener.messages) { $0.interface == "org.example.Signals" })
            #expect(signal.kind == .signal)
            #expect(signal.member == "Changed")
            #expect(signal.path == "/org/example")
            #expect(signal.sender == emitter.uniqueName)
            #expect(signal.body == body)
            try await listener.removeMatch(rule)
            await #expect(throws: DBusError.self) { try await listener.removeMatch(rule) }
        }
    }

    @Test func nameOwnerChangedWhenAConnectionCloses() async throws {
        try await TestBus.withPrivateBus { bus in
            let observer = try await bus.connect()
            let third = try await bus.connect()
            let name = third.uniqueName.rawValue
            try await observer.addMatch(
                "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(name)'")
            await third.close()
            let signal = try #require(await firstMessage(observer.messages) { $0.member == "NameOwnerChanged" })
            #expect(signal.body == [.string(name), .string(name), .string("")])
            #expect(try await observer.nameOwner(of: third.uniqueName) == nil)
        }
    }

    @Test func requestNameFlows() async throws {
        try await TestBus.withPrivateBus { bus in
            let first = try await bus.connect()
            let second = try await bus.connect()
            let name: BusName = "org.example.Coffer"
            #expect(try await first.requestName(name, flags: [.allowReplacement, .doNotQueue]) == .primaryOwner)
            #expect(try await first.requestName(name, flags: [.allowReplacement, .doNotQueue]) == .alreadyOwner)
            #expect(try await second.requestName(name, flags: .doNotQueue) == .exists)
            #expect(try await second.requestName(name, flags: []) == .inQueue)
            #expect(try await first.nameOwner(of: name) == first.uniqueName)
            #expect(try await second.requestName(name, flags: .replaceExisting) == .primaryOwner)
            #expect(try await first.nameOwner(of: name) == second.uniqueName)
            let lost = await firstMessage(first.messages) { $0.member == "NameLost" }
            #expect(lost?.body == [.string(name.rawValue)])
            try await second.releaseName(name)
            #expect(try await first.nameOwner(of: name) == nil)
            #expect(try await first.nameOwner(of: "org.example.Nobody") == nil)
        }
    }

    @Test func processIDOfAPeer() async throws {
        try await TestBus.withPrivateBus { bus in
            let first = try await bus.connect()
            let second = try await bus.connect()
            #expect(try await first.processID(of: second.uniqueName) == UInt32(getpid()))
            #expect(try await first.processID(of: "org.example.Nobody") == nil)
        }
    }

    @Test func registeringTheSamePathTwiceFails() async throws {
        try await TestBus.withPrivateBus { bus in
            let connection = try await bus.connect()
            try await connection.registerObjectTree(at: "/org/example")
            await #expect(throws: TransportError.objectPathInUse) {
                try await connection.registerObjectTree(at: "/org/example")
            }
            await connection.unregisterObjectTree(at: "/org/example")
            try await connection.registerObjectTree(at: "/org/example")
        }
    }

    @Test func closeFinishesMessagesAndFailsPendingCalls() async throws {
        try await TestBus.withPrivateBus { bus in
            let server = try await EchoServer(bus: bus)
            let client = try await bus.connect()
            let call = server.call("Ignore")
            let pending = Task { try await client.call(call) }
            #expect(await server.nextCall()?.member == "Ignore")
            await client.close()
            await client.close()
            for await _ in client.messages {}
            #expect(await client.isConnected == false)
            await #expect(throws: TransportError.disconnected) { try await pending.value }
            await #expect(throws: TransportError.disconnected) { try await client.send(call) }
            await #expect(throws: TransportError.disconnected) { try await client.call(call) }
        }
    }

    @Test("finishMessages ends delivery, later calls get UnknownMethod, and the connection stays up")
    func finishMessagesKeepsTheConnection() async throws {
        try await TestBus.withPrivateBus { bus in
            let server = try await EchoServer(bus: bus)
            let client = try await bus.connect()
            #expect(try await client.call(server.call("Echo", [.int32(1)])).body == [.int32(1)])
            server.connection.finishMessages()
            for await _ in server.received {}
            do {
                _ = try await client.call(server.call("Echo", [.int32(2)]))
                Issue.record("a call was answered after finishMessages")
            } catch let error as DBusError {
                #expect(error.name == .unknownMethod)
            }
            #expect(await server.connection.isConnected)
            #expect(try await server.connection.nameOwner(of: client.uniqueName) == client.uniqueName)
            try await server.connection.send(.signal(path: "/org/example", interface: "org.example.Signals",
                                                     member: "StillSending", body: []))
        }
    }

    @Test func messagesFinishWhenTheBusGoesAway() async throws {
        let bus = try TestBus()
        let server = try await EchoServer(bus: bus)
        let client = try await bus.connect()
        let call = server.call("Ignore")
        let pending = Task { try await client.call(call) }
        #expect(await server.nextCall()?.member == "Ignore")
        bus.stop()
        for await _ in client.messages {}
        for await _ in server.received {}
        #expect(await client.isConnected == false)
        await #expect(throws: TransportError.disconnected) { try await pending.value }
        await #expect(throws: TransportError.disconnected) { try await client.send(call) }
    }

    @Test func connectFailures() async throws {
        await #expect(throws: TransportError.invalidAddress) { try await Connection.connect(address: "nonsense") }
        await #expect(throws: TransportError.connectionFailed) {
            try await Connection.connect(address: "unix:path=/nonexistent/coffer/bus")
        }
    }

    @Test func deinitClosesTheConnection() async throws {
        try await TestBus.withPrivateBus { bus in
            let observer = try await bus.connect()
            var temporary: Connection? = try await bus.connect()
            let name = try #require(temporary?.uniqueName)
            try await observer.addMatch(
                "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(name)'")
            temporary = nil
            let signal = try #require(await firstMessage(observer.messages) { $0.member == "NameOwnerChanged" })
            #expect(signal.body.last == .string(""))
        }
    }
}
