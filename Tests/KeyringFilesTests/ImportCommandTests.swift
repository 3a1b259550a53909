// SPDX-License-Identifier: Apache-2.0
// End to end: keyrings written by gnome-keyring and libsecret, imported into cofferd with `coffer import`, read back
// with secret-tool; and `coffer export` / `coffer restore` round trips.

import DBusWire
import Foundation
import KeyringFiles
import SecretCrypto
import SecretServiceClient
import SecretServiceTestSupport
import Testing

@Suite("coffer import, export and restore against cofferd")
struct ImportCommandTests {
    /// Every sample, looked up in cofferd with secret-tool: same label, attributes and secret.
    static func expectServed(_ samples: [SampleItem], on bus: TestBus,
                             sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let clients = ClientEnvironment(bus: bus)
        for sample in samples {
            let query = sample.attributes.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] }
            let lookup = try await clients.secretTool(["lookup"] + query)
            #expect(lookup.status == 0 && [UInt8](lookup.stdout) == sample.secret, "'\(sample.label)': \(lookup.stderr)",
                    sourceLocation: sourceLocation)
            let search = try await clients.secretTool(["search", "--all"] + query)
            #expect(SecretToolListing(search) == SecretToolListing(label: sample.label, attributes: sample.attributes),
                    "'\(sample.label)'", sourceLocation: sourceLocation)
        }
    }

    @Test("gnome-keyring and libsecret files import into cofferd; a second import adds nothing; wrong passwords fail")
    func importRealFiles() async throws {
        let binary = try await WrittenKeyrings.binary.value.file
        let textual = try await WrittenKeyrings.textual.value
        let libsecret = try await WrittenKeyrings.libsecret.value
        try await TestBus.withPrivateBus { bus in
            let harness = try await DaemonHarness.start(.subprocess, on: bus)
            do {
                let files = [("login.keyring", binary), ("plain.keyring", textual), ("file.keyring", libsecret)]
                for (name, bytes) in files {
                    try Data(bytes).write(to: bus.directory.appendingPathComponent(name))
                }
                let login = bus.directory.appendingPathComponent("login.keyring").path
                let password = DaemonHarness.gnomeKeyringPassword + "\n"

                let first = try await CofferTool.run(["import", login, "--json"], input: password, on: bus)
                #expect(first.status == 0, "\(first.stderr)\n\(harness.log())")
                let report = try CofferTool.json(first)
                #expect(report["imported"] as? Int == KeyringSamples.items.count)
                #expect(report["alreadyPresent"] as? Int == 0 && report["skipped"] as? Int == 0)
                #expect(report["format"] as? String == "gnome-keyring-binary")
                try await Self.expectServed(KeyringSamples.items, on: bus)
                // Imported items belong to no application yet (not to coffer): the first to use one adopts it.
                let access = try await CofferTool.run(["access", "list", "--collection", "login", "--json"], on: bus)
                #expect(access.status == 0, "\(access.stderr)")
                let entries = try #require(try JSONSerialization.jsonObject(with: access.stdout) as? [[String: Any]])
                #expect(entries.count == KeyringSamples.items.count)
                #expect(entries.allSatisfy { ($0["creator"] as? String) == "" }, "\(entries)")

                let second = try await CofferTool.run(["import", login], input: password, on: bus)
                #expect(second.status == 0, "\(second.stderr)")
                #expect(second.text == "imported 0 items into /org/freedesktop/secrets/collection/login "
                        + "(\(KeyringSamples.items.count) already present, 0 skipped)\n")

                let wrong = try await CofferTool.run(["import", login], input: "not it\n", on: bus)
                #expect(wrong.status == 51 && wrong.stderr.hasPrefix("coffer: ") && !wrong.stderr.contains("not it"))
                #expect(wrong.stderr.split(separator: "\n").count == 1, "\(wrong.stderr)")

                // The other formats, each into its own new collection (created by the import, with the password on
                // the line after the file's).
                for (name, collection, input) in [("plain.keyring", "Plain", ""),
                                                  ("file.keyring", "From libsecret", LibsecretFileTests.password + "\n")] {
                    let path = bus.directory.appendingPathComponent(name).path
                    let run = try await CofferTool.run(["import", path, "--collection", collection, "--json"],
                                                       input: input + "new collection pw\n", on: bus)
                    #expect(run.status == 0, "\(name): \(run.stderr)")
                    #expect(try CofferTool.json(run)["imported"] as? Int == KeyringSamples.items.count, "\(name)")
                    let again = try await CofferTool.run(["import", path, "--collection", collection, "--json"],
                                                         input: input, on: bus)
                    #expect(try CofferTool.json(again)["imported"] as? Int == 0, "\(name)")
                    #expect(try CofferTool.json(again)["alreadyPresent"] as? Int == KeyringSamples.items.count)
                }
                let client = try await SecretService.connect(address: bus.address)
                let (unlocked, _) = try await client.searchItems(["service": "myapp"])
                #expect(unlocked.count == 3)  // one per imported file, no duplicates
                await client.close()

                // An item the file stores no secret for is skipped, reported by label, and the rest goes in.
                let partial = bus.directory.appendingPathComponent("partial.keyring")
                try Data("[keyring]\ndisplay-name=P\n\n[1]\ndisplay-name=no secret\n\n[2]\ndisplay-name=kept\nsecret=abc\n"
                    .utf8).write(to: partial)
                let skipping = try await CofferTool.run(["import", partial.path, "--collection", "Partial"],
                                                        input: "partial pw\n", on: bus)
                #expect(skipping.status == 0, "\(skipping.stderr)")
                #expect(skipping.stderr == "coffer: warning: skipped 'no secret': the file stores no secret for it\n")
                #expect(skipping.text.hasSuffix("(0 already present, 1 skipped)\n") && skipping.text.hasPrefix("imported 1 item "))

                let garbage = bus.directory.appendingPathComponent("garbage.keyring")
                try Data("not a keyring".utf8).write(to: garbage)
                let refused = try await CofferTool.run(["import", garbage.path], on: bus)
                #expect(refused.status == 65, "\(refused.stderr)")
                let missing = try await CofferTool.run(["import", "/nonexistent/x.keyring"], on: bus)
                #expect(missing.status == 66, "\(missing.stderr)")
                await harness.stop()
            } catch {
                await harness.stop()
                throw error
            }
        }
    }

    /// Items in the scale test: 200 in CI; set `COFFER_IMPORT_SCALE_ITEMS` for a longer run (for example 5000).
    static let scaleItems = ProcessInfo.processInfo.environment["COFFER_IMPORT_SCALE_ITEMS"].flatMap(Int.init) ?? 200

    @Test("a large keyring imports completely, and importing it again adds nothing")
    func largeKeyring() async throws {
        var writer = BinaryKeyringWriter()
        writer.items = (0..<Self.scaleItems).map { index in
            BinaryKeyringWriter.Item(label: "item \(index)", secret: Array("secret \(index)".utf8),
                                     attributes: [("service", .string("scale")), ("index", .number(UInt32(index)))])
        }
        let file = try writer.write(password: "scale")
        try await TestBus.withPrivateBus { bus in
            let harness = try await DaemonHarness.start(.subprocess, on: bus)
            do {
                let path = bus.directory.appendingPathComponent("scale.keyring")
                try Data(file).write(to: path)
                let clock = ContinuousClock()
                let start = clock.now
                let first = try await CofferTool.run(["import", path.path, "--json"], input: "scale\n", on: bus)
                let firstDuration = clock.now - start
                #expect(first.status == 0, "\(first.stderr)")
                #expect(try CofferTool.json(first)["imported"] as? Int == Self.scaleItems)
                let again = try await CofferTool.run(["import", path.path, "--json"], input: "scale\n", on: bus)
                #expect(try CofferTool.json(again)["alreadyPresent"] as? Int == Self.scaleItems)
                #expect(try CofferTool.json(again)["imported"] as? Int == 0)
                let lookup = try await ClientEnvironment(bus: bus).secretTool(
                    ["lookup", "service", "scale", "index", String(Self.scaleItems - 1)])
                #expect(lookup.text == "secret \(Self.scaleItems - 1)")
                print("imported \(Self.scaleItems) items in \(firstDuration), re-checked in \(clock.now - start - firstDuration)")
                await harness.stop()
            } catch {
                await harness.stop()
                throw error
            }
        }
    }

    @Test("export seals a collection; restore puts it back once, and refuses a wrong passphrase")
    func exportRestore() async throws {
        try await DaemonHarness.withDaemon(.subprocess) { bus, _, client in
            let collection = try await client.defaultCollection()
            for sample in KeyringSamples.items {
                _ = try await client.createItem(in: collection, label: sample.label, attributes: sample.attributes,
                                                secret: try SecretBytes(copying: sample.secret), replace: false)
            }
            let archive = bus.directory.appendingPathComponent("backup.coffer").path
            let export = try await CofferTool.run(["export", "--output", archive], input: "archive pass\n", on: bus)
            #expect(export.status == 0, "\(export.stderr)")
            #expect(export.text == "exported \(KeyringSamples.items.count) items to \(archive)\n")
            let mode = try FileManager.default.attributesOfItem(atPath: archive)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            let exists = try await CofferTool.run(["export", "--output", archive], input: "archive pass\n", on: bus)
            #expect(exists.status == 64)
            let second = bus.directory.appendingPathComponent("second.coffer").path
            let json = try await CofferTool.run(["export", "-o", second, "--json"], input: "archive pass\n", on: bus)
            #expect(try CofferTool.json(json)["exported"] as? Int == KeyringSamples.items.count, "\(json.stderr)")

            let wrong = try await CofferTool.run(["restore", archive], input: "wrong pass\n", on: bus)
            #expect(wrong.status == 51, "\(wrong.stderr)")
            let restore = try await CofferTool.run(["restore", archive, "--collection", "Restored", "--json"],
                                                   input: "archive pass\nrestored pw\n", on: bus)
            #expect(restore.status == 0, "\(restore.stderr)")
            #expect(try CofferTool.json(restore)["imported"] as? Int == KeyringSamples.items.count)
            let again = try await CofferTool.run(["restore", archive, "--collection", "Restored", "--json"],
                                                 input: "archive pass\n", on: bus)
            #expect(try CofferTool.json(again)["imported"] as? Int == 0)
            #expect(try CofferTool.json(again)["alreadyPresent"] as? Int == KeyringSamples.items.count)

            // The restored collection holds exactly the samples.
            var restoredPath: ObjectPath?
            for path in try await client.collections() where try await client.collectionProperties(path).label == "Restored" {
                restoredPath = path
            }
            let restored = try #require(restoredPath)
            let items = try await client.collectionProperties(restored).items
            let secrets = try await client.secrets(of: items)
            var found: [SampleItem] = []
            for item in items {
                let properties = try await client.itemProperties(item)
                found.append(SampleItem(label: properties.label, attributes: properties.attributes,
                                        secret: try #require(secrets[item]).value.copyBytes()))
            }
            KeyringSamples.expectMatches(
                ImportedKeyring(format: .cofferArchive, label: nil, items: found.map {
                    ImportedItem(label: $0.label, attributes: $0.attributes, secret: try! SecretBytes(copying: $0.secret))
                }), KeyringSamples.items)
        }
    }
}
