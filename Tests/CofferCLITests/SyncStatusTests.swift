// SPDX-License-Identifier: Apache-2.0
// `coffer sync status`: a folder of synchronized collections as anyone sees it, and verified with the password.

import CollectionSync
import Foundation
import SecretCrypto
import SecretServiceTestSupport
import Testing

@Suite("coffer sync status")
struct SyncStatusTests {
    /// A folder with one collection (password "sync pw") and three devices: a laptop with two items, a desktop
    /// whose journal was altered, and a phone whose last record is still arriving.
    struct Fixture {
        let root: URL
        let collection: SyncCollectionID
        let laptop = DeviceID.random(), desktop = DeviceID.random(), phone = DeviceID.random()

        init(in directory: URL) throws {
            root = directory.appendingPathComponent("sync")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            let master = try SecureRandom.secretBytes(count: 32)
            collection = .random()
            let keys = try SyncKeys(masterKey: master, collection: collection)
            let folder = SyncFolder(root: root.path, collection: collection)
            try folder.store(try PasswordWrap.make(
                masterKey: master, password: SecretBytes(copying: Array("sync pw".utf8)), keys: keys, device: laptop,
                clock: HybridTimestamp(milliseconds: 1, counter: 0),
                parameters: Argon2idParameters(iterations: 1, memoryKiB: 64, parallelism: 1)))
            for device in [laptop, desktop, phone] {
                let writer = try JournalWriter.open(folder: folder, device: device, keys: keys).writer
                try writer.append(.deviceName(device == laptop ? "laptop" : device == desktop ? "desktop" : "phone"))
                for index in 0..<2 {
                    try writer.append(.put(.random(), SyncItemContent(
                        label: "item \(index)", attributes: ["device": "\(device)"], contentType: "text/plain",
                        secret: try SecretBytes(copying: Array("secret \(index)".utf8)), created: 1, modified: 1)))
                }
            }
            let desktopPath = folder.journalPath(for: desktop)
            var altered = [UInt8](try Data(contentsOf: URL(fileURLWithPath: desktopPath)))
            altered[altered.count - 40] ^= 1
            try Data(altered).write(to: URL(fileURLWithPath: desktopPath))
            let phonePath = folder.journalPath(for: phone)
            let whole = try Data(contentsOf: URL(fileURLWithPath: phonePath))
            try whole.prefix(whole.count - 10).write(to: URL(fileURLWithPath: phonePath))
        }
    }

    static func devices(_ json: Any) -> [String: [String: Any]] {
        let collections = (json as? [String: Any])?["collections"] as? [[String: Any]] ?? []
        var byID: [String: [String: Any]] = [:]
        for device in collections.first?["devices"] as? [[String: Any]] ?? [] {
            if let id = device["id"] as? String { byID[id] = device }
        }
        return byID
    }

    @Test("without a password: ids, journal sizes and wraps, nothing sealed")
    func unverified() async throws {
        try await TestBus.withPrivateBus { bus in
            let fixture = try Fixture(in: bus.directory)
            let coffer = CofferCLI(bus: bus)
            let (output, json) = try await coffer.json(["sync", "status", fixture.root.path])
            #expect(output.status == 0, "\(output.stderr)")
            let devices = Self.devices(json)
            #expect(devices.count == 3)
            #expect(devices[fixture.laptop.description]?["wrap"] as? Bool == true)
            #expect(devices[fixture.desktop.description]?["wrap"] as? Bool == false)
            #expect((devices[fixture.laptop.description]?["journalBytes"] as? Int ?? 0) > 0)
            #expect(devices[fixture.laptop.description]?["name"] == nil)
            let text = try await coffer.run(["sync", "status", fixture.root.path])
            #expect(text.text.contains("collection \(fixture.collection): 3 device(s)"), "\(text.text)")
            #expect(!text.text.contains("laptop"))
        }
    }

    @Test("with the password: names, records, the tampered journal set aside, the torn one still arriving")
    func verified() async throws {
        try await TestBus.withPrivateBus { bus in
            let fixture = try Fixture(in: bus.directory)
            let coffer = CofferCLI(bus: bus)
            let (output, json) = try await coffer.json(["sync", "status", fixture.root.path, "--verify"],
                                                       input: "sync pw\n")
            #expect(output.status == 0, "\(output.stderr)")
            let devices = Self.devices(json)
            #expect(devices[fixture.laptop.description]?["name"] as? String == "laptop")
            #expect(devices[fixture.laptop.description]?["records"] as? Int == 3)
            #expect((devices[fixture.desktop.description]?["setAside"] as? String)?.contains("authentication") == true)
            #expect(devices[fixture.phone.description]?["waitingForMore"] as? Bool == true)
            #expect(devices[fixture.phone.description]?["records"] as? Int == 2)
            let collections = (json as? [String: Any])?["collections"] as? [[String: Any]]
            // The laptop's two items and the phone's first one; nothing of the desktop's.
            #expect(collections?.first?["items"] as? Int == 3)

            let text = try await coffer.run(["sync", "status", fixture.root.path, "--verify"], input: "sync pw\n")
            #expect(text.text.contains("SET ASIDE: record 3 fails authentication"), "\(text.text)")
            #expect(text.text.contains("still arriving"), "\(text.text)")
            #expect(!text.text.contains("sync pw") && !text.stderr.contains("sync pw"))
        }
    }

    @Test("a wrong password, a missing folder and a malformed collection id each fail with one line")
    func failures() async throws {
        try await TestBus.withPrivateBus { bus in
            let fixture = try Fixture(in: bus.directory)
            let coffer = CofferCLI(bus: bus)
            let wrong = try await coffer.run(["sync", "status", fixture.root.path, "--verify"], input: "nope\n")
            #expect(wrong.status == 51, "\(wrong.stderr)")
            #expect(wrong.stderr.contains("opens none of the 1 password wrap"), "\(wrong.stderr)")
            let missing = try await coffer.run(["sync", "status", fixture.root.path + "/absent"])
            #expect(missing.status == 66, "\(missing.stderr)")
            let malformed = try await coffer.run(["sync", "status", fixture.root.path, "--collection", "XYZ"])
            #expect(malformed.status == 64, "\(malformed.stderr)")
            for run in [wrong, missing, malformed] {
                #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
            }
        }
    }
}
