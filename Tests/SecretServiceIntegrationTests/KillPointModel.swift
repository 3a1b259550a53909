// SPDX-License-Identifier: Apache-2.0
// What one kill-point lane has been told succeeded, and the one change a SIGKILL may have cut.

import DBusWire
import Foundation
import SecretServiceTestSupport

/// One change a kill-point lane makes. Item secrets start with `<id>#<version>`, so an item read back names itself.
enum KillWrite: Sendable, CustomStringConvertible {
    case create(id: String, state: ItemState)
    case setSecret(id: String, secret: String)
    case setLabel(id: String, label: String)
    case setAttributes(id: String, attributes: [String: String])
    case delete(id: String)
    case changePassword(to: String)
    case setCollectionLabel(String)

    /// The item the change is about, if any.
    var itemID: String? {
        switch self {
        case .create(let id, _), .setSecret(let id, _), .setLabel(let id, _), .setAttributes(let id, _),
             .delete(let id): id
        case .changePassword, .setCollectionLabel: nil
        }
    }

    var description: String {
        switch self {
        case .create(let id, let state): "create \(id) (\(state.secret.utf8.count) bytes)"
        case .setSecret(let id, let secret): "set the secret of \(id) (\(secret.utf8.count) bytes)"
        case .setLabel(let id, _): "relabel \(id)"
        case .setAttributes(let id, _): "change the attributes of \(id)"
        case .delete(let id): "delete \(id)"
        case .changePassword: "change the password"
        case .setCollectionLabel: "relabel the collection"
        }
    }
}

/// The acknowledged state of one lane's login collection.
struct KillPointModel {
    let lane: Int
    private(set) var items: [String: ItemState] = [:]
    var paths: [String: ObjectPath] = [:]
    private(set) var password: String
    /// The password the last change replaced: it must never open the collection again.
    private(set) var retiredPassword: String?
    private(set) var collectionLabel: String?
    /// The change whose reply never came: it may or may not have happened.
    var pending: KillWrite?
    private var nextID = 0
    private var version = 0

    init(lane: Int, password: String) {
        self.lane = lane
        self.password = password
    }

    /// The attribute every item of this lane carries, for searching.
    var marker: [String: String] { ["fault": "kill-\(lane)"] }

    /// Picks the next change: creates while there are few items, then a mix of every kind; one secret in twenty is
    /// 32–128 KiB, so a kill can tear a long record.
    mutating func nextWrite(using rng: inout SplitMix64) -> KillWrite {
        version += 1
        let roll = Int.random(in: 0..<100, using: &rng)
        let ids = items.keys.sorted()
        let padding = rng.padding(oneIn: 20, bytes: 32_768...131_072, of: "k")
        if ids.isEmpty || roll < (ids.count < 12 ? 40 : 15) {
            nextID += 1
            let id = "k\(nextID)"
            return .create(id: id, state: ItemState(label: "kill \(id) v\(version)",
                                                    attributes: marker.merging(["kill-id": id, "v": "0"]) { $1 },
                                                    secret: "\(id)#\(version)|\(padding)"))
        }
        let id = ids[Int.random(in: 0..<ids.count, using: &rng)]
        switch roll {
        case ..<50: return .setSecret(id: id, secret: "\(id)#\(version)|\(padding)")
        case ..<65: return .setLabel(id: id, label: "kill \(id) v\(version)")
        case ..<80: return .setAttributes(id: id, attributes: marker.merging(["kill-id": id, "v": "\(version)"]) { $1 })
        case ..<92: return .delete(id: id)
        case ..<96: return .changePassword(to: "lane \(lane) password \(version)")
        default: return .setCollectionLabel("lane \(lane) collection v\(version)")
        }
    }

