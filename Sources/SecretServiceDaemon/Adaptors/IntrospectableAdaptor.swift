// org.freedesktop.DBus.Introspectable
// SPDX-License-Identifier: Apache-2.0
// Introspection XML for every object, with the current children so tree walkers see everything.

import DBusWire
import SecretServiceProtocol
import SecretStore

/// Serves `org.freedesktop.DBus.Introspectable` from the same declarations dispatch uses.
struct IntrospectableAdaptor {
    let context: DaemonContext

    static let interface = ServedInterface(
        SecretServiceNames.introspectableInterface, adaptor: IntrospectableAdaptor.init,
        methods: [
            AdaptorMethod("Introspect", out: [.init("xml_data", .string)]) { adaptor, call in
                let xml = Introspection.document(interfaces: call.node.interfaces.map(\.description),
                                                 children: await adaptor.children(of: call.node))
                return HandlerResult([.string(xml)])
            },
        ])

    private func children(of node: Node) async -> [String] {
        let store = context.store
        switch node {
        case .service:
            var kinds = ["aliases", "collection"]
            if await !context.clients.promptIDs().isEmpty { kinds.append("prompt") }
            if await !context.clients.sessionIDs().isEmpty { kinds.append("session") }
            return kinds
        case .collection(let id, _):
            return (try? await store.itemIDs(in: id)) ?? []
        case .directory(let kind):
            switch kind {
            case "collection": return await store.collectionIDs()
            case "aliases": return await store.aliasNames()
            case "session": return await context.clients.sessionIDs()
            case "prompt": return await context.clients.promptIDs()
            default: return []
            }
        case .item, .session, .prompt, .finishedPrompt, .unsetDefaultAlias, .portal:
            return []
        }
    }
}
