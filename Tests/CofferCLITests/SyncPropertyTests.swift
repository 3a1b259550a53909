// SPDX-License-Identifier: Apache-2.0
// Three real cofferd instances share a synchronized collection; the test plays the sync engine (FolderEngine) and
// makes random, seeded changes through real clients on each; after full delivery all three must hold the same items,
// equal to a model of the merge rule.
//
// The model. The merge rule is: per item, the change with the highest (hybrid clock, device id) wins; a delete is a
// tombstone. The test cannot see clocks, so it keeps "the last change in real time wins". That is the same rule here:
// a hybrid clock's wall part never exceeds the largest wall time any device has read (CLOCK_REALTIME in
// milliseconds, one clock for the three processes on this machine), and a device's next clock is above every clock
// it has seen and at least its own wall time. The test makes one change at a time and waits for its reply; each is a
// separate client process and a durable write, which take well over a millisecond, so a change made later in real
// time reads a later wall time than every earlier change's clock holds, and its clock is higher, whatever the device
// and whatever it has merged. An update is made as a whole (label, attributes and secret all new) so that what wins
// does not depend on what the device had merged before; an update or delete of an item the device does not hold
// (not arrived yet, or a delete merged meanwhile) changes nothing and the client says so, and the model counts only
// changes that happened. Password changes touch no item: they rewrite the device's wrap, which travels too.

import Foundation
import SecretServiceTestSupport
import Testing

/// Operations per run: a bounded count for CI, more for a longer run by hand (docs/SYNC.md).
let syncPropertyOperations = ProcessInfo.processInfo.environment["COFFER_SYNC_PROPERTY_OPERATIONS"].flatMap(Int.init) ?? 40

@Suite("Synchronized collections between three cofferd instances, with random changes and deliveries",
       .timeLimit(syncPropertyOperations > 40 ? .minutes(120) : .minutes(3)))
struct SyncPropertyTests {
    /// What an item holds, as clients see it (the `k` attribute names it in the test).
    struct Content: Equatable, CustomStringConvertible {
        var label: String
        var attributes: [String: String]
        var secret: String
        var description: String { "\(label) \(attributes.sorted { $0.key < $1.key }) \(secret)" }
    }

    struct Device {
        let harness: DaemonHarness
        let bus: TestBus
        let folder: String
        let id: String
        /// The collection's object path, and the name coffer verbs take.
        let path: String
        let keychain: String
        var password: String
        var clients: ClientEnvironment { ClientEnvironment(bus: bus) }
    }

