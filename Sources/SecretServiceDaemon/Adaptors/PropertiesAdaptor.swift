// org.freedesktop.DBus.Properties
// SPDX-License-Identifier: Apache-2.0
// Get, GetAll and Set for every Secret Service object, checked against the declarations.

import DBusWire
import SecretServiceProtocol

/// Serves `org.freedesktop.DBus.Properties` by asking the object's own adaptor for its values.
struct PropertiesAdaptor {
    let context: DaemonContext

    func call(_ call: MethodCall) async throws(SecretServiceError) -> HandlerResult {
        let args = Arguments(call)
        switch call.member {
        case "Get":
            let (interface, name) = (try args.string(0), try args.string(1))
            let values = try await properties(of: call.node, interface: interface)
            guard let value = values[name] else { throw .unknownProperty("no property '\(name)' on this object") }
            return HandlerResult([.variant(value)])
        case "GetAll":
            let values = try await properties(of: call.node, interface: try args.string(0))
            return HandlerResult([.variantDictionary(values)])
        case "Set":
            try await set(try args.string(1), to: try args.variant(2), interface: try args.string(0), on: call.node)
            return HandlerResult()
        default:
            throw .unknownMethod("no method '\(call.member)' in the Properties interface")
        }
    }

    /// The properties of the node's interface `interface` (all of its interfaces when empty).
    private func properties(of node: Node, interface: String) async throws(SecretServiceError) -> [String: DBusValue] {
        let own = node.interfaces.first!
        guard interface.isEmpty || node.interfaces.contains(where: { $0.name.rawValue == interface }) else {
            throw .invalidArgs("no interface '\(interface)' on this object")
        }
        guard interface.isEmpty || interface == own.name.rawValue else { return [:] }
        switch node {
        case .service: return await ServiceAdaptor(context: context).properties()
        case .collection(let id, _): return try await CollectionAdaptor(context: context).properties(of: id)
        case .item(let collection, let item, _):
            return try await ItemAdaptor(context: context).properties(collection: collection, item: item)
        case .unsetDefaultAlias: throw .noSuchObject("no such collection")
        case .portal: return PortalSecretAdaptor.properties
        case .session, .prompt, .finishedPrompt, .directory: return [:]
        }
    }

    private func set(_ name: String, to value: DBusValue, interface: String, on node: Node)
        async throws(SecretServiceError) {
        let candidates = interface.isEmpty ? node.interfaces : node.interfaces.filter { $0.name.rawValue == interface }
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
            try await ItemAdaptor(context: context).setProperty(name, to: value, collection: collection, item: item)
        default:
            throw .propertyReadOnly("the property '\(name)' is read-only")
        }
    }
}
