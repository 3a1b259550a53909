// SPDX-License-Identifier: Apache-2.0
// The sync engine the property test plays: it carries each device's files between the devices' folders late, out of
// order, twice, half-way or not at all for a while, as real engines do; and the seeded randomness that drives it.

import Foundation
import SecretServiceTestSupport
import Testing

/// The engine's and the test's generator (a printed seed replays the same choices).
typealias SeededGenerator = SplitMix64

/// One device as the engine sees it: its folder and the prefix of file names that are its own.
struct EngineDevice {
    let folder: String
    let id: String
}

/// Carries files between folders. Only a device's own files (`<device>.journal`, `<device>.wrap`) travel from its
/// folder, and always as they are now: an engine sends the newest version of a file, never an older one after it.
struct FolderEngine {
    let devices: [EngineDevice]
    let collection: String
    /// (source device, destination device) pairs whose newest files have not been carried whole yet.
    private(set) var pending: Set<[Int]> = []
    /// A partitioned device receives nothing until the step its partition ends.
    private(set) var partitionedUntil: [Int: Int] = [:]

    init(devices: [EngineDevice], collection: String) {
        self.devices = devices
        self.collection = collection
    }

    /// Device `source` changed its files: every other device has something to receive.
    mutating func changed(_ source: Int) {
        for destination in devices.indices where destination != source { pending.insert([source, destination]) }
    }

    mutating func partition(_ device: Int, until step: Int) { partitionedUntil[device] = step }

    func isPartitioned(_ device: Int, at step: Int) -> Bool { (partitionedUntil[device] ?? -1) > step }

    /// One random act of the engine at `step`: a whole delivery of something pending, a half-copied journal, or a
    /// duplicate of something already delivered. Returns what it did, for the trace printed on failure.
    mutating func act(at step: Int, using random: inout SeededGenerator) throws -> String? {
        let open = pending.filter { !isPartitioned($0[1], at: step) }.sorted { $0.lexicographicallyPrecedes($1) }
        let roll = Int.random(in: 0..<10, using: &random)
        if roll < 2 {
            // Duplicate: any pair, pending or not, gets what it already has (or more) again.
            let source = Int.random(in: devices.indices, using: &random)
            let others = devices.indices.filter { $0 != source && !isPartitioned($0, at: step) }
            guard let destination = others.randomElement(using: &random) else { return nil }
            try carry(from: source, to: destination, half: false, using: &random)
            pending.remove([source, destination])
            return "again \(source)->\(destination)"
        }
        guard let pair = open.randomElement(using: &random) else { return nil }
        let half = roll < 5
        try carry(from: pair[0], to: pair[1], half: half, using: &random)
        if !half { pending.remove(pair) }
        return "\(half ? "half" : "whole") \(pair[0])->\(pair[1])"
    }

    /// Brings every device's files whole to every other device (the partitions healed, the engine caught up).
    mutating func deliverEverything(using random: inout SeededGenerator) throws {
        partitionedUntil = [:]
        for source in devices.indices {
            for destination in devices.indices where destination != source {
                try carry(from: source, to: destination, half: false, using: &random)
            }
        }
        pending = []
    }

    /// Copies `source`'s own files into `destination`'s folder, written beside and renamed into place as Syncthing
    /// does. `half` leaves out a random part of the journal's tail: never shorter than what the destination already
    /// holds, since no engine shows an append-only file shrinking (docs/SYNC.md, Files in transit).
    private func carry(from source: Int, to destination: Int, half: Bool, using random: inout SeededGenerator) throws {
        let manager = FileManager.default
        let from = devices[source].folder + "/" + collection, to = devices[destination].folder + "/" + collection
        try manager.createDirectory(atPath: to, withIntermediateDirectories: true)
        for suffix in [".journal", ".wrap"] {
            let name = devices[source].id + suffix
            guard let current = manager.contents(atPath: from + "/" + name) else { continue }
            var bytes = current
            if half, suffix == ".journal" {
                let held = manager.contents(atPath: to + "/" + name)?.count ?? 0
                if held < bytes.count { bytes = bytes.prefix(Int.random(in: held..<bytes.count, using: &random)) }
            }
            let temporary = to + "/.syncthing." + name + ".tmp"
            try bytes.write(to: URL(fileURLWithPath: temporary))
            #expect(rename(temporary, to + "/" + name) == 0)
        }
    }
}
