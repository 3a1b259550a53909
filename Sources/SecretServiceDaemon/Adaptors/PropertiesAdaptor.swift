// org.freedesktop.DBus.Properties
// SPDX-License-Identifier: Apache-2.0
// Get, GetAll and Set for every Secret Service object, checked against the declarations.

import DBusWire
import SecretServiceProtocol

/// Serves `org.freedesktop.DBus.Properties` by asking the object's own adaptor for its values.
struct PropertiesAdaptor {
    let context: DaemonContext

    static let interface = ServedInterface(
        SecretServiceNames.propertiesInterface, adaptor: PropertiesAdaptor.init,
        methods: [
            AdaptorMethod("Get", in: [.init("interface_name", .string), .init("property_name", .string)],
                          out: [.init("value", .variant)]) { adaptor, call in
                let (interface, name) = (try call.args.string(0), try call.args.string(1))
                let values = try await adaptor.properties(of: call.node, interface: interface, caller: call.caller)
                guard let value = values[name] else { throw SecretServiceError.unknownProperty("no property '\(name)' on this object") }
                return HandlerResult([.variant(value)])
            },
            AdaptorMethod("GetAll", in: [.init("interface_name", .string)],
                          out: [.init("properties", SecretInterfaces.propertyMap)]) { adaptor, call in
                let values = try await adaptor.properties(of: call.node, interface: try call.args.string(0),
                                                          caller: call.caller)
                return HandlerResult([.variantDictionary(values)])
            },
            AdaptorMethod("Set", in: [.init("interface_name", .string), .init("property_name", .string),
                                      .init("value", .variant)]) { adaptor, call in
                let args = call.args
                try await adaptor.set(try args.string(1), to: try args.variant(2), interface: try args.string(0),
                                      on: call.node, caller: call.caller)
                return HandlerResult()
            },
        ],
        signals: [SignalDescription("PropertiesChanged", [
            .init("interface_name", .string), .init("changed_properties", SecretInterfaces.propertyMap),
            .init("invalidated_properties", .array(.string)),
        ])])

    /// The properties of the node's interface `interface` (all of its interfaces when empty).
    private func properties(of node: Node, interface: String, caller: BusName) async throws(SecretServiceError)
        -> [String: DBusValue] {
        let interfaces = node.interfaces
        let own = interfaces.first!
        guard interface.isEmpty || interfaces.contains(where: { $0.name.rawValue == interface }) else {
            throw .invalidArgs("no interface '\(interface)' on this object")
        }
        guard interface.isEmpty || interface == own.name.rawValue else { return [:] }
        switch node {
        case .service: return await ServiceAdaptor(context: context).properties()
        case .collection(let id, _): return try await CollectionAdaptor(context: context).properties(of: id)
        case .item(let collection, let item, _):
            return try await ItemAdaptor(context: context).properties(collection: collection, item: item, caller: caller)
        case .unsetDefaultAlias: throw .noSuchObject("no such collection")
        case .portal: return PortalSecretAdaptor.properties
        case .session, .prompt, .finishedPrompt, .directory: return [:]
        }
    }

    private func set(_ name: String, to value: DBusValue, interface: String, on node: Node, caller: BusName)
        async throws(SecretServiceError) {
        let interfaces = node.interfaces.map(\.description)
        let candidates = interface.isEmpty ? interfaces : interfaces.filter { $0.name.rawValue == interface }
        guard !candidates.isEmpty else { throw .invalidArgs("no interface '\(interface)' on this object") }
        guard let property = candidates.lazy.compactMap({ $0.property(name) }).first else {
            throw .unknownProperty("no property '\(name)' on this object")
        }
        guard property.access == .readwrite else { throw .propertyReadOnly("the property '\(name)' is read-only") }
        guard value.type == property.type else {
            throw .invalidArgs("the property '\(name)' has type '\(property.type)', got '\(value.type)'")
        }
        switch node {
        case .collection(let id, _):
            try await CollectionAdaptor(context: context).setProperty(name, to: value, of: id)
        case .item(let collection, let item, _):
            try await ItemAdaptor(context: context).setProperty(name, to: value, collection: collection, item: item,
                                                                caller: caller)
        default:
            throw .propertyReadOnly("the property '\(name)' is read-only")
        }
    }
}
