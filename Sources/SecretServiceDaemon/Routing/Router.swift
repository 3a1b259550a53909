// SPDX-License-Identifier: Apache-2.0
// Routes each incoming method call to the adaptor of its object and interface, and answers it.

public import DBusWire
public import Logging
import SecretServiceProtocol
public import SecretStore

/// Turns method calls into replies. It resolves the path against current state, finds the interface and member in
/// the declarations, checks the argument signature, runs the adaptor, and is the single place where failures
/// become D-Bus errors.
public struct Router: Sendable {
    let context: DaemonContext
    /// Calls whose arguments are larger are refused before they are resolved or dispatched.
    let maximumCallBytes: Int

    /// - Parameters:
    ///   - store: the state owner.
    ///   - prompter: answers prompts.
    ///   - sender: where replies and signals go.
    ///   - clientLimits: per-client caps on sessions and prompts.
    ///   - promptAgentTimeout: how long a user has to answer a prompt at a `coffer prompt-agent`.
    ///   - accessPolicy: which collections guard items from other applications; none unless given.
    ///   - logger: for call diagnostics (never secrets or attribute values).
    public init(store: SecretStore, prompter: any Prompter, sender: any MessageSender,
                clientLimits: ClientLimits = .default, promptAgentTimeout: Duration = .seconds(300),
                accessPolicy: AccessPolicy = .off, logger: Logger) {
        let clients = ClientRegistry(limits: clientLimits)
        // Password prompts fall back to a `coffer prompt-agent` where no pinentry can be seen. A prompter with no
        // passwords to give (approving every prompt) stays as it is.
        var prompter = prompter
        if let primary = prompter as? any PasswordPrompter {
            prompter = AgentPrompter(primary: primary, clients: clients, sender: sender, logger: logger,
                                     timeout: promptAgentTimeout)
        }
        context = DaemonContext(store: store, clients: clients, unlocks: UnlockCoordinator(),
                                prompter: prompter, sender: sender, logger: logger,
                                access: AccessGate(policy: accessPolicy, sender: sender, store: store, logger: logger))
        maximumCallBytes = clientLimits.maximumCallBytes
    }

    /// Answers one incoming method call (other message kinds are ignored).
    public func handle(_ message: Message) async {
        guard message.kind == .methodCall, let member = message.member, let path = message.path else { return }
        // Before anything else asks the bus: the caller's process must have started by now (ProcessInspector).
        let receivedAt = ProcessInspector.bootTicks()
        let result: HandlerResult
        do {
            guard let caller = message.sender else { throw SecretServiceError.accessDenied("the caller has no name") }
            try await context.access.admit(caller, receivedAt: receivedAt)
            guard !CallSize.exceeds(message.body, limit: maximumCallBytes) else {
                throw SecretServiceError.limitsExceeded("the call's arguments exceed \(maximumCallBytes) bytes")
            }
            await PendingUnlockGate.waitIfNeeded(path, message.interface, member, context: context)
            let node = try await NodeResolver(context: context).resolve(path, caller: caller)
            let method = try Self.lookUp(member, in: message.interface, on: node)
            guard message.signature == method.description.inputSignature else {
                throw SecretServiceError.invalidArgs(
                    "\(member) expects arguments of type '\(method.description.inputSignature)', got '\(message.signature)'")
            }
            let call = MethodCall(message: message, caller: caller, member: member, arguments: message.body, node: node,
                                  receivedAt: receivedAt)
            result = try await method.answer(context, call)
        } catch let error as SecretServiceError {
            if case .failed(let reason) = error {
                // The daemon's own failure (no secure memory, a full disk), not the caller's mistake: worth a line.
                callLogger(message).error("call failed", metadata: ["reason": "\(reason)"])
            } else {
                callLogger(message).debug("call failed", metadata: ["dbus.error": "\(error.dbusError.name)"])
            }
            await reply(to: message, with: message.makeErrorReply(error.dbusError))
            return
        } catch {
            callLogger(message).error("call failed unexpectedly", metadata: ["error": "\(type(of: error))"])
            await reply(to: message, with: message.makeErrorReply(DBusError(.failed, "internal error")))
            return
        }
        if let error = result.error {
            callLogger(message).debug("call refused", metadata: ["reason": "\(error.dbusError.message)"])
            await reply(to: message, with: message.makeErrorReply(error.dbusError))
        } else {
            await reply(to: message, with: message.makeReply(result.reply))
        }
        await result.afterReply?()
    }

    /// The logger with the call's member, path and sender. Built only when there is something to log: setting
    /// metadata re-renders the handler's metadata each time, which cost a noticeable share of every call.
    private func callLogger(_ message: Message) -> Logger {
        var logger = context.logger
        logger[metadataKey: "dbus.member"] = "\(message.member.map { "\($0)" } ?? "-")"
        logger[metadataKey: "dbus.path"] = "\(message.path.map { "\($0)" } ?? "-")"
        logger[metadataKey: "dbus.sender"] = "\(message.sender?.rawValue ?? "-")"
        return logger
    }

    private func reply(to call: Message, with reply: Message) async {
        guard !call.noReplyExpected else { return }
        await context.sender.deliver(reply)
    }

    /// Finds the member on the named interface, or on the first interface that has it when none is named.
    static func lookUp(_ member: MemberName, in interface: InterfaceName?, on node: Node)
        throws(SecretServiceError) -> ServedMethod {
        let interfaces = node.interfaces
        if let interface {
            guard let served = interfaces.first(where: { $0.name == interface }) else {
                throw .unknownMethod("no interface '\(interface)' on this object")
            }
            guard let method = served.method(member) else {
                throw .unknownMethod("no method '\(member)' in interface '\(interface)'")
            }
            return method
        }
        for served in interfaces {
            if let method = served.method(member) { return method }
        }
        throw .unknownMethod("no method '\(member)' on this object")
    }

    // MARK: - Lifecycle hooks for the daemon

    /// Forgets a client that left the bus: its sessions close, its prompts end without `Completed`.
    public func clientVanished(_ name: BusName) async {
        await context.access.clientVanished(name)
        let dropped = await context.clients.clientVanished(name)
        if !dropped.isEmpty {
            context.logger.debug("client left with pending prompts", metadata: ["prompts": "\(dropped.count)"])
        }
    }

    /// Dismisses every live prompt and tells each owner (`Completed(true, …)`), so prompt dialogues end and the calls
    /// running them return; used at shutdown.
    public func dismissAllPrompts() async {
        for (id, owner, completion) in await context.clients.dismissAll() {
            await context.emit(SecretServiceNames.promptInterface, "Completed", from: Paths.prompt(id),
                               [.boolean(completion.dismissed), .variant(completion.result)], to: owner)
        }
    }

    /// Turns store changes into D-Bus signals until the store's event stream ends or the task is cancelled, and
    /// hands master-key changes to the access log (which are store changes too, with no signal).
    public func publishChanges() async {
        await Signaller(context: context).run()
    }

    /// Hands every master key change of the store to the access log, which seals the old log key under the new one.
    public func followKeyChanges() async {
        await context.access.followKeyChanges()
    }
}
