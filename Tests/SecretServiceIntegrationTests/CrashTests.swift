// SPDX-License-Identifier: Apache-2.0
// SIGKILLs cofferd at random moments during writes and checks every acknowledged write survives the restart.

import DBusWire
import Foundation
import Glibc
import SecretServiceClient
import SecretServiceTestSupport
import Synchronization
import Testing

@Suite("Crash: SIGKILL during writes", .serialized, .timeLimit(.minutes(5)))
struct CrashTests {
    /// Rounds (one kill each) unless `COFFER_CRASH_ROUNDS` says otherwise.
    static let defaultRounds = 220

    /// Tallies over the whole test.
    struct Tally {
        var killPoints = 0
        var beforeFirstWrite = 0
        var inFlightApplied = 0
        var inFlightLost = 0
        /// In-flight writes that were lost although the file had grown past the last acknowledged write: the kill
        /// cut the record being appended.
        var tornRecords = 0
        var acknowledged = 0
        /// Whether the last kill left the file longer than it was at the last acknowledgement.
        var lastKillGrewFile = false
    }

    @Test("every acknowledged create, update and delete survives a SIGKILL; the write in flight is all or nothing")
    func killDuringWrites() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["COFFER_CRASH_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        let rounds = environment["COFFER_CRASH_ROUNDS"].flatMap { Int($0) } ?? Self.defaultRounds
        print("crash test: seed \(seed) (replay with COFFER_CRASH_SEED=\(seed)), \(rounds) rounds")
        var rng = SplitMix64(seed: seed)
        var model = CrashModel()
        var tally = Tally()
        let started = ContinuousClock.now
        var completed = false

        try await withDaemonSequence { daemons in
            // Instances alternate between two names, so the killed one's log is still there when its successor
            // finds a problem.
            func logName(_ round: Int) -> String { "crash-\(round % 2)" }
            for round in 0..<rounds {
                let context = "seed \(seed), round \(round)"
                let daemon = try await daemons.start(DaemonSequence.options(logName(round)))
                let previousLog = daemons.bus.directory.appendingPathComponent("\(logName(round + 1)).log")
                let ok = try await withClient(on: daemons.bus) { client in
                    guard try await verify(&model, client: client, daemon: daemon, round: round, tally: &tally,
                                           context: context, previousLog: round > 0 ? previousLog : nil)
                    else { return false }
                    try await writeUntilKilled(&model, client: client, daemon: daemon, rng: &rng, tally: &tally,
                                               context: context)
                    return true
                }
                guard ok else { return }
            }
            // A last start checks the last round's writes, then a clean stop.
            let daemon = try await daemons.start(DaemonSequence.options("crash-final"))
            let lastLog = daemons.bus.directory.appendingPathComponent("\(logName(rounds - 1)).log")
            completed = try await withClient(on: daemons.bus) { client in
                try await verify(&model, client: client, daemon: daemon, round: rounds, tally: &tally,
                                 context: "seed \(seed), final check", previousLog: lastLog)
            }
            await daemons.stop()
        }

        let elapsed = ContinuousClock.now - started
        print("crash test: \(tally.killPoints) kill points in \(elapsed) (seed \(seed)): "
            + "\(tally.acknowledged) acknowledged writes; in-flight writes found applied \(tally.inFlightApplied), "
            + "lost \(tally.inFlightLost) (\(tally.tornRecords) of them cut mid-append); "
            + "\(tally.beforeFirstWrite) kills before a round's first write")
        if completed { #expect(tally.killPoints == rounds) }
    }

    // MARK: - One round

    /// Reads everything cofferd serves after a restart and reconciles it with the model.
    /// - Returns: whether the state is consistent (otherwise the issues are recorded).
    private func verify(_ model: inout CrashModel, client: SecretService, daemon: DaemonHarness, round: Int,
                        tally: inout Tally, context: String, previousLog: URL?) async throws -> Bool {
        // A search waits for the --unlock, which runs once the name is claimed: its outcome is in the log after it.
        _ = try await client.searchItems([:])
        let log = daemon.log()
        for bad in ["unavailable", "failed verification", "does not unlock"] where log.contains(bad) {
            Issue.record("\(context): the log reports '\(bad)':\n\(log)")
            return false
        }
        if round > 0 && log.contains("created the login collection") {
            Issue.record("\(context): the login collection was created again:\n\(log)")
            return false
        }
        let (unlocked, locked) = try await client.searchItems(["crash": "1"])
        guard locked.isEmpty else {
            Issue.record("\(context): \(locked.count) items are locked after --unlock")
            return false
        }
        let secrets = try await client.secrets(of: unlocked)
        var found: [String: (path: ObjectPath, secret: String)] = [:]
        var problems: [String] = []
        for path in unlocked {
            guard let secret = secrets[path]?.text, let id = CrashModel.id(of: secret) else {
                problems.append("\(path) has no readable secret")
                continue
            }
            if found[id] != nil { problems.append("two items claim \(id)") }
            found[id] = (path, secret)
        }
        // Attributes came back too: one item, found by its own attribute.
        if let (id, entry) = found.min(by: { $0.key < $1.key }).map({ ($0.key, $0.value) }) {
            let hit = try await client.searchItems(["crash-id": id])
            if hit.unlocked != [entry.path] { problems.append("searching crash-id=\(id) found \(hit.unlocked)") }
        }
        let pending = model.pending
        let (mismatches, outcome) = model.reconcile(found)
        problems += mismatches
        switch outcome {
        case .applied: tally.inFlightApplied += 1
        case .lost:
            tally.inFlightLost += 1
            if tally.lastKillGrewFile { tally.tornRecords += 1 }
        case .none: break
        }
        guard problems.isEmpty else {
            Issue.record("""
                \(context): after the restart the state differs from the acknowledged writes \
                (in flight: \(pending.map { "\($0)" } ?? "nothing")):
                \(problems.joined(separator: "\n"))
                the killed instance's log ends:
                \(previousLog.flatMap { try? String(contentsOf: $0, encoding: .utf8) }?.suffix(3000) ?? "")
                """)
            return false
        }
        return true
    }

    /// Writes until a concurrent task SIGKILLs the daemon after a random number of acknowledged writes and a
    /// random number of extra yields.
    private func writeUntilKilled(_ model: inout CrashModel, client: SecretService, daemon: DaemonHarness,
                                  rng: inout SplitMix64, tally: inout Tally, context: String) async throws {
        let killAfter = Int.random(in: 0...8, using: &rng)
        // A write takes about 2–20 ms here and a yield about 1 µs: the kill lands anywhere in the next write.
        let extraYields = Int.random(in: 0...8_000, using: &rng)
        let (acks, ackSink) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(1))
        let killIssued = KillFlag()
        let killer = Task {
            if killAfter > 0 {
                for await count in acks where count >= killAfter { break }
            }
            for _ in 0..<extraYields { await Task.yield() }
            killIssued.raise()
            return await daemon.kill()
        }
        let file = daemon.collectionFile("login").path
        var sizeAtLastAck = Self.size(of: file)
        var acknowledged = 0
        while acknowledged < 10_000 {
            let write = model.nextWrite(using: &rng)
            model.pending = write
            let created: ObjectPath?
            do {
                created = try await perform(write, client: client)
            } catch {
                if !killIssued.isRaised {
                    Issue.record("\(context): \(write) failed while cofferd was running: \(error)")
                }
                break
            }
            model.acknowledge(write, createdAt: created)
            model.pending = nil
            acknowledged += 1
            sizeAtLastAck = Self.size(of: file)
            ackSink.yield(acknowledged)
        }
        ackSink.finish()
        let exit = await killer.value
        tally.lastKillGrewFile = Self.size(of: file) > sizeAtLastAck
        #expect(exit == .signalled(SIGKILL), "\(context): cofferd \(exit)")
        tally.killPoints += 1
        tally.acknowledged += acknowledged
        if acknowledged == 0 { tally.beforeFirstWrite += 1 }
    }

    /// The file's size in bytes, or -1 when it does not exist.
    private static func size(of path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? -1
    }

    /// Performs one write; the reply arriving is the acknowledgement.
    /// - Returns: the new item's path for a create.
    private func perform(_ write: CrashWrite, client: SecretService) async throws -> ObjectPath? {
        switch write {
        case .create(let id, let text):
            return try await client.createItem(
                in: DaemonSequence.loginPath, label: "crash \(id)", attributes: ["crash": "1", "crash-id": id],
                secret: secret(text), replace: false)
        case .update(_, let path, let text):
            try await client.setSecret(of: path, to: secret(text))
            return nil
        case .delete(_, let path):
            try await client.deleteItem(path)
            return nil
        }
    }
}

/// Set just before the SIGKILL, so a write failing earlier is known to be a daemon error, not the kill.
private final class KillFlag: Sendable {
    private let flag = Atomic(false)
    func raise() { flag.store(true, ordering: .sequentiallyConsistent) }
    var isRaised: Bool { flag.load(ordering: .sequentiallyConsistent) }
}
