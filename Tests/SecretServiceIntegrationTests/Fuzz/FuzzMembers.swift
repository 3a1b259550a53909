// SPDX-License-Identifier: Apache-2.0
// Every interface and member of cofferd's object tree, with the argument types each expects.

import DBusWire
import Foundation

/// The kinds of objects in the tree; a member is called on objects of its kind (and, as a hostile call, on others).
enum FuzzNodeKind: CaseIterable, Sendable {
    case service, collection, item, session, prompt
    /// `/org/freedesktop/portal/desktop`, the Secret portal's backend.
    case portal
}

/// One method of the tree.
struct FuzzMember: Sendable, Hashable {
    var interface: String
    var member: String
    var input: [DBusType]
    /// Where the member lives; `nil` for the standard interfaces every object carries.
    var node: FuzzNodeKind?

    var key: String { "\(interface).\(member)" }
}

enum FuzzMembers {
    static let secret = DBusType.structure([.objectPath, .array(.byte), .array(.byte), .string])
    static let paths = DBusType.array(.objectPath)
    static let attributes = DBusType.dictionary(key: .string, value: .string)
    static let properties = DBusType.dictionary(key: .string, value: .variant)

    static let service = "org.freedesktop.Secret.Service"
    static let collection = "org.freedesktop.Secret.Collection"
    static let item = "org.freedesktop.Secret.Item"
    static let session = "org.freedesktop.Secret.Session"
    static let prompt = "org.freedesktop.Secret.Prompt"
    static let gnome = "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface"
    static let keySlots = "io.coffer.KeySlots"
    static let coffer = "io.coffer.Daemon"
    static let access = "io.coffer.Access"
    static let items = "io.coffer.Items"
    static let sync = "io.coffer.Sync"
    static let portalSecret = "org.freedesktop.impl.portal.Secret"
    static let portalPath: ObjectPath = "/org/freedesktop/portal/desktop"
    static let propertiesInterface = "org.freedesktop.DBus.Properties"
    static let introspectable = "org.freedesktop.DBus.Introspectable"
    static let peer = "org.freedesktop.DBus.Peer"

