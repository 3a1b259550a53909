// SPDX-License-Identifier: Apache-2.0
// SIGKILL at ≥1,000 random points of writes, password changes, auto-locks and compactions, in parallel lanes.

import DBusWire
import Foundation
import SecretServiceClient
import SecretServiceProtocol
import SecretServiceTestSupport
import Synchronization
import Testing

/// Each lane is its own bus, HOME and cofferd, started, checked, written to and killed again and again; the lanes run
/// side by side because a round mostly waits on cofferd's start and fsyncs. `COFFER_KILL_POINTS` (default 1,000)
/// sets the number of kills, `COFFER_KILL_LANES` (default 3) the lanes, `COFFER_KILL_SEED` replays a run's plan.
@Suite("Faults: SIGKILL at random points", .timeLimit(.minutes(10)))
struct KillPointTests {
    static let login = DaemonSequence.loginPath

    struct Tally: Sendable {
        var killPoints = 0, acknowledged = 0, applied = 0, lost = 0, beforeFirstWrite = 0
        var compactions = 0, aimedAtCompaction = 0, passwordChanges = 0, autoLocks = 0, killsAfterAutoLock = 0
        var lanesCompleted = 0
        /// Where the time went, summed over lanes: starting cofferd, checking after a restart, writing until killed.
        var startTime = Duration.zero, verifyTime = Duration.zero, writeTime = Duration.zero

        static func + (a: Tally, b: Tally) -> Tally {
            Tally(killPoints: a.killPoints + b.killPoints, acknowledged: a.acknowledged + b.acknowledged,
                  applied: a.applied + b.applied, lost: a.lost + b.lost,
                  beforeFirstWrite: a.beforeFirstWrite + b.beforeFirstWrite, compactions: a.compactions + b.compactions,
                  aimedAtCompaction: a.aimedAtCompaction + b.aimedAtCompaction,
                  passwordChanges: a.passwordChanges + b.passwordChanges, autoLocks: a.autoLocks + b.autoLocks,
                  killsAfterAutoLock: a.killsAfterAutoLock + b.killsAfterAutoLock,
                  lanesCompleted: a.lanesCompleted + b.lanesCompleted, startTime: a.startTime + b.startTime,
                  verifyTime: a.verifyTime + b.verifyTime, writeTime: a.writeTime + b.writeTime)
        }
    }

    @Test("after a SIGKILL anywhere, every acknowledged change is there, the one in flight is all or nothing, every file opens")
    func killAnywhere() async throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["COFFER_KILL_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        let points = environment["COFFER_KILL_POINTS"].flatMap { Int($0) } ?? 1000
        let lanes = max(1, environment["COFFER_KILL_LANES"].flatMap { Int($0) } ?? 3)
        print("kill points: seed \(seed) (replay with COFFER_KILL_SEED=\(seed)), \(points) kills over \(lanes) lanes")
        let started = ContinuousClock.now
        let total = try await withThrowingTaskGroup(of: Tally.self) { group in
            for lane in 0..<lanes {
                let rounds = points / lanes + (lane < points % lanes ? 1 : 0)
                group.addTask { try await KillPointLane(lane: lane, seed: seed).run(rounds: rounds) }
            }
            var total = Tally()
            for try await tally in group { total = total + tally }
            return total
        }
        let seconds = (ContinuousClock.now - started).components.seconds
        print("""
            reliability: kill-points=\(total.killPoints)
            reliability: kill-seed=\(seed)
            reliability: kill-seconds=\(seconds)
            reliability: kill-acknowledged-changes=\(total.acknowledged)
            reliability: kill-in-flight-applied=\(total.applied)
            reliability: kill-in-flight-lost=\(total.lost)
            reliability: kill-before-first-write=\(total.beforeFirstWrite)
            reliability: kill-password-changes=\(total.passwordChanges)
            reliability: kill-compactions=\(total.compactions)
            reliability: kill-aimed-at-compaction=\(total.aimedAtCompaction)
            reliability: kill-auto-locks=\(total.autoLocks)
            reliability: kill-after-auto-lock=\(total.killsAfterAutoLock)
            kill points: time per kill, summed over lanes: start \(total.startTime / max(1, total.killPoints)), \
            check \(total.verifyTime / max(1, total.killPoints)), write and kill \(total.writeTime / max(1, total.killPoints))
            """)
        if total.lanesCompleted == lanes {
            #expect(total.killPoints == points)
            // Each kind of moment was hit, or the figures above would not mean what they say.
            #expect(total.passwordChanges > 0 && total.compactions > 0 && total.autoLocks > 0 || points < 300,
                    "a kind of change was never exercised")
        }
    }
}

/// What the writer tells the task that will kill cofferd.
private enum WriterEvent: Sendable {
    case acknowledged(Int)
    case autoLocked
}

