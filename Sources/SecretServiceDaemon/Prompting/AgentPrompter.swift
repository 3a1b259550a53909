// SPDX-License-Identifier: Apache-2.0
// Sends prompts to a `coffer prompt-agent` when the pinentry could not be seen by anyone.

import DBusWire
import Logging
import SecretCrypto
import SecretServiceProtocol
import SecretStore

/// A ``PasswordPrompter`` that uses `primary` (the pinentry) wherever it can reach the user, and otherwise the
/// newest registered prompt agent: a `coffer prompt-agent` running in the user's SSH shell.
///
/// The agent is called on its own connection (`io.coffer.PromptAgent`); its password comes back as a Secret
/// struct encoded with the agent's encrypted session, so it crosses the bus the way secrets do and lands in secure
/// memory. Cancelling the calling task (a dismissed prompt) cancels the call.
struct AgentPrompter: PasswordPrompter {
    static let agentInterface: InterfaceName = "io.coffer.PromptAgent"
    /// The error an agent answers when the user declined (Ctrl-D, or a confirmation that did not match).
    static let dismissedError: ErrorName = "io.coffer.Error.Dismissed"

    let primary: any PasswordPrompter
    let clients: ClientRegistry
    let sender: any MessageSender
    let logger: Logger
    /// How long the user has to answer at the agent.
    let timeout: Duration

    func unavailability() async -> PromptUnavailability? {
        guard let reason = await primary.unavailability() else { return nil }
        return await clients.currentPromptAgent == nil ? reason : nil
    }

    func approve(_ request: PromptRequest) async -> Bool {
        guard await primary.unavailability() != nil, let agent = await clients.currentPromptAgent else {
            return await primary.approve(request)
        }
        let text = PinentryText(request)
        return await ask(agent, "Confirm", [.string(text.title), .string(text.description)]) != nil
    }

    /// `Consent(s title, s description, b keeps) → s answer`: the agent offers allow once, always allow and deny,
    /// and after "always" (when `keeps`) this secret or group only, or the whole keyring, as the pinentry does.
    /// An agent from before this call knows only `Confirm`: its yes allows once.
    func consent(_ request: PromptRequest) async -> AccessAnswer {
        guard await primary.unavailability() != nil, let agent = await clients.currentPromptAgent else {
            return await primary.consent(request)
        }
        let text = PinentryText(request)
        var keeps = false
        if case .access(let access) = request.kind { keeps = access.keepsAnswer }
        let call = Message.methodCall(destination: agent.owner, path: agent.path, interface: Self.agentInterface,
                                      member: "Consent",
                                      body: [.string(text.title), .string(text.description), .boolean(keeps)])
        do {
            let reply = try await sender.call(call, timeout: timeout)
            switch reply.body.first?.string {
            case AgentConsent.once?: return .allowOnce
            case AgentConsent.always? where keeps: return .alwaysAllow
            case AgentConsent.keyring? where keeps: return .alwaysAllowCollection
            default:
                logger.info("the prompt agent gave an answer it was not offered; access is denied",
                            metadata: ["dbus.sender": "\(agent.owner.rawValue)"])
                return .deny
            }
        } catch let error as DBusError where error.name == .unknownMethod {
            return await approve(request) ? .allowOnce : .deny
        } catch let error as DBusError where error.name == Self.dismissedError {
            logger.debug("the user denied access at the agent")
            return .deny
        } catch {
            logger.info("the prompt agent did not answer; access is denied",
                        metadata: ["dbus.sender": "\(agent.owner.rawValue)", "error": "\(error)"])
            return .deny
        }
    }

    func password(for request: PasswordRequest) async -> SecretBytes? {
        guard await primary.unavailability() != nil, let agent = await clients.currentPromptAgent else {
            return await primary.password(for: request)
        }
        let text = request.isPasswordChange ? PinentryText(changingFrom: request) : PinentryText(unlocking: request)
        return await askPassword(agent, text: text, error: request.errorText, new: false)
    }

    func newPassword(for request: PasswordRequest) async -> SecretBytes? {
        guard await primary.unavailability() != nil, let agent = await clients.currentPromptAgent else {
            return await primary.newPassword(for: request)
        }
        let text = request.isPasswordChange ? PinentryText(changingTo: request) : PinentryText(creating: request)
        return await askPassword(agent, text: text, error: nil, new: true)
    }

    /// `AskPassword(s title, s description, s error, b new) → ((oayays) secret)`.
    private func askPassword(_ agent: PromptAgent, text: PinentryText, error: String?, new: Bool) async
        -> SecretBytes? {
        let body: [DBusValue] = [.string(text.title), .string(text.description), .string(error ?? ""), .boolean(new)]
        guard let reply = await ask(agent, "AskPassword", body) else { return nil }
        guard reply.signature == "(oayays)", let first = reply.body.first, let wire = WireSecret(first),
              wire.session == agent.session.path
        else {
            logger.notice("a prompt agent answered with something other than a secret in its session",
                          metadata: ["dbus.sender": "\(agent.owner.rawValue)"])
            return nil
        }
        do {
            return try agent.session.decode(wire).value
        } catch {
            logger.notice("a prompt agent's answer could not be decoded", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Calls the agent; `nil` when it declined, failed, timed out, left, or the prompt was dismissed.
    private func ask(_ agent: PromptAgent, _ member: MemberName, _ body: [DBusValue]) async -> Message? {
        let call = Message.methodCall(destination: agent.owner, path: agent.path, interface: Self.agentInterface,
                                      member: member, body: body)
        do {
            return try await sender.call(call, timeout: timeout)
        } catch let error as DBusError where error.name == Self.dismissedError {
            logger.debug("the user dismissed the prompt at the agent")
            return nil
        } catch {
            logger.info("the prompt agent did not answer; the prompt is dismissed",
                        metadata: ["dbus.sender": "\(agent.owner.rawValue)", "error": "\(error)"])
            return nil
        }
    }
}
