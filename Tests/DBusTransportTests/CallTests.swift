// SPDX-License-Identifier: Apache-2.0
// Method calls between two connections on a private bus: replies, errors, timeouts, cancellation, load.

import DBusTransport
import DBusWire
import Glibc
import SecretServiceTestSupport
import Testing

@Suite("Calls", .timeLimit(.minutes(1)))
struct CallTests {
    @Test func replyBodyMatches() async throws {
        try await TestBus.withPrivateBus { bus in
            let server = try await EchoServer(bus: bus)
            let client = try await bus.connect()
            let body: [DBusValue] = [
                .string("grüße"), .bytes(Array(0...255)),
                .variantDictionary(["n": .int64(.min), "b": .boolean(true)]),
                .array(.structure([.objectPath, .string]), []), .variant(.variant(.uint64(.max))),
            ]
            let reply = try await client.call(server.call("Echo", path: "/org/example/deeper/item", body))
            #expect(reply.kind == .methodReturn)
            #expect(reply.body == body)
            #expect(reply.sender == server.uniqueName)
            #expect(reply.destination == client.uniqueName)

            let seen = try #require(await server.nextCall())
            #expect(seen.path == "/org/example/deeper/item")
            #expect(seen.interface == EchoServer.interface)
            #expect(seen.member == "Echo")
            #expect(seen.sender == client.uniqueName)
            #expect(seen.destination == server.uniqueName)
            #expect(reply.replySerial == seen.serial)
            await client.close()
            await server.close()
        }
    }