/// One lane: a bus, a model of what was acknowledged, and the rounds of start, check, write, kill.
private struct KillPointLane {
    let lane: Int
    var rng: SplitMix64
    var model: KillPointModel
    var tally = KillPointTests.Tally()
    /// The login file's record count when the last round started, to notice compactions.
    var lastRecords = 0

    init(lane: Int, seed: UInt64) {
        self.lane = lane
        rng = SplitMix64(seed: seed ^ (UInt64(lane + 1) &* 0xA24B_AED4_963E_E407))
        model = KillPointModel(lane: lane, password: DaemonHarness.testLoginPassword)
    }

    /// Lane 0 runs with auto-lock one second after every unlock, so kills also land around automatic locks.
    var autoLocks: Bool { lane == 0 }

    consuming func run(rounds: Int) async throws -> KillPointTests.Tally {
        try await withDaemonSequence { daemons in
            var arguments: [String] = []
            if autoLocks {
                let config = daemons.bus.directory.appendingPathComponent("autolock.conf")
                try Data("[defaults]\nlock-after = 1s\n".utf8).write(to: config)
                arguments = ["--config", config.path]
            }
            // Instances alternate between two log names, so the killed one's log is there for the next one's report.
            func logName(_ round: Int) -> String { "kill-\(lane)-\(round % 2)" }
            for round in 0...rounds {
                // The first start creates login from --unlock; later ones unlock it over D-Bus, trying the password
                // an in-flight change may have set.
                var options = DaemonSequence.options(logName(round), loginPassword: round == 0 ? model.password : nil)
                options.arguments += arguments
                let clock = ContinuousClock()
                var mark = clock.now
                let daemon = try await daemons.start(options)
                tally.startTime += clock.now - mark
                let context = "lane \(lane), round \(round)"
                let previousLog = daemons.bus.directory.appendingPathComponent("\(logName(round + 1)).log")
                let ok = try await withClient(on: daemons.bus) { client in
                    mark = clock.now
                    if round > 0 {
                        guard try await verify(client, daemon: daemon, context: context, previousLog: previousLog)
                        else { return false }
                    }
                    tally.verifyTime += clock.now - mark
                    mark = clock.now
                    if round < rounds {
                        try await writeUntilKilled(client, daemon: daemon, daemons: daemons, context: context)
                    }
                    tally.writeTime += clock.now - mark
                    return true
                }
                guard ok else { return }
            }
            await daemons.stop()
            tally.lanesCompleted = 1
        }
        return tally
    }

    // MARK: - Checking

    /// Unlocks with the acknowledged password (or the one in flight), reads everything back and reconciles.
    private mutating func verify(_ client: SecretService, daemon: DaemonHarness, context: String,
                                 previousLog: URL) async throws -> Bool {
        func killedLog() -> String {
            String(((try? String(contentsOf: previousLog, encoding: .utf8)) ?? "").suffix(3000))
        }
        let log = daemon.log()
        for bad in ["unavailable", "failed verification", "does not unlock"] where log.contains(bad) {
            Issue.record("\(context): the log reports '\(bad)':\n\(log)\nthe killed instance's log ends:\n\(killedLog())")
            return false
        }
        // A password change replaces the key: the password before the last change opens nothing, whatever the
        // moment of the kill (the collection is still locked here: no start unlocks it).
        if let retired = model.retiredPassword, retired != model.pendingPassword,
           try await FaultCalls.unlock(client, KillPointTests.login, password: retired) {
            Issue.record("\(context): the password replaced by an acknowledged change still unlocks login")
            return false
        }
        // Auto-lock may strike between unlocking and reading: then unlock and read again.
        for _ in 0..<5 {
            var used: String?
            for candidate in [model.password] + [model.pendingPassword].compactMap({ $0 })
            where try await FaultCalls.unlock(client, KillPointTests.login, password: candidate) {
                used = candidate
                break
            }
            guard let used else {
                Issue.record("\(context): neither the acknowledged password nor the one in flight unlocks login")
                return false
            }
            let read = try await FaultCalls.readAll(client, matching: model.marker, keyedBy: "kill-id")
            let properties = try await client.collectionProperties(KillPointTests.login)
            guard read.locked == 0, !properties.locked else { continue }
            let pending = model.pending
            var (problems, outcome) = model.reconcile(read.items, paths: read.paths, unlockedWith: used,
                                                      label: properties.label)
            if !read.duplicates.isEmpty { problems.append("items claimed twice: \(read.duplicates)") }
            switch outcome {
            case .applied: tally.applied += 1
            case .lost: tally.lost += 1
            case .none: break
            }
            guard problems.isEmpty else {
                Issue.record("""
                    \(context): after the restart the state differs from the acknowledged changes \
                    (in flight: \(pending.map { "\($0)" } ?? "nothing")):
                    \(problems.joined(separator: "\n"))
                    the killed instance's log ends:
                    \(killedLog())
                    """)
                return false
            }
            return true
        }
        Issue.record("\(context): login kept locking before it could be read")
        return false
    }

    // MARK: - Writing

