// SPDX-License-Identifier: Apache-2.0
// What an incoming path resolves to, after consulting the store and the client registry.

import DBusWire
import SecretServiceProtocol

/// The object a call addresses, resolved against current state. Collections and items keep the path they were
/// reached by (canonical or through an alias), because replies about that object speak of that path.
enum Node: Sendable {
    case service
    case collection(id: String, path: ObjectPath)
    /// `/org/freedesktop/secrets/aliases/default` before any collection exists, in a daemon that can create a
    /// password collection: only `CreateItem` answers, with a prompt that creates `login` first.
    case unsetDefaultAlias
    case item(collection: String, item: String, path: ObjectPath)
    case session(SecretSession)
    case prompt(id: String)
    /// A prompt that has completed; only `Dismiss` (a no-op then) and introspection still answer.
    case finishedPrompt(id: String)
    /// An intermediate path such as `/org/freedesktop/secrets/collection`, which only lists children.
    case directory(kind: String)
    /// `/org/freedesktop/portal/desktop`, where xdg-desktop-portal calls its backends.
    case portal

    /// The interfaces the object carries, its own first.
    var interfaces: [ServedInterface] {
        switch self {
        case .service: SecretInterfaces.service
        case .collection, .unsetDefaultAlias: SecretInterfaces.collection
        case .item: SecretInterfaces.item
        case .session: SecretInterfaces.session
        case .prompt, .finishedPrompt: SecretInterfaces.prompt
        case .directory: SecretInterfaces.directory
        case .portal: SecretInterfaces.portal
        }
    }
}

/// An incoming method call with its resolved target.
struct MethodCall: Sendable {
    var message: Message
    var caller: BusName
    var member: MemberName
    var arguments: [DBusValue]
    var node: Node
    /// When the call arrived, in boot-time clock ticks (see ``ProcessInspector``).
    var receivedAt: UInt64 = 0

    /// The arguments, read by position.
    var args: Arguments { Arguments(self) }
}

/// What a handler produces: the reply, and optionally work that must run after the reply went out
/// (a prompt's `Prompt()` answers at once and completes later).
struct HandlerResult: Sendable {
    var reply: [DBusValue]
    /// Sent instead of ``reply`` when set: for a failure that still has work to do after the answer (a prompt that
    /// cannot be shown is refused, then announced as dismissed).
    var error: SecretServiceError?
    var afterReply: (@Sendable () async -> Void)?

    init(_ reply: [DBusValue] = [], afterReply: (@Sendable () async -> Void)? = nil) {
        self.reply = reply
        self.afterReply = afterReply
    }

    init(error: SecretServiceError, afterReply: (@Sendable () async -> Void)? = nil) {
        self.reply = []
        self.error = error
        self.afterReply = afterReply
    }
}