    @Test func errorReplyIsThrownAsDBusError() async throws {
        try await TestBus.withPrivateBus { bus in
            let server = try await EchoServer(bus: bus)
            let client = try await bus.connect()
            await #expect(throws: DBusError(EchoServer.failure, "it failed")) {
                try await client.call(server.call("Fail"))
            }
        }
    }

    @Test func unregisteredPathIsAnsweredByLibDBus() async throws {
        try await TestBus.withPrivateBus { bus in
            let server = try await EchoServer(bus: bus)
            let client = try await bus.connect()
            do {
                _ = try await client.call(server.call("Echo", path: "/org/elsewhere"))
                Issue.record("expected an error reply")
            } catch let error as DBusError {
                #expect([ErrorName.unknownObject, .unknownMethod].contains(error.name))
            }
        }
    }

    @Test func libdbusAnswersPeerAndParentIntrospection() async throws {
        try await TestBus.withPrivateBus { bus in
            let server = try await EchoServer(bus: bus)
            let client = try await bus.connect()
            let ping = try await client.call(.methodCall(destination: server.uniqueName, path: "/org/example/x",
                                                         interface: "org.freedesktop.DBus.Peer", member: "Ping"))
            #expect(ping.body.isEmpty)
            let introspection = try await client.call(.methodCall(
                destination: server.uniqueName, path: "/org", interface: "org.freedesktop.DBus.Introspectable",
                member: "Introspect"))
            #expect(introspection.body.first?.string?.contains("<node name=\"example\"/>") == true)
        }
    }

    @Test func callWithNoReplyExpected() async throws {
        try await TestBus.withPrivateBus { bus in
            let server = try await EchoServer(bus: bus)
            let client = try await bus.connect()
            var message = server.call("Record", [.string("fire and forget")])
            message.noReplyExpected = true
            let serial = try await client.send(message)
            #expect(serial != 0)
            let seen = try #require(await server.nextCall())
            #expect(seen.noReplyExpected)
            #expect(seen.serial == serial)
            #expect(seen.body == [.string("fire and forget")])
        }
    }

    @Test func timeoutFires() async throws {
        try await TestBus.withPrivateBus { bus in
            let server = try await EchoServer(bus: bus)
            let client = try await bus.connect()
            let start = ContinuousClock.now
            await #expect(throws: TransportError.timedOut) {
                try await client.call(server.call("Ignore"), timeout: .milliseconds(200))
            }
            #expect(start.duration(to: .now) >= .milliseconds(190))
            #expect(try await client.call(server.call("Echo", [.int32(1)])).body == [.int32(1)])
        }
    }

    @Test func cancellingAnInFlightCall() async throws {
        try await TestBus.withPrivateBus { bus in
            let server = try await EchoServer(bus: bus)
            let client = try await bus.connect()
            let call = server.call("Ignore")
            let task = Task { try await client.call(call, timeout: .seconds(50)) }
            #expect(await server.nextCall()?.member == "Ignore")
            task.cancel()
            await #expect(throws: TransportError.cancelled) { try await task.value }
            #expect(try await client.call(server.call("Echo", [.int32(2)])).body == [.int32(2)])
        }
    }

    @Test func callInAnAlreadyCancelledTask() async throws {
        try await TestBus.withPrivateBus { bus in
            let server = try await EchoServer(bus: bus)
            let client = try await bus.connect()
            let call = server.call("Echo")
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await client.call(call)
            }
            await #expect(throws: TransportError.cancelled) { try await task.value }
        }
    }

    @Test func twoHundredConcurrentCalls() async throws {
        try await TestBus.withPrivateBus { bus in
            let server = try await EchoServer(bus: bus)
            let client = try await bus.connect()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<200 {
                    let call = server.call("Echo", [.int32(Int32(index)), .string("call \(index)")])
                    // The calls run where the connection does, so the test measures the transport, not how busy
                    // the shared pool is with other suites.
                    group.addTask(executorPreference: client.taskExecutor) {
                        let reply = try await client.call(call)
                        #expect(reply.body == [.int32(Int32(index)), .string("call \(index)")])
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    @Test("a loop that always has queued work still reads and answers its socket")
    func busyLoopStillServesIO() async throws {
        try await TestBus.withPrivateBus { bus in
            let server = try await EchoServer(bus: bus)
            let client = try await bus.connect()
            // A task that re-enqueues itself on the server's loop without end: the loop never runs out of jobs, so
            // only its periodic poll between busy turns lets the calls in.
            let spinner = Task(executorPreference: server.connection.taskExecutor) {
                var turns = 0
                while !Task.isCancelled {
                    await Task.yield()
                    turns += 1
                }
                return turns
            }
            // The calls run on the client's own loop: the spinner takes a core, and a test body waiting its turn on
            // the cooperative pool (which every other suite shares) would measure that pool, not this loop.
            try await withTaskExecutorPreference(client.taskExecutor) {
                for index in 0..<20 {
                    let reply = try await client.call(server.call("Echo", [.int32(Int32(index))]))
                    #expect(reply.body == [.int32(Int32(index))])
                }
            }
            spinner.cancel()
            #expect(await spinner.value > 0)
            await client.close()
            await server.close()
        }
    }

    @Test("background-priority work on a loop runs after the other work queued with it")
    func backgroundJobsWait() async throws {
        try await TestBus.withPrivateBus { bus in
            let connection = try await bus.connect()
            let executor = connection.taskExecutor
            let (order, record) = AsyncStream.makeStream(of: String.self)
            // Both tasks are enqueued while this job holds the loop thread; in plain arrival order the background
            // one would run first. Their values are never awaited, which would raise the background task's priority.
            await Task(executorPreference: executor) {
                Task(executorPreference: executor, priority: .background) { record.yield("background") }
                Task(executorPreference: executor, priority: .medium) { record.yield("medium") }
            }.value
            var seen: [String] = []
            for await name in order {
                seen.append(name)
                if seen.count == 2 { break }
            }
            #expect(seen == ["medium", "background"])
            await connection.close()
        }
    }

    @Test func fileDescriptorCrossesTheBus() async throws {
        try await TestBus.withPrivateBus { bus in
            let server = try await EchoServer(bus: bus)
            let client = try await bus.connect()
            var ends: [Int32] = [-1, -1]
            try #require(pipe(&ends) == 0)
            defer { close(ends[0]); close(ends[1]) }
            let reply = try await client.call(server.call("Echo", [.unixFD(UnixFileDescriptor(rawValue: ends[0]))]))
            guard case .unixFD(let received)? = reply.body.first else {
                Issue.record("expected a descriptor, got \(reply.body)")
                return
            }
            defer { close(received.rawValue) }
            #expect(received.rawValue != ends[0])
            #expect(write(ends[1], "ping", 4) == 4)
            var buffer = [UInt8](repeating: 0, count: 4)
            #expect(read(received.rawValue, &buffer, 4) == 4)
            #expect(buffer == Array("ping".utf8))
        }
    }

    @Test func malformedMessageIsRefusedAndTheConnectionSurvives() async throws {
        try await TestBus.withPrivateBus { bus in
            let server = try await EchoServer(bus: bus)
            let client = try await bus.connect()
            await #expect(throws: TransportError.invalidMessage) {
                try await client.call(server.call("Echo", [.string("nul\u{0}")]))
            }
            await #expect(throws: TransportError.invalidMessage) {
                try await client.send(server.call("Echo", [.array(.string, [.int32(1)])]))
            }
            await #expect(throws: TransportError.invalidMessage) {
                try await client.call(server.call("Echo").makeReply())
            }
            #expect(try await client.call(server.call("Echo", [.int32(3)])).body == [.int32(3)])
        }
    }

    @Test("an invalid outgoing message is refused with an error naming the problem, and nothing reaches the peer")
    func invalidOutgoingMessageIsNamed() async throws {
        try await TestBus.withPrivateBus { bus in
            let server = try await EchoServer(bus: bus)
            let client = try await bus.connect()
            let invalid = server.call("Record", [.string("nul\u{0}")])
            let attempts: [@Sendable () async throws -> Void] = [
                { _ = try await client.send(invalid) }, { _ = try await client.call(invalid) },
            ]
            for attempt in attempts {
                do {
                    try await attempt()
                    Issue.record("an invalid message was sent")
                } catch let error as TransportError {
                    #expect(error == .invalidMessage)
                    #expect(error.detail == "a string contains NUL", "\(error)")
                }
            }
            _ = try await client.call(server.call("Echo", [.int32(1)]))
            #expect(await server.nextCall()?.member == "Echo")
        }
    }
}
