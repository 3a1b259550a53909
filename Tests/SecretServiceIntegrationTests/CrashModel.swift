// SPDX-License-Identifier: Apache-2.0
// What the crash test has written: the acknowledged state of every item, and the one write a kill may have cut.

import DBusWire
import SecretServiceTestSupport

extension SplitMix64 {
    /// One time in `oneIn`, `character` repeated a random number of times in `bytes` (a secret long enough for a kill
    /// to tear its record); otherwise nothing.
    mutating func padding(oneIn: Int, bytes: ClosedRange<Int>, of character: Character) -> String {
        guard Int.random(in: 0..<oneIn, using: &self) == 0 else { return "" }
        return String(repeating: character, count: Int.random(in: bytes, using: &self))
    }
}

/// One write of the crash test. Secrets start with `<id>#<version>` so an item read back names itself.
enum CrashWrite: Sendable, CustomStringConvertible {
    case create(id: String, secret: String)
    case update(id: String, path: ObjectPath, secret: String)
    case delete(id: String, path: ObjectPath)

    var id: String {
        switch self {
        case .create(let id, _), .update(let id, _, _), .delete(let id, _): id
        }
    }

    var description: String {
        switch self {
        case .create(let id, let secret): "create \(id) (\(secret.utf8.count) bytes)"
        case .update(let id, _, let secret): "update \(id) (\(secret.utf8.count) bytes)"
        case .delete(let id, _): "delete \(id)"
        }
    }
}

/// The items every acknowledged write leaves behind, plus the write that was in flight when the daemon died.
struct CrashModel {
    /// The last acknowledged secret of every item that must exist, by crash id.
    private(set) var secrets: [String: String] = [:]
    /// Where each item lives (item paths survive restarts, but are re-read anyway).
    private(set) var paths: [String: ObjectPath] = [:]
    /// The write whose reply never came: it may or may not have happened.
    var pending: CrashWrite?
    private var nextID = 0
    private var versions: [String: Int] = [:]

    var itemCount: Int { secrets.count }

    /// Picks the next write: creates while there are few items, otherwise a mix weighted towards keeping about
    /// 20 items; one write in ten carries a secret of 64–256 KiB, so a kill can tear a long record.
    mutating func nextWrite(using rng: inout SplitMix64) -> CrashWrite {
        let roll = Int.random(in: 0..<100, using: &rng)
        let ids = secrets.keys.sorted()
        let padding = rng.padding(oneIn: 10, bytes: 65_536...262_144, of: "x")
        if ids.isEmpty || roll < (ids.count < 20 ? 55 : 30) {
            nextID += 1
            let id = "c\(nextID)"
            return .create(id: id, secret: "\(id)#0|\(padding)")
        }
        let id = ids[Int.random(in: 0..<ids.count, using: &rng)]
        guard let path = paths[id] else { preconditionFailure("no path for \(id)") }
        if roll < 75 {
            let version = (versions[id] ?? 0) + 1
            versions[id] = version
            return .update(id: id, path: path, secret: "\(id)#\(version)|\(padding)")
        }
        return .delete(id: id, path: path)
    }

    /// Records an acknowledged write.
    mutating func acknowledge(_ write: CrashWrite, createdAt path: ObjectPath?) {
        switch write {
        case .create(let id, let secret):
            secrets[id] = secret
            paths[id] = path
        case .update(let id, _, let secret):
            secrets[id] = secret
        case .delete(let id, _):
            secrets[id] = nil
            paths[id] = nil
        }
    }

    /// What the in-flight write turned out to be after the restart.
    enum PendingOutcome { case none, applied, lost }

    /// Compares what cofferd serves after a restart (`found`: crash id → path and secret) with the model, then
    /// adopts it: acknowledged writes must all be there, and the in-flight one either fully or not at all.
    /// - Returns: the discrepancies (empty when consistent) and what became of the in-flight write.
    mutating func reconcile(_ found: [String: (path: ObjectPath, secret: String)]) -> ([String], PendingOutcome) {
        var problems: [String] = []
        let pendingID = pending?.id
        for (id, expected) in secrets where id != pendingID {
            guard let actual = found[id] else {
                problems.append("acknowledged item \(id) is missing")
                continue
            }
            if actual.secret != expected {
                problems.append("item \(id) holds \(Self.head(actual.secret)), expected \(Self.head(expected))")
            }
        }
        for id in found.keys where secrets[id] == nil && id != pendingID {
            problems.append("item \(id) exists but was never created or its delete was acknowledged")
        }
        var outcome = PendingOutcome.none
        if let pending {
            let actual = found[pending.id]?.secret
            let before = secrets[pending.id]
            switch pending {
            case .create(_, let secret), .update(_, _, let secret):
                if actual == secret {
                    outcome = .applied
                } else if actual == before {
                    outcome = .lost
                } else {
                    problems.append("in-flight \(pending) left \(actual.map(Self.head) ?? "nothing")")
                }
            case .delete:
                if actual == nil {
                    outcome = .applied
                } else if actual == before {
                    outcome = .lost
                } else {
                    problems.append("in-flight \(pending) left \(actual.map(Self.head) ?? "nothing")")
                }
            }
        }
        secrets = found.mapValues(\.secret)
        paths = found.mapValues(\.path)
        pending = nil
        return (problems, outcome)
    }

    /// The `<id>#<version>` part of a secret, for messages.
    static func head(_ secret: String) -> String {
        "'\(secret.prefix { $0 != "|" })' (\(secret.utf8.count) bytes)"
    }

    /// The crash id a secret names (`c12#3|…` → `c12`).
    static func id(of secret: String) -> String? {
        guard let hash = secret.firstIndex(of: "#") else { return nil }
        return String(secret[..<hash])
    }
}
