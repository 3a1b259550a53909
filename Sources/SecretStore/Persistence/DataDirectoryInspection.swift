// SPDX-License-Identifier: Apache-2.0
// What can be checked of a data directory without any password, for `coffer doctor`.

import SecretCrypto
import SecretServiceProtocol

/// Reads collection files and the `generations` list with the store's own parsers (one read per file, as the store
/// does), so a diagnosis and the daemon never disagree on what a file holds. The MACs need the password; the daemon
/// checks them at unlock.
public enum DataDirectoryInspection {
    /// What a look at one collection file found.
    public enum Verdict: Equatable, Sendable {
        /// Header and records parse, the name matches the id, the generation is not older than recorded.
        case intact(id: String, generation: UInt64)
        case damaged(String)
    }

    /// The generations recorded per collection, and the lines that could not be used.
    public static func ledger(in directory: String) -> (generations: [String: UInt64], problems: [String]) {
        guard let bytes = try? POSIXFile.read(directory + "/" + GenerationLedger.fileName) else { return ([:], []) }
        return GenerationLedger.parse(bytes)
    }

    /// Checks the collection file `name` in `directory` against the generation `recorded` for it.
    public static func collectionFile(named name: String, in directory: String, recorded: [String: UInt64])
        -> Verdict {
        let id = String(name.dropLast(SecretStore.fileSuffix.count))
        guard ObjectPathElement.isValid(id) else {
            return .damaged("has a name that is not a valid collection id (letters, digits and '_' only)")
        }
        do {
            guard let bytes = try POSIXFile.read(directory + "/" + name) else { return .damaged("vanished") }
            let parsed = try Journal.parse(bytes)
            guard parsed.header.id == id else {
                return .damaged("holds collection '\(parsed.header.id)' but is named '\(name)'")
            }
            var slots: [UInt32: KeySlot] = [:]
            for frame in parsed.frames {
                switch frame.record {
                case .keyWrap(let wrap): slots[0] = KeySlot(legacy: wrap)
                case .keySlot(let slot): slots[slot.id] = slot
                default: break
                }
            }
            do {
                _ = try SecretStore.checkedSlots(slots)
            } catch {
                return .damaged("\(error.description)")
            }
            if let generation = recorded[id], parsed.lastSequence < generation {
                return .damaged("is older (generation \(parsed.lastSequence)) than recorded in 'generations' "
                    + "(\(generation)): an older copy was put back or records were removed")
            }
            return .intact(id: id, generation: parsed.lastSequence)
        } catch {
            return .damaged("is damaged: \(error)")
        }
    }

    /// The suffix of collection files.
    public static var collectionFileSuffix: String { SecretStore.fileSuffix }
}
