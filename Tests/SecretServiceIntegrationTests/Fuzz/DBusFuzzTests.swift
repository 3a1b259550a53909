// SPDX-License-Identifier: Apache-2.0
// Hostile D-Bus traffic against the cofferd executable: every call answered, valid traffic intact, memory bounded.

import DBusTransport
import DBusWire
import Foundation
import SecretServiceTestSupport
import Testing

@Suite("D-Bus fuzz")
struct DBusFuzzTests {
    /// Hostile connections: several, so other clients' sessions and prompts are in reach of each.
    static let hostileConnections = 3
    /// Calls in flight at once; each batch is generated before it is sent, so a seed replays the same calls.
    static let batchSize = 16
    /// Peak resident memory the daemon may reach under fuzzing. The largest calls are 9 MiB (refused, but decoded
    /// first), several may be in flight, and the run stores secrets; a leak per call blows well past this. A
    /// sanitizer build keeps freed memory in quarantine and needs more: `COFFER_FUZZ_RSS_LIMIT_MIB` raises it.
    static let peakMemoryLimitKiB = (ProcessInfo.processInfo.environment["COFFER_FUZZ_RSS_LIMIT_MIB"]
        .flatMap { Int($0) } ?? 512) << 10

    @Test("seeded hostile calls to every member: every call answered, valid traffic intact, memory bounded")
    func fuzz() async throws {
        let settings = FuzzSettings.fromEnvironment()
        print("fuzz seed: \(settings.seed) (replay with COFFER_FUZZ_SEED=\(settings.seed)); calls: \(settings.calls)")
        try await TestBus.withPrivateBus { bus in
            let harness = try await DaemonHarness.start(.subprocess, on: bus)
            let pid = try #require(harness.processID)
            do {
                try await run(settings, bus: bus, harness: harness, pid: pid)
            } catch {
                Issue.record("\(error) (seed \(settings.seed)); daemon log:\n\(harness.log().suffix(4000))")
            }
            await harness.stop()
        }
    }

    private func run(_ settings: FuzzSettings, bus: TestBus, harness: DaemonHarness, pid: Int32) async throws {
        var random = SeededRandom(seed: settings.seed)
        let hostile = try await (0..<Self.hostileConnections).asyncMap { _ in try await bus.connect() }
        let validConnection = try await bus.connect()
        let valid = try await FuzzValidClient.connect(validConnection)
        let descriptor = open("/dev/null", O_RDONLY)
        defer { close(descriptor) }
        var paths = FuzzPaths(excluding: [FuzzValidClient.collection.rawValue,
                                          "/org/freedesktop/secrets/aliases/session"])
        let livePrompt = try await seedObjects(hostile, into: &paths, using: &random)
        try await valid.step()
        try await checkCoverageList(valid: validConnection, validClient: valid,
                                    prompt: (hostile[hostile.count - 1], livePrompt))
        let descriptorsBefore = openDescriptors(of: pid)

        let generator = FuzzCallGenerator(values: FuzzValues(descriptor: UnixFileDescriptor(rawValue: descriptor)),
                                          connections: hostile.count)
        var covered: [String: Int] = [:]
        var errors: [String: Int] = [:]
        var successes = 0
        var detail: [String: Int] = [:]
        var sent = 0
        while sent < settings.calls {
            let batch = (0..<min(Self.batchSize, settings.calls - sent)).map { _ in
                generator.next(paths: paths, using: &random)
            }
            let replies = try await send(batch, over: hostile, alongside: valid)
            for (call, reply) in zip(batch, replies) {
                switch reply {
                case .success(let message):
                    if call.mustFail {
                        let signature = call.body.map(\.type.description).joined()
                        let text = "\(call.interface ?? "-").\(call.member)(\(signature)) on \(call.path) succeeded; "
                            + "seed \(settings.seed)"
                        Issue.record(Comment(rawValue: text))
                    }
                    successes += 1
                    paths.harvest(message.body, owner: call.connection, using: &random)
                case .failure(let error):
                    errors[error.name.rawValue, default: 0] += 1
                    let shortName = error.name.rawValue.split(separator: ".").last ?? ""
                    detail["\(call.member) \(FuzzPaths.kind(of: call.path)) \(shortName)", default: 0] += 1
                    #expect(!Self.deliveryFailures.contains(error.name.rawValue),
                            "\(call.member) on \(call.path) got \(error); seed \(settings.seed)")
                }
                if let key = call.covers { covered[key, default: 0] += 1 }
            }
            sent += batch.count
        }
        try await valid.checkAll()
        #expect(kill(pid, 0) == 0, "cofferd is still running")