    /// Writes until a concurrent task SIGKILLs cofferd after a random number of acknowledged changes and a random
    /// number of yields; a round may instead aim at the change that compacts the file, or at an automatic lock.
    private mutating func writeUntilKilled(_ client: SecretService, daemon: DaemonHarness, daemons: DaemonSequence,
                                           context: String) async throws {
        let file = daemons.collectionFile("login")
        let records = (try? Data(contentsOf: file)).flatMap(KillPointModel.recordCount) ?? 0
        if records < lastRecords { tally.compactions += 1 }
        lastRecords = records
        // The change that takes the file past 256 records compacts it (SecretStore.compactIfWorthwhile).
        let aimAtCompaction = records >= 200 && records <= 256
        let aimAtAutoLock = autoLocks && !aimAtCompaction && Int.random(in: 0..<25, using: &rng) == 0
        let killAfter = aimAtCompaction ? 256 - records : aimAtAutoLock ? Int.max : Int.random(in: 0...4, using: &rng)
        // A change takes about 2–20 ms here and a yield about 1 µs: the kill lands anywhere in the next change.
        let extraYields = Int.random(in: 0...(aimAtCompaction ? 2_000 : 8_000), using: &rng)
        if aimAtCompaction { tally.aimedAtCompaction += 1 }

        let (events, eventSink) = AsyncStream.makeStream(of: WriterEvent.self, bufferingPolicy: .unbounded)
        let killIssued = Flag()
        let killer = Task {
            if killAfter > 0 {
                for await event in events {
                    if case .acknowledged(let count) = event, count >= killAfter { break }
                    if case .autoLocked = event, aimAtAutoLock { break }
                }
            }
            for _ in 0..<extraYields { await Task.yield() }
            killIssued.raise()
            return await daemon.kill()
        }
        var acknowledged = 0
        var sawAutoLock = false
        writing: while acknowledged < 100_000 {
            let write = model.pending ?? model.nextWrite(using: &rng)
            model.pending = write
            do {
                let created = try await perform(write, client)
                model.acknowledge(write, createdAt: created)
                acknowledged += 1
                if case .changePassword = write { tally.passwordChanges += 1 }
                eventSink.yield(.acknowledged(acknowledged))
            } catch let error as SecretServiceError where errorName(error) == SecretErrorNames.isLocked
                && autoLocks && !killIssued.isRaised {
                // Auto-lock struck: nothing was written. Unlock and try the same change again.
                tally.autoLocks += 1
                sawAutoLock = true
                eventSink.yield(.autoLocked)
                do {
                    guard try await FaultCalls.unlock(client, KillPointTests.login, password: model.password) else {
                        Issue.record("\(context): the acknowledged password no longer unlocks login")
                        break writing
                    }
                } catch {
                    if !killIssued.isRaised {
                        Issue.record("\(context): unlocking after an auto-lock failed while cofferd ran: \(error)")
                    }
                    break writing
                }
            } catch {
                if !killIssued.isRaised {
                    Issue.record("\(context): \(write) failed while cofferd was running: \(error)")
                }
                break writing
            }
        }
        eventSink.finish()
        let exit = await killer.value
        #expect(exit == .signalled(SIGKILL), "\(context): cofferd \(exit)")
        tally.killPoints += 1
        tally.acknowledged += acknowledged
        if acknowledged == 0 { tally.beforeFirstWrite += 1 }
        if aimAtAutoLock && sawAutoLock { tally.killsAfterAutoLock += 1 }
    }

    /// Performs one change; the reply arriving is the acknowledgement.
    /// - Returns: the new item's path for a create.
    private func perform(_ write: KillWrite, _ client: SecretService) async throws -> ObjectPath? {
        let login = KillPointTests.login
        func path(_ id: String) throws -> ObjectPath {
            guard let path = model.paths[id] else { throw SecretServiceClientError.unexpectedReply("no path for \(id)") }
            return path
        }
        switch write {
        case .create(_, let state):
            return try await client.createItem(in: login, label: state.label, attributes: state.attributes,
                                               secret: secret(state.secret), replace: false)
        case .setSecret(let id, let text): try await client.setSecret(of: try path(id), to: secret(text))
        case .setLabel(let id, let label): try await client.setLabel(of: try path(id), to: label)
        case .setAttributes(let id, let attributes): try await client.setAttributes(of: try path(id), to: attributes)
        case .delete(let id): try await client.deleteItem(try path(id))
        case .changePassword(let new): try await FaultCalls.changePassword(client, login, from: model.password, to: new)
        case .setCollectionLabel(let label): try await client.setLabel(ofCollection: login, to: label)
        }
        return nil
    }
}

/// Set just before the SIGKILL, so a change failing earlier is known to be a daemon error, not the kill.
private final class Flag: Sendable {
    private let value = Atomic(false)
    func raise() { value.store(true, ordering: .sequentiallyConsistent) }
    var isRaised: Bool { value.load(ordering: .sequentiallyConsistent) }
}
