// SPDX-License-Identifier: Apache-2.0
// Drives the router with Message values and captures what it sends, with no bus involved.

import DBusWire
import Logging
import SecretCrypto
import SecretServiceDaemon
import SecretServiceProtocol
import SecretStore
import Testing

/// A router over a fresh store with a `session` collection aliased as `default`, and a capturing sender.
struct RouterHarness {
    let store: SecretStore
    let sender = CapturingSender()
    /// Which callers have left the bus, as the router's presence check sees it.
    let bus = BusPresence()
    let router: Router
    private let serials = SerialCounter()

    static let first = BusName(unchecked: ":1.10")
    static let second = BusName(unchecked: ":1.11")

    /// - Parameters:
    ///   - prompter: answers the router's prompts.
    ///   - dataDirectory: where the store keeps password-protected collections (`nil`: memory only). The caller
    ///     owns the directory and removes it; new passwords use cheap key derivation, since tests measure behaviour.
    ///   - itemLimits: the store's limits; `clientLimits`: the router's (tests of the limits make them small).
    init(prompter: any Prompter = FixedPrompter.autoAccept, dataDirectory: String? = nil,
         itemLimits: ItemLimits = .default, clientLimits: ClientLimits = .default) async throws {
        store = SecretStore(limits: itemLimits, directory: dataDirectory,
                            keyDerivation: Argon2idParameters(iterations: 1, memoryKiB: 256, parallelism: 1))
        router = Router(store: store, prompter: prompter, sender: HarnessSender(capture: sender, bus: bus),
                        clientLimits: clientLimits,
                        logger: Logger(label: "test"))
        _ = try await store.createCollection(label: "Session", alias: "session", inMemory: true, preferredID: "session")
        try await store.setAlias("default", to: "session")
    }

    /// Sends a call and returns the router's direct answer (the first reply or error to this call).
    @discardableResult
    func call(_ path: ObjectPath, _ interface: InterfaceName?, _ member: MemberName, _ body: [DBusValue] = [],
              from caller: BusName = RouterHarness.first) async -> Message {
        var message = Message.methodCall(destination: SecretServiceNames.busName, path: path, interface: interface,
                                         member: member, body: body)
        message.serial = await serials.next()
        message.sender = caller
        await router.handle(message)
        let sent = await sender.messages
        return sent.last { $0.replySerial == message.serial }!
    }

    /// Calls and requires a successful reply; returns its body.
    func ok(_ path: ObjectPath, _ interface: InterfaceName?, _ member: MemberName, _ body: [DBusValue] = [],
            from caller: BusName = RouterHarness.first, sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> [DBusValue] {
        let reply = await call(path, interface, member, body, from: caller)
        #expect(reply.kind == .methodReturn, "\(reply.error.map(String.init(describing:)) ?? "")",
                sourceLocation: sourceLocation)
        return reply.body
    }

    /// Calls and returns the D-Bus error name of the reply (nil on success).
    func errorName(_ path: ObjectPath, _ interface: InterfaceName?, _ member: MemberName, _ body: [DBusValue] = [],
                   from caller: BusName = RouterHarness.first) async -> String? {
        await call(path, interface, member, body, from: caller).errorName?.rawValue
    }

    /// Opens a plain session and returns its path.
    func plainSession(for caller: BusName = RouterHarness.first) async throws -> ObjectPath {
        let body = try await ok(SecretServiceNames.servicePath, SecretServiceNames.serviceInterface, "OpenSession",
                                [.string("plain"), .variant(.string(""))], from: caller)
        return try #require(body[1].objectPath)
    }

    /// Signals sent so far with the given member.
    func signals(_ member: MemberName) async -> [Message] {
        await sender.messages.filter { $0.kind == .signal && $0.member == member }
    }
}

/// The callers that left the bus, for the router's question whether a caller is still there.
actor BusPresence {
    private var departed: Set<BusName> = []

    func leave(_ name: BusName) { departed.insert(name) }
    func isOnBus(_ name: BusName) -> Bool { !departed.contains(name) }
}

/// Captures what the router sends and answers its presence questions from a ``BusPresence``.
struct HarnessSender: MessageSender {
    let capture: CapturingSender
    let bus: BusPresence

    func deliver(_ message: Message) async { await capture.deliver(message) }
    func isOnBus(_ name: BusName) async -> Bool { await bus.isOnBus(name) }
}

actor SerialCounter {
    private var value: UInt32 = 0
    func next() -> UInt32 {
        value += 1
        return value
    }
}

func plainSecret(_ session: ObjectPath, _ text: String, contentType: String = "text/plain") -> DBusValue {
    WireSecret(session: session, parameters: [], value: Array(text.utf8), contentType: contentType).dbusValue
}

let service = SecretServiceNames.servicePath
let defaultAlias: ObjectPath = "/org/freedesktop/secrets/aliases/default"
