// SPDX-License-Identifier: Apache-2.0
// What the daemon introspects must agree with the XML files in dbus/, interface by interface.

import DBusWire
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import SecretServiceProtocol
import Testing

/// Reduces introspection XML to comparable lines per interface: members with argument types and directions,
/// properties with type and access, and the child node names.
final class IntrospectionSummary: NSObject, XMLParserDelegate {
    private(set) var interfaces: [String: [String]] = [:]
    private(set) var children: [String] = []
    private var interface: String?
    private var member: String?
    private var depth = 0

    static func parse(_ xml: String) throws -> IntrospectionSummary {
        let summary = IntrospectionSummary()
        let parser = XMLParser(data: Data(xml.utf8))
        parser.delegate = summary
        guard parser.parse() else { throw parser.parserError ?? CocoaError(.coderReadCorrupt) }
        return summary
    }

    func parser(_ parser: XMLParser, didStartElement element: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        switch element {
        case "node":
            depth += 1
            if depth == 2, let name = attributes["name"] { children.append(name) }
        case "interface":
            interface = attributes["name"]
            interfaces[interface ?? "", default: []] = []
        case "method", "signal":
            member = element + " " + (attributes["name"] ?? "")
            interfaces[interface ?? "", default: []].append(member!)
        case "arg":
            let line = "  arg \(attributes["type"] ?? "") \(attributes["direction"] ?? (member!.hasPrefix("method") ? "in" : "-"))"
            interfaces[interface ?? "", default: []].append(member! + line)
        case "property":
            interfaces[interface ?? "", default: []].append(
                "property \(attributes["name"] ?? "") \(attributes["type"] ?? "") \(attributes["access"] ?? "")")
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
        if element == "node" { depth -= 1 }
    }
}

@Suite("Introspection")
struct IntrospectionTests {
    static let dbusDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("dbus")
    static let specFile = dbusDirectory.appendingPathComponent("org.freedesktop.Secrets.xml")
    static let gnomeKeyringFile = dbusDirectory
        .appendingPathComponent("\(SecretServiceNames.gnomeInternalInterface).xml")
    static let keySlotsFile = dbusDirectory.appendingPathComponent("\(SecretServiceNames.keySlotsInterface).xml")
    static let cofferFile = dbusDirectory.appendingPathComponent("\(SecretServiceNames.cofferInterface).xml")
    static let accessFile = dbusDirectory.appendingPathComponent("\(SecretServiceNames.accessInterface).xml")
    static let syncFile = dbusDirectory.appendingPathComponent("\(SecretServiceNames.syncInterface).xml")
    static let itemsFile = dbusDirectory.appendingPathComponent("\(SecretServiceNames.itemsInterface).xml")