        let peak = try memoryFigure("VmHWM", of: pid)
        let descriptorsAfter = openDescriptors(of: pid)
        print("fuzz replies: \(successes) successful; errors by name: \(errors.sorted { $0.key < $1.key })")
        print("fuzz commonest errors: \(detail.sorted { $0.value > $1.value }.prefix(12))")
        print("reliability: fuzz-calls=\(sent)")
        print("reliability: fuzz-seed=\(settings.seed)")
        print("reliability: fuzz-valid-steps=\(await valid.steps)")
        print("reliability: fuzz-peak-rss-kib=\(peak)")
        print("fuzz open descriptors: \(descriptorsBefore) before, \(descriptorsAfter) after")
        print("reliability: fuzz-open-fds=\(descriptorsAfter)")
        for member in FuzzMembers.all {
            #expect(covered[member.key, default: 0] > 0, "\(member.key) was never called")
        }
        #expect(peak < Self.peakMemoryLimitKiB, "peak RSS \(peak) KiB")
        #expect(descriptorsAfter <= descriptorsBefore + 16, "descriptors leak: \(descriptorsBefore) → \(descriptorsAfter)")
        for connection in hostile { await connection.close() }
        await validConnection.close()
    }

    /// Error names that mean the call was not answered by the daemon.
    static let deliveryFailures: Set<String> = [
        "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.ServiceUnknown",
        "org.freedesktop.DBus.Error.Disconnected", "org.freedesktop.DBus.Error.TimedOut",
        "org.freedesktop.DBus.Error.NameHasNoOwner",
    ]

    /// Sends a batch concurrently with one valid step; returns each call's reply or error in batch order.
    /// - Throws: when a call gets no answer at all (a timeout or a dropped connection), or the valid step fails.
    private func send(_ batch: [FuzzCall], over connections: [Connection], alongside valid: FuzzValidClient)
        async throws -> [Result<Message, DBusError>] {
        try await withThrowingTaskGroup(of: (Int, Result<Message, DBusError>)?.self) { group in
            for (index, call) in batch.enumerated() {
                let connection = connections[call.connection]
                group.addTask {
                    do {
                        return (index, .success(try await connection.call(call.message, timeout: .seconds(60))))
                    } catch let error as DBusError {
                        return (index, .failure(error))
                    } catch {
                        let signature = call.body.map(\.type.description).joined()
                        throw FuzzValidClient.Mismatch(description: "\(call.interface ?? "-").\(call.member)"
                            + "(\(signature)) on \(call.path) got no reply: \(error)")
                    }
                }
            }
            group.addTask {
                try await valid.step()
                return nil
            }
            var replies = [Result<Message, DBusError>?](repeating: nil, count: batch.count)
            for try await case let (index, reply)? in group { replies[index] = reply }
            return replies.map { $0! }
        }
    }

    /// Gives each hostile client sessions and prompts of its own, then closes one session and dismisses one prompt,
    /// so the pool holds live, foreign, closed and completed objects from the start.
    /// - Returns: the last client's prompt, still pending.
    private func seedObjects(_ connections: [Connection], into paths: inout FuzzPaths,
                             using random: inout SeededRandom) async throws -> ObjectPath {
        let service = FuzzValidClient.service
        var prompt: ObjectPath = "/"
        for (index, connection) in connections.enumerated() {
            for _ in 0..<2 {
                let session = try await FuzzValidClient.call(connection, service, FuzzMembers.service, "OpenSession",
                                                             [.string("plain"), .variant(.string(""))])
                paths.harvest(session, owner: index, using: &random)
            }
            let created = try await FuzzValidClient.call(
                connection, service, FuzzMembers.service, "CreateCollection",
                [.variantDictionary(["org.freedesktop.Secret.Collection.Label": .string("fuzz")]), .string("")])
            paths.harvest(created, owner: index, using: &random)
            prompt = created.last?.objectPath ?? "/"
            let items = try await FuzzValidClient.call(connection, service, FuzzMembers.service, "SearchItems",
                                                       [.stringDictionary([:])])
            paths.harvest(items, using: &random)
        }
        let first = connections[0]
        if let session = paths.byKind[.session]?.first(where: { !FuzzPaths.nowhere.contains($0) }) {
            _ = try? await FuzzValidClient.call(first, session, FuzzMembers.session, "Close")
        }
        if let prompt = paths.byKind[.prompt]?.first(where: { !FuzzPaths.nowhere.contains($0) }) {
            _ = try? await FuzzValidClient.call(first, prompt, FuzzMembers.prompt, "Dismiss")
        }
        for path: ObjectPath in ["/org/freedesktop/secrets", "/org/freedesktop/secrets/collection/login",
                                 "/org/freedesktop/secrets/aliases/default"] {
            paths.add(path, using: &random)
        }
        return prompt
    }

    /// The member list must name exactly what the daemon declares on each kind of object, so coverage is real.
    /// Sessions and prompts are visible only to their owner, so each object is introspected by its owner.
    private func checkCoverageList(valid: Connection, validClient: FuzzValidClient,
                                   prompt: (Connection, ObjectPath)) async throws {
        var declared: Set<String> = []
        let objects: [(Connection, ObjectPath?)] = [
            (valid, FuzzValidClient.service), (valid, FuzzValidClient.collection),
            (valid, await validClient.itemPaths.first), (valid, await validClient.sessionPath), (prompt.0, prompt.1),
            (valid, FuzzMembers.portalPath),
        ]
        for case let (connection, path?) in objects {
            let xml = try await FuzzValidClient.call(connection, path, FuzzMembers.introspectable, "Introspect")
            declared.formUnion(FuzzMembers.declaredMethods(in: xml.first?.string ?? ""))
        }
        #expect(declared == Set(FuzzMembers.all.map(\.key)),
                "fuzzed members differ from the declared ones: \(declared.symmetricDifference(FuzzMembers.all.map(\.key)))")
    }

    // MARK: - /proc

    private func memoryFigure(_ field: String, of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("\(field):") })
        return try #require(Int(line.split(whereSeparator: \.isWhitespace)[1]))
    }

    private func openDescriptors(of pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }
}

extension Range where Bound == Int {
    /// Runs `transform` for each number in turn.
    func asyncMap<T>(_ transform: (Int) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for value in self { results.append(try await transform(value)) }
        return results
    }
}