    /// The whole tree. The test checks this list against what the daemon introspects, so a member added to the
    /// daemon and not here fails the run instead of going unfuzzed.
    static let all: [FuzzMember] = [
        FuzzMember(interface: service, member: "OpenSession", input: [.string, .variant], node: .service),
        FuzzMember(interface: service, member: "CreateCollection", input: [properties, .string], node: .service),
        FuzzMember(interface: service, member: "SearchItems", input: [attributes], node: .service),
        FuzzMember(interface: service, member: "Unlock", input: [paths], node: .service),
        FuzzMember(interface: service, member: "Lock", input: [paths], node: .service),
        FuzzMember(interface: service, member: "GetSecrets", input: [paths, .objectPath], node: .service),
        FuzzMember(interface: service, member: "ReadAlias", input: [.string], node: .service),
        FuzzMember(interface: service, member: "SetAlias", input: [.string, .objectPath], node: .service),
        FuzzMember(interface: gnome, member: "ChangeWithMasterPassword", input: [.objectPath, secret, secret],
                   node: .service),
        FuzzMember(interface: gnome, member: "ChangeWithPrompt", input: [.objectPath], node: .service),
        FuzzMember(interface: gnome, member: "CreateWithMasterPassword", input: [properties, secret], node: .service),
        FuzzMember(interface: gnome, member: "UnlockWithMasterPassword", input: [.objectPath, secret],
                   node: .service),
        FuzzMember(interface: keySlots, member: "ListKeySlots", input: [.objectPath], node: .service),
        FuzzMember(interface: keySlots, member: "AddKeySlot", input: [.objectPath, secret, .string, secret],
                   node: .service),
        FuzzMember(interface: keySlots, member: "RemoveKeySlot", input: [.objectPath, secret, .uint32],
                   node: .service),
        FuzzMember(interface: keySlots, member: "ChangePassword", input: [.objectPath, secret, secret], node: .service),
        FuzzMember(interface: keySlots, member: "UnlockWithKeySlot", input: [.objectPath, secret], node: .service),
        FuzzMember(interface: coffer, member: "LastFailedPrompt", input: [], node: .service),
        FuzzMember(interface: coffer, member: "RegisterPromptAgent", input: [.objectPath, .objectPath],
                   node: .service),
        FuzzMember(interface: access, member: "ListAccess", input: [.objectPath], node: .service),
        FuzzMember(interface: access, member: "CollectionAccess", input: [.objectPath], node: .service),
        FuzzMember(interface: access, member: "GroupAccess", input: [.objectPath], node: .service),
        FuzzMember(interface: access, member: "Grant", input: [.objectPath, .string, paths], node: .service),
        FuzzMember(interface: access, member: "Revoke", input: [.objectPath, .string, paths], node: .service),
        FuzzMember(interface: access, member: "ReadLog", input: [.uint64], node: .service),
        FuzzMember(interface: items, member: "GetItemProperties", input: [paths], node: .service),
        FuzzMember(interface: items, member: "SearchOldestFirst", input: [attributes, attributes], node: .service),
        FuzzMember(interface: sync, member: "Enable", input: [.objectPath, secret, .string], node: .service),
        FuzzMember(interface: sync, member: "Join", input: [.string, .string, secret, .string], node: .service),
        FuzzMember(interface: sync, member: "SetAside", input: [.string], node: .service),
        FuzzMember(interface: sync, member: "Synchronized", input: [], node: .service),
        FuzzMember(interface: sync, member: "Leave", input: [.objectPath], node: .service),
        FuzzMember(interface: portalSecret, member: "RetrieveSecret",
                   input: [.objectPath, .string, .unixFD, properties], node: .portal),
        FuzzMember(interface: collection, member: "Delete", input: [], node: .collection),
        FuzzMember(interface: collection, member: "SearchItems", input: [attributes], node: .collection),
        FuzzMember(interface: collection, member: "CreateItem", input: [properties, secret, .boolean],
                   node: .collection),
        FuzzMember(interface: item, member: "Delete", input: [], node: .item),
        FuzzMember(interface: item, member: "GetSecret", input: [.objectPath], node: .item),
        FuzzMember(interface: item, member: "SetSecret", input: [secret], node: .item),
        FuzzMember(interface: session, member: "Close", input: [], node: .session),
        FuzzMember(interface: prompt, member: "Prompt", input: [.string], node: .prompt),
        FuzzMember(interface: prompt, member: "Dismiss", input: [], node: .prompt),
        FuzzMember(interface: propertiesInterface, member: "Get", input: [.string, .string], node: nil),
        FuzzMember(interface: propertiesInterface, member: "GetAll", input: [.string], node: nil),
        FuzzMember(interface: propertiesInterface, member: "Set", input: [.string, .string, .variant], node: nil),
        FuzzMember(interface: introspectable, member: "Introspect", input: [], node: nil),
        FuzzMember(interface: peer, member: "Ping", input: [], node: nil),
        FuzzMember(interface: peer, member: "GetMachineId", input: [], node: nil),
    ]

    /// Property names of every interface, so Get/Set reach real properties as well as unknown ones.
    static let propertyNames = ["Collections", "Items", "Label", "Locked", "Created", "Modified", "Attributes"]

    /// The `interface.member` pairs an introspection document declares (`<interface name=…>` and `<method name=…>`).
    static func declaredMethods(in xml: String) -> Set<String> {
        var found: Set<String> = []
        var interface = ""
        for line in xml.split(separator: "\n") {
            if let name = attribute("name", of: "<interface ", in: line) { interface = name }
            if let name = attribute("name", of: "<method ", in: line) { found.insert("\(interface).\(name)") }
        }
        return found
    }

    private static func attribute(_ attribute: String, of tag: String, in line: Substring) -> String? {
        guard let start = line.range(of: tag),
              let open = line.range(of: "\(attribute)=\"", range: start.upperBound..<line.endIndex),
              let close = line.range(of: "\"", range: open.upperBound..<line.endIndex)
        else { return nil }
        return String(line[open.upperBound..<close.lowerBound])
    }
}