    /// `state` after `write`, for the item `write` is about.
    private static func apply(_ write: KillWrite, to state: ItemState?) -> ItemState? {
        switch write {
        case .create(_, let new): new
        case .setSecret(_, let secret): state.map { ItemState(label: $0.label, attributes: $0.attributes, secret: secret) }
        case .setLabel(_, let label): state.map { ItemState(label: label, attributes: $0.attributes, secret: $0.secret) }
        case .setAttributes(_, let attributes):
            state.map { ItemState(label: $0.label, attributes: attributes, secret: $0.secret) }
        case .delete: nil
        case .changePassword, .setCollectionLabel: state
        }
    }

    /// Records an acknowledged change.
    mutating func acknowledge(_ write: KillWrite, createdAt path: ObjectPath?) {
        if let id = write.itemID {
            items[id] = Self.apply(write, to: items[id])
            if case .create = write { paths[id] = path }
            if case .delete = write { paths[id] = nil }
        }
        if case .changePassword(let new) = write, new != password {
            retiredPassword = password
            password = new
        }
        if case .setCollectionLabel(let label) = write { collectionLabel = label }
        pending = nil
    }

    /// The password an in-flight change may have set.
    var pendingPassword: String? {
        if case .changePassword(let new) = pending { return new }
        return nil
    }

    /// What the in-flight change turned out to be after the restart.
    enum PendingOutcome { case none, applied, lost }

    /// Compares what cofferd serves after a restart with the model and adopts it: every acknowledged change must be
    /// there, the in-flight one fully or not at all.
    /// - Parameters:
    ///   - found: the items read back, by kill id.
    ///   - unlockedWith: the password that unlocked the collection.
    ///   - label: the collection's label.
    /// - Returns: the discrepancies (empty when consistent) and what became of the in-flight change.
    mutating func reconcile(_ found: [String: ItemState], paths foundPaths: [String: ObjectPath],
                            unlockedWith usedPassword: String, label: String) -> ([String], PendingOutcome) {
        var problems: [String] = []
        var outcome = PendingOutcome.none
        let pendingID = pending?.itemID
        for (id, expected) in items where id != pendingID && found[id] != expected {
            problems.append("acknowledged item \(id): expected \(expected), found \(found[id].map { "\($0)" } ?? "nothing")")
        }
        for id in found.keys where items[id] == nil && id != pendingID {
            problems.append("item \(id) exists but was never created or its delete was acknowledged")
        }
        if let pending {
            let applied: Bool
            let lost: Bool
            switch pending {
            case .changePassword(let new):
                applied = usedPassword == new
                lost = usedPassword == password
            case .setCollectionLabel(let new):
                applied = label == new
                lost = label == (collectionLabel ?? label)
            default:
                let id = pending.itemID ?? ""
                applied = found[id] == Self.apply(pending, to: items[id])
                lost = found[id] == items[id]
            }
            if applied {
                outcome = .applied
            } else if lost {
                outcome = .lost
            } else {
                problems.append("in-flight '\(pending)' left a state that is neither before nor after it")
            }
        } else {
            if usedPassword != password { problems.append("the collection opened with an old password") }
            if let collectionLabel, label != collectionLabel {
                problems.append("the collection's label is '\(label)', expected '\(collectionLabel)'")
            }
        }
        items = found
        paths = foundPaths
        if usedPassword != password { retiredPassword = password }
        password = usedPassword
        collectionLabel = label
        pending = nil
        return (problems, outcome)
    }

    /// The number of complete records in a collection file (format: `Sources/SecretStore/Persistence/FORMAT.md`),
    /// so a lane can aim a kill at the write that compacts the file.
    static func recordCount(_ data: Data) -> Int? {
        let bytes = [UInt8](data)
        func u16(_ at: Int) -> Int { Int(bytes[at]) << 8 | Int(bytes[at + 1]) }
        func u32(_ at: Int) -> Int { u16(at) << 16 | u16(at + 2) }
        guard bytes.count >= 12 else { return nil }
        var offset = 8 + 2
        offset += 2 + u16(offset) + 8 + 32  // id, created, index key
        var count = 0
        while offset + 4 <= bytes.count {
            let end = offset + 4 + u32(offset) + 32
            guard end <= bytes.count else { break }
            count += 1
            offset = end
        }
        return count
    }
}