    func introspect(_ h: RouterHarness, _ path: ObjectPath) async throws -> IntrospectionSummary {
        let body = try await h.ok(path, SecretServiceNames.introspectableInterface, "Introspect")
        return try IntrospectionSummary.parse(try #require(body.first?.string))
    }

    @Test("every object serves exactly the spec file's interfaces, plus the standard ones")
    func matchesSpecFile() async throws {
        let spec = try IntrospectionSummary.parse(try String(contentsOf: Self.specFile, encoding: .utf8))
        let gnome = try IntrospectionSummary.parse(try String(contentsOf: Self.gnomeKeyringFile, encoding: .utf8))
        let gnomeName = SecretServiceNames.gnomeInternalInterface.rawValue
        #expect(Array(gnome.interfaces.keys) == [gnomeName])
        let keySlots = try IntrospectionSummary.parse(try String(contentsOf: Self.keySlotsFile, encoding: .utf8))
        let keySlotsName = SecretServiceNames.keySlotsInterface.rawValue
        #expect(Array(keySlots.interfaces.keys) == [keySlotsName])
        let coffer = try IntrospectionSummary.parse(try String(contentsOf: Self.cofferFile, encoding: .utf8))
        let cofferName = SecretServiceNames.cofferInterface.rawValue
        #expect(Array(coffer.interfaces.keys) == [cofferName])
        let access = try IntrospectionSummary.parse(try String(contentsOf: Self.accessFile, encoding: .utf8))
        let accessName = SecretServiceNames.accessInterface.rawValue
        #expect(Array(access.interfaces.keys) == [accessName])
        // The file declares the members `coffer access` calls, with the log's entry type.
        for member in ["ListAccess", "CollectionAccess", "GroupAccess", "Grant", "Revoke", "ReadLog"] {
            #expect(access.interfaces[accessName]?.contains("method \(member)") == true, "\(member) missing")
        }
        #expect(access.interfaces[accessName]?.contains("method ReadLog  arg a(tsssuosut) out") == true)
        let sync = try IntrospectionSummary.parse(try String(contentsOf: Self.syncFile, encoding: .utf8))
        let syncName = SecretServiceNames.syncInterface.rawValue
        #expect(Array(sync.interfaces.keys) == [syncName])
        let items = try IntrospectionSummary.parse(try String(contentsOf: Self.itemsFile, encoding: .utf8))
        let itemsName = SecretServiceNames.itemsInterface.rawValue
        #expect(Array(items.interfaces.keys) == [itemsName])
        let h = try await RouterHarness()
        let session = try await h.plainSession()
        let created = try await h.ok(defaultAlias, nil, "CreateItem", [
            .variantDictionary([:]), plainSecret(session, "x"), .boolean(false),
        ])
        let item = try #require(created[0].objectPath)
        _ = try await h.ok(service, nil, "Lock", [.objectPaths([defaultAlias])])
        let unlock = try await h.ok(service, nil, "Unlock", [.objectPaths([defaultAlias])])
        let prompt = try #require(unlock[1].objectPath)

        let objects: [(ObjectPath, String)] = [
            (service, "org.freedesktop.Secret.Service"),
            ("/org/freedesktop/secrets/collection/session", "org.freedesktop.Secret.Collection"),
            (defaultAlias, "org.freedesktop.Secret.Collection"),
            (item, "org.freedesktop.Secret.Item"),
            (session, "org.freedesktop.Secret.Session"),
            (prompt, "org.freedesktop.Secret.Prompt"),
        ]
        for (path, name) in objects {
            let served = try await introspect(h, path)
            #expect(served.interfaces[name] == spec.interfaces[name], "\(path): \(name) differs from the spec file")
            let secretInterfaces = served.interfaces.keys.filter { $0.hasPrefix("org.freedesktop.Secret.") }
            #expect(secretInterfaces == [name], "\(path)")
            // gnome-keyring's private interface lives on the service object only, beside the Service interface.
            if path == service {
                #expect(served.interfaces[gnomeName] == gnome.interfaces[gnomeName], "\(path): \(gnomeName) differs")
                #expect(served.interfaces[keySlotsName] == keySlots.interfaces[keySlotsName],
                        "\(path): \(keySlotsName) differs")
                #expect(served.interfaces[cofferName] == coffer.interfaces[cofferName],
                        "\(path): \(cofferName) differs")
                #expect(served.interfaces[accessName] == access.interfaces[accessName],
                        "\(path): \(accessName) differs")
                #expect(served.interfaces[syncName] == sync.interfaces[syncName], "\(path): \(syncName) differs")
                #expect(served.interfaces[itemsName] == items.interfaces[itemsName], "\(path): \(itemsName) differs")
            } else {
                #expect(served.interfaces[gnomeName] == nil, "\(path) serves \(gnomeName)")
                #expect(served.interfaces[keySlotsName] == nil, "\(path) serves \(keySlotsName)")
                #expect(served.interfaces[cofferName] == nil, "\(path) serves \(cofferName)")
                #expect(served.interfaces[accessName] == nil, "\(path) serves \(accessName)")
                #expect(served.interfaces[syncName] == nil, "\(path) serves \(syncName)")
                #expect(served.interfaces[itemsName] == nil, "\(path) serves \(itemsName)")
            }
            for standard in ["org.freedesktop.DBus.Properties", "org.freedesktop.DBus.Introspectable",
                             "org.freedesktop.DBus.Peer"] {
                #expect(served.interfaces[standard] != nil, "\(path) lacks \(standard)")
            }
        }
        #expect(Set(spec.interfaces.keys) == Set(objects.map(\.1)))
    }

    @Test("the portal object serves the Secret portal backend interface exactly as its file declares it")
    func portalMatchesFile() async throws {
        let name = SecretServiceNames.portalSecretInterface.rawValue
        let file = try IntrospectionSummary.parse(try String(
            contentsOf: Self.dbusDirectory.appendingPathComponent("\(name).xml"), encoding: .utf8))
        #expect(Array(file.interfaces.keys) == [name])
        let served = try await introspect(try await RouterHarness(), SecretServiceNames.portalPath)
        #expect(served.interfaces[name] == file.interfaces[name])
        #expect(Set(served.interfaces.keys) == [name, "org.freedesktop.DBus.Properties",
                                                "org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Peer"])
    }

    @Test("child nodes list the live tree so walkers reach every object")
    func children() async throws {
        let h = try await RouterHarness()
        let session = try await h.plainSession()
        _ = try await h.ok(defaultAlias, nil, "CreateItem", [.variantDictionary([:]), plainSecret(session, "x"),
                                                             .boolean(false)])
        #expect(try await introspect(h, service).children == ["aliases", "collection", "session"])
        #expect(try await introspect(h, "/org/freedesktop/secrets/collection").children == ["session"])
        #expect(try await introspect(h, "/org/freedesktop/secrets/aliases").children == ["default", "session"])
        #expect(try await introspect(h, "/org/freedesktop/secrets/collection/session").children == ["1"])
        #expect(try await introspect(h, defaultAlias).children == ["1"])
        #expect(try await introspect(h, "/org/freedesktop/secrets/session").children == ["1"])
    }
}
