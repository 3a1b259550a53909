// SPDX-License-Identifier: Apache-2.0
// `coffer prompt-agent`: answers cofferd's password prompts on this terminal, for SSH sessions with no display.

import ArgumentParser
import DBusTransport
import DBusWire
import Foundation
import SecretCrypto
import SecretServiceClient
import SecretServiceProtocol

struct PromptAgent: CofferCommand {
    static let configuration = CommandConfiguration(
        commandName: "prompt-agent",
        abstract: "Answer cofferd's password prompts on this terminal (for SSH sessions and consoles with no display).",
        discussion: """
            Registers with cofferd and waits. When cofferd needs a password and has no display or terminal to \
            show a pinentry on, it asks here instead: type the password at the prompt (it is not echoed), or \
            press Ctrl-D to dismiss. The password travels to cofferd encrypted in this agent's own Secret \
            Service session. Run it in the foreground of the shell you work in (or in a second one); the newest \
            agent answers. When standard input is not a terminal, each prompt reads one line from it. Stops on \
            Ctrl-C or when the bus goes away; registers again when cofferd restarts. See docs/PROMPTS.md.
            """)

    static let objectPath = ObjectPath(unchecked: "/io/coffer/PromptAgent")

    func execute() async throws {
        // A bus that cannot be reached is reported by FailureReport, in the line every verb uses.
        let connection = try await Connection.connectToSessionBus()
        try await connection.registerObjectTree(at: Self.objectPath)
        try await connection.addMatch(
            "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',"
                + "member='NameOwnerChanged',arg0='\(SecretServiceNames.busName.rawValue)'")
        var session = try await register(on: connection)
        Console.error("answering cofferd's prompts on this terminal; Ctrl-C stops")
        for await message in connection.messages {
            switch message.kind {
            case .methodCall:
                _ = try? await connection.send(answer(message, session: session))
            case .signal where message.member == "NameOwnerChanged":
                // A new cofferd knows nothing of us: register again, with a fresh session.
                guard message.body.count == 3, let owner = message.body[2].string, !owner.isEmpty else { continue }
                session = try await register(on: connection)
                Console.error("cofferd restarted; registered again")
            default:
                continue
            }
        }
    }

    /// Opens an encrypted session with the provider (starting cofferd if the bus activates it) and registers.
    private func register(on connection: Connection) async throws -> ClientSession {
        let service = ServiceProxy(connection: connection)
        let session = try await ClientSession.open(with: service, preferring: .dh, allowPlainFallback: false)
        let call = Message.methodCall(
            destination: SecretServiceNames.busName, path: SecretServiceNames.servicePath,
            interface: SecretServiceNames.cofferInterface, member: "RegisterPromptAgent",
            body: [.objectPath(Self.objectPath), .objectPath(session.path)])
        do {
            _ = try await connection.call(call)
        } catch let error as DBusError where error.name == .unknownMethod {
            throw CofferError(.noProvider, "the Secret Service provider is not cofferd; it does not use prompt agents")
        }
        return session
    }

    /// The reply to one of cofferd's calls: a password, a confirmation, or `io.coffer.Error.Dismissed`.
    private func answer(_ call: Message, session: ClientSession) -> Message {
        let dismissed = DBusError(ErrorName(unchecked: "io.coffer.Error.Dismissed"), "the user dismissed the prompt")
        let body = call.body
        switch (call.member?.rawValue, call.signature) {
        case ("AskPassword", "sssb"):
            guard let title = body[0].string, let description = body[1].string, let error = body[2].string,
                  case .boolean(let new) = body[3]
            else { return call.makeErrorReply(dismissed) }
            Console.error("\n\(title): \(description)")
            if !error.isEmpty { Console.error(error) }
            do {
                let password = try SecretInput.readLine(prompt: new ? "New password: " : "Password: ")
                if new {
                    let again = try SecretInput.readLine(prompt: "Repeat: ")
                    guard password.constantTimeEquals(again) else {
                        Console.error("the passwords do not match; the prompt is dismissed")
                        return call.makeErrorReply(dismissed)
                    }
                }
                return call.makeReply([try session.encode(password, contentType: "text/plain").dbusValue])
            } catch {
                return call.makeErrorReply(dismissed)
            }
        case ("Confirm", "ss"):
            Console.error("\n\(body[0].string ?? ""): \(body[1].string ?? "")")
            return Self.choose("Allow? [y/N] ", ["y": ""]).map { _ in call.makeReply() }
                ?? call.makeErrorReply(dismissed)
        case ("Consent", "ssb"):
            guard case .boolean(let keeps) = body[2] else { return call.makeErrorReply(dismissed) }
            Console.error("\n\(body[0].string ?? ""): \(body[1].string ?? "")")
            guard keeps else {
                return Self.choose("Allow once? [y/N] ", ["y": AgentConsent.once])
                    .map { call.makeReply([.string($0)]) } ?? call.makeErrorReply(dismissed)
            }
            guard let answer = Self.choose("Allow [o]nce, [a]lways, or [N]o? ",
                                           ["o": AgentConsent.once, "a": AgentConsent.always])
            else { return call.makeErrorReply(dismissed) }
            guard answer == AgentConsent.always else { return call.makeReply([.string(answer)]) }
            // The reach of "always", as the pinentry asks it; anything else takes the answer back.
            return Self.choose("Always for [t]his secret only, or the whole [k]eyring? [t/k/N] ",
                               ["t": AgentConsent.always, "k": AgentConsent.keyring])
                .map { call.makeReply([.string($0)]) } ?? call.makeErrorReply(dismissed)
        default:
            return call.makeErrorReply(DBusError(.unknownMethod, "no method '\(call.member?.rawValue ?? "")' here"))
        }
    }

    /// Reads one line and returns what `choices` maps it to (a single letter, either case); `nil` for anything
    /// else, end of input included, which the callers take as "no".
    private static func choose(_ prompt: String, _ choices: [String: String]) -> String? {
        guard let line = try? SecretInput.readLine(prompt: prompt) else { return nil }
        let typed = line.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }.lowercased()
        return choices[typed]
    }
}
