// SPDX-License-Identifier: Apache-2.0
// The property test's devices: setting up the shared collection, changing and reading items through real clients
// (secret-tool, and python3-secretstorage where secret-tool has no verb), and waiting for the merges.

import Foundation
import Glibc
import SecretServiceTestSupport
import Testing

extension SyncPropertyTests {
    /// The first device makes its login collection synchronized; the others join it from a copy of its folder.
    static func setUp(_ buses: [TestBus], _ harnesses: [DaemonHarness]) async throws -> [Device] {
        let password = DaemonHarness.testLoginPassword
        var folders: [String] = []
        for bus in buses {
            folders.append(bus.directory.appendingPathComponent("Sync").path)
            try FileManager.default.createDirectory(atPath: folders.last!, withIntermediateDirectories: true)
        }
        let (enabled, enabledJSON) = try await CofferCLI(bus: buses[0]).json(
            ["sync", "enable", "--collection", "login", folders[0], "--json"], input: password + "\n")
        #expect(enabled.status == 0, "\(enabled.stderr)")
        var devices = [Device(harness: harnesses[0], bus: buses[0], folder: folders[0],
                              id: try #require((enabledJSON as? [String: String])?["device"]),
                              path: "/org/freedesktop/secrets/collection/login", keychain: "login", password: password)]
        let collection = try collectionDirectory(folders[0])
        for index in 1..<buses.count {
            // Only the first device's files, whole: enough to join, the engine brings the rest later.
            let target = folders[index] + "/" + collection
            try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
            for name in try FileManager.default.contentsOfDirectory(atPath: folders[0] + "/" + collection)
            where name.hasPrefix(devices[0].id) {
                try FileManager.default.copyItem(atPath: folders[0] + "/" + collection + "/" + name,
                                                 toPath: target + "/" + name)
            }
            let (joined, joinedJSON) = try await CofferCLI(bus: buses[index]).json(
                ["sync", "join", folders[index], "--label", "Shared", "--json"], input: password + "\n")
            #expect(joined.status == 0, "\(joined.stderr)")
            let reply = try #require(joinedJSON as? [String: String])
            let keychain = try #require(reply["keychain"])
            devices.append(Device(harness: harnesses[index], bus: buses[index], folder: folders[index],
                                  id: try #require(reply["device"]),
                                  path: "/org/freedesktop/secrets/collection/" + keychain, keychain: keychain,
                                  password: password))
        }
        return devices
    }

    /// The folder holds one collection's directory, named by its id.
    static func collectionDirectory(_ folder: String) throws -> String {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasPrefix(".") }
        return try #require(names.count == 1 ? names.first : nil, "\(names)")
    }

    /// Replaces the item named `key` by `content` as a whole, or deletes it (`nil`), on `device`. Returns "absent"
    /// when the device does not hold it, then nothing changed: the first call is the one that fails when a merge
    /// deleted the item meanwhile, and once it succeeded the change is newer than anything a merge can bring.
    static func change(_ device: Device, key: String, to content: Content?) async throws -> String {
        let script = """
            import json, sys, secretstorage
            request = json.load(sys.stdin)
            connection = secretstorage.dbus_init()
            found = list(secretstorage.Collection(connection, request['path']).search_items({'k': request['key']}))
            if not found:
                print('absent'); sys.exit(0)
            item = found[0]
            try:
                if request.get('label') is None:
                    item.delete(); print('deleted'); sys.exit(0)
                item.set_label(request['label'])
            except secretstorage.exceptions.ItemNotFoundException:
                print('absent'); sys.exit(0)
            item.set_attributes(request['attributes'])
            item.set_secret(request['secret'].encode())
            print('updated')
            """
        var request: [String: Any] = ["path": device.path, "key": key]
        if let content {
            request["label"] = content.label
            request["attributes"] = content.attributes
            request["secret"] = content.secret
        }
        let output = try await device.clients.run("/usr/bin/python3", ["-c", script],
                                                  input: try JSONSerialization.data(withJSONObject: request))
        #expect(output.status == 0, "\(output.stderr)")
        return output.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Every item of the device's synchronized collection, by its `k` attribute, read through secretstorage.
    /// secret-tool's own schema attribute is left out: it is not part of what the test wrote.
    static func dump(_ device: Device) async throws -> [String: Content] {
        let script = """
            import json, sys, secretstorage
            connection = secretstorage.dbus_init()
            collection = secretstorage.Collection(connection, sys.argv[1])
            print(json.dumps([[i.get_label(), i.get_attributes(), i.get_secret().decode()]
                              for i in collection.get_all_items()]))
            """
        let output = try await device.clients.run("/usr/bin/python3", ["-c", script, device.path])
        #expect(output.status == 0, "\(output.stderr)")
        let items = try #require(try JSONSerialization.jsonObject(with: output.stdout) as? [[Any]])
        var held: [String: Content] = [:]
        for item in items {
            var attributes = try #require(item[1] as? [String: String])
            attributes["xdg:schema"] = nil
            let key = try #require(attributes["k"], "an item without the test's key: \(item)")
            #expect(held[key] == nil, "two items named \(key)")
            held[key] = Content(label: try #require(item[0] as? String), attributes: attributes,
                                secret: try #require(item[2] as? String))
        }
        return held
    }

    /// Waits until each device has merged every other device's journal to its end: the last sequence of each
    /// journal comes from `coffer sync status --verify` (all folders are the same once everything is delivered),
    /// and each cofferd logs how far it merged ("merged another device's changes", sync.through).
    static func waitForMerges(_ devices: [Device]) async throws {
        let (status, report) = try await CofferCLI(bus: devices[0].bus).json(
            ["sync", "status", devices[0].folder, "--verify", "--json"], input: devices[0].password + "\n")
        #expect(status.status == 0, "\(status.stderr)")
        let collection = try #require(((report as? [String: Any])?["collections"] as? [[String: Any]])?.first)
        var last: [String: Int] = [:]
        for entry in try #require(collection["devices"] as? [[String: Any]]) {
            let id = try #require(entry["id"] as? String)
            last[id] = try #require(entry["lastSequence"] as? Int, "\(entry)")
            #expect(entry["setAside"] == nil && entry["unreadable"] == nil, "\(entry)")
        }
        for device in devices {
            for other in devices where other.id != device.id {
                let through = try #require(last[other.id], "\(other.id) is missing from \(collection)")
                let harness = device.harness, id = other.id
                let events = try FileEvents(harness.logFile.path, mask: UInt32(IN_MODIFY))
                // A journal set aside never gets there: stop waiting at once and say so.
                try await events.wait(until: {
                    let log = harness.log()
                    return mergedThrough(log, device: id) >= through || log.contains("set aside")
                }, what: "device \(device.id) merging \(id) through \(through)")
                #expect(!harness.log().contains("set aside"), "device \(device.id) set a journal aside")
            }
        }
    }

    /// The furthest sequence of `device`'s journal that a cofferd log says was merged.
    static func mergedThrough(_ log: String, device: String) -> Int {
        var furthest = 0
        for line in log.split(separator: "\n") where line.contains("merged another device's changes")
            && line.contains("sync.device=\(device)") {
            guard let range = line.range(of: "sync.through=") else { continue }
            furthest = max(furthest, Int(line[range.upperBound...].prefix { $0.isNumber }) ?? 0)
        }
        return furthest
    }
}