    @Test("after random changes on three devices and full delivery, all hold the model's items; COFFER_SYNC_PROPERTY_SEED replays a run")
    func threeDevicesConverge() async throws {
        let seed = ProcessInfo.processInfo.environment["COFFER_SYNC_PROPERTY_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 0...UInt64.max)
        print("sync property test: COFFER_SYNC_PROPERTY_SEED=\(seed), \(syncPropertyOperations) operations")
        try await TestBus.withPrivateBus { first in
            try await TestBus.withPrivateBus { second in
                try await TestBus.withPrivateBus { third in
                    try await Self.run([first, second, third], seed: seed)
                }
            }
        }
    }

    static func run(_ buses: [TestBus], seed: UInt64) async throws {
        let options = DaemonHarness.SubprocessOptions(arguments: DaemonHarness.cheapKeyDerivation)
        var harnesses: [DaemonHarness] = []
        for bus in buses { harnesses.append(try await DaemonHarness.start(on: bus, options: options)) }
        var trace: [String] = []
        do {
            try await exercise(buses, harnesses, seed: seed, trace: &trace)
        } catch {
            Issue.record("seed \(seed); trace:\n\(trace.joined(separator: "\n"))")
            for (index, harness) in harnesses.enumerated() {
                Issue.record("cofferd \(index)'s log:\n\(harness.log())")
                await harness.kill()
            }
            throw error
        }
        for harness in harnesses { #expect(await harness.stop() == .exited(0), "log:\n\(harness.log())") }
    }

    static func exercise(_ buses: [TestBus], _ harnesses: [DaemonHarness], seed: UInt64,
                         trace: inout [String]) async throws {
        var random = SeededGenerator(seed: seed)
        var devices = try await setUp(buses, harnesses)
        let collection = try collectionDirectory(devices[0].folder)
        var engine = FolderEngine(devices: devices.map { EngineDevice(folder: $0.folder, id: $0.id) },
                                  collection: collection)
        var model: [String: Content?] = [:]
        var made = 0
        for step in 0..<syncPropertyOperations {
            let index = Int.random(in: devices.indices, using: &random)
            let device = devices[index]
            let roll = Int.random(in: 0..<20, using: &random)
            let live = model.filter { $0.value != nil }.keys.sorted()
            if roll < 2 {
                let new = "pw-\(step)-\(UInt32.random(in: 0...UInt32.max, using: &random))"
                let changed = try await CofferCLI(bus: device.bus).run(["set-keychain-password", device.keychain],
                                                                       input: device.password + "\n" + new + "\n")
                #expect(changed.status == 0, "\(changed.stderr)")
                devices[index].password = new
                trace.append("\(step): device \(index) changes its password")
            } else if roll < 8 || live.isEmpty {
                made += 1
                let key = "item-\(made)", content = randomContent(key, step, using: &random)
                var arguments = ["store", "--label=\(content.label)", "--collection=\(device.path)"]
                for (name, value) in content.attributes.sorted(by: { $0.key < $1.key }) { arguments += [name, value] }
                let stored = try await device.clients.secretTool(arguments, input: Data(content.secret.utf8))
                #expect(stored.status == 0, "\(stored.stderr)")
                model[key] = content
                trace.append("\(step): device \(index) creates \(content)")
            } else {
                let key = live[Int.random(in: live.indices, using: &random)]
                let delete = roll >= 15
                let content = randomContent(key, step, using: &random)
                let outcome = try await change(device, key: key, to: delete ? nil : content)
                if outcome != "absent" { model[key] = delete ? .some(nil) : content }
                trace.append("\(step): device \(index) \(delete ? "deletes" : "updates") \(key): \(outcome)")
            }
            engine.changed(index)
            if Int.random(in: 0..<8, using: &random) == 0 {
                let until = step + Int.random(in: 2...8, using: &random)
                let cut = Int.random(in: devices.indices, using: &random)
                engine.partition(cut, until: until)
                trace.append("\(step): device \(cut) receives nothing until step \(until)")
            }
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                if let act = try engine.act(at: step, using: &random) { trace.append("\(step): engine \(act)") }
            }
        }
        try engine.deliverEverything(using: &random)
        trace.append("everything delivered")
        try await waitForMerges(devices)

        let expected = model.compactMapValues { $0 }
        let outcomes = ["creates", "updated", "deleted", "absent", "password", "engine half", "engine again"]
            .map { word in "\(word) \(trace.filter { $0.contains(word) }.count)" }
        if ProcessInfo.processInfo.environment["COFFER_SYNC_PROPERTY_TRACE"] != nil { print(trace.joined(separator: "\n")) }
        print("sync property test: \(outcomes.joined(separator: ", ")); \(expected.count) items at the end")
        for (index, device) in devices.enumerated() {
            let held = try await dump(device)
            #expect(held == expected, "device \(index) holds\n\(held)\nthe model has\n\(expected)")
            // Half-copied, repeated and late files are all an engine's normal work: none is damage.
            #expect(!device.harness.log().contains("set aside"), "device \(index) set a journal aside")
        }
        // Each device's newest password opens its wrap in every folder: the rewritten wraps travelled.
        for (index, device) in devices.enumerated() where device.password != DaemonHarness.testLoginPassword {
            for other in devices {
                let status = try await CofferCLI(bus: other.bus).run(["sync", "status", other.folder, "--verify"],
                                                                     input: device.password + "\n")
                #expect(status.status == 0, "device \(index)'s password in \(other.folder): \(status.stderr)")
            }
        }
    }

    static func randomContent(_ key: String, _ step: Int, using random: inout SeededGenerator) -> Content {
        let tag = UInt32.random(in: 0...UInt32.max, using: &random)
        return Content(label: "label \(step) \(tag)", attributes: ["k": key, "v": "value-\(tag % 997)"],
                       secret: "secret-\(step)-\(tag)")
    }
}
