// SPDX-License-Identifier: Apache-2.0
// What `coffer sync status` prints: one entry per collection and device, as text or JSON.

import CollectionSync
import Foundation
import SecretCrypto

struct SyncStatusReport: Encodable {
    var folder: String
    var collections: [Collection]

    struct Collection: Encodable {
        var id: String
        var devices: [Device]
        /// Whether the journals were verified with the collection's keys (`--verify`).
        var verified = false
        /// The items the verified journals make together.
        var items: Int?
        /// The local collection the running cofferd holds this synchronized collection as (`--daemon`), while it
        /// is unlocked there.
        var keychain: String?

        /// What the folder shows without keys.
        init(_ place: SyncFolder) throws {
            id = place.collection.description
            let wrapping = Set(try place.wrappingDevices())
            devices = try Set(place.devices()).union(wrapping).sorted().map { device in
                let attributes = try? FileManager.default.attributesOfItem(atPath: place.journalPath(for: device))
                return Device(id: device.description, journalBytes: (attributes?[.size] as? NSNumber)?.intValue,
                              modified: (attributes?[.modificationDate] as? Date).map {
                                  JSONOutput.date(UInt64(max(0, $0.timeIntervalSince1970)))
                              },
                              wrap: wrapping.contains(device))
            }
        }

        /// Adds what the keys show: names, records, damage, the item count.
        mutating func verify(_ place: SyncFolder, password: SecretBytes) throws {
            let master: SecretBytes
            do { master = try place.unlock(password: password) } catch let failure as NoWrapOpens {
                throw CofferError(failure.tried == 0 ? .badData : .authenticationFailed, failure.description)
            }
            let verification = try place.verify(keys: SyncKeys(masterKey: master, collection: place.collection))
            for status in verification.devices {
                guard let index = devices.firstIndex(where: { $0.id == status.device.description }) else { continue }
                devices[index].name = status.name
                devices[index].records = status.records
                devices[index].compaction = status.checkpoint?.compaction
                devices[index].lastSequence = status.checkpoint?.lastSequence
                devices[index].waitingForMore = status.waitingForMore
                devices[index].setAside = status.damage?.description
                devices[index].unreadable = status.readFailure
            }
            verified = true
            items = verification.merged.items.count
        }
    }

    struct Device: Encodable {
        var id: String
        var journalBytes: Int?
        var modified: String?
        /// Whether the device left a password wrap.
        var wrap: Bool
        var name: String?
        var records: Int?
        var compaction: UInt64?
        var lastSequence: UInt64?
        var waitingForMore: Bool?
        /// Why the journal would be set aside.
        var setAside: String?
        var unreadable: String?
        /// Why the running cofferd set this device's journal aside (`--daemon`).
        var setAsideByCofferd: String?
    }

    var text: String {
        var lines = ["folder \(folder)"]
        if collections.isEmpty { lines.append("  no synchronized collection") }
        for collection in collections {
            var heading = "collection \(collection.id): \(collection.devices.count) device(s)"
            if let items = collection.items { heading += ", \(items) item(s)" }
            if let keychain = collection.keychain { heading += ", keychain \(keychain) in cofferd" }
            lines.append(heading)
            for device in collection.devices {
                var line = "  device \(device.id)"
                if let name = device.name { line += " \"\(name)\"" }
                if let bytes = device.journalBytes { line += ", journal \(bytes) bytes" } else { line += ", no journal" }
                if let modified = device.modified { line += ", modified \(modified)" }
                if device.wrap { line += ", password wrap" }
                lines.append(line)
                if let reason = device.setAsideByCofferd { lines.append("    SET ASIDE by cofferd: \(reason)") }
                guard collection.verified else { continue }
                if let reason = device.setAside {
                    lines.append("    SET ASIDE: \(reason)")
                } else if let reason = device.unreadable {
                    lines.append("    unreadable now: \(reason)")
                } else if let records = device.records {
                    var state = "    \(records) record(s) verified"
                    if let sequence = device.lastSequence { state += " up to \(sequence)" }
                    if let compaction = device.compaction, compaction > 0 { state += ", compaction \(compaction)" }
                    if device.waitingForMore == true { state += "; the rest is still arriving" }
                    lines.append(state)
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
