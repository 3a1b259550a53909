// SPDX-License-Identifier: Apache-2.0
// Questions only cofferd answers (its io.coffer.Daemon interface); other providers answer none of them.

import DBusWire
import DBusTransport
import SecretServiceProtocol

/// A prompt the provider could not show at all, as `io.coffer.Daemon.LastFailedPrompt` reports it.
public struct FailedPromptReport: Sendable, Hashable, Encodable {
    /// When, in seconds since the Unix epoch.
    public var time: UInt64
    /// The unique bus name of the client that asked.
    public var caller: String
    /// The reason the client was given.
    public var reason: String
}

extension SecretService {
    /// The last prompt the provider could not show, and why.
    /// - Returns: the report, or `nil` when every prompt could be shown or the provider is not cofferd.
    /// - Throws: `SecretServiceError` or `SecretServiceClientError` for a failed call or a malformed answer.
    public func lastFailedPrompt() async throws -> FailedPromptReport? {
        guard let reply = try await callCofferExtension(SecretServiceNames.cofferInterface, "LastFailedPrompt") else {
            return nil
        }
        guard reply.signature == "a{sv}", let fields = reply.body.first?.variantDictionary else {
            throw SecretServiceClientError.unexpectedReply("LastFailedPrompt returned '\(reply.signature)'")
        }
        guard !fields.isEmpty else { return nil }
        guard let time = fields["time"]?.uint64, let caller = fields["caller"]?.string,
              let reason = fields["reason"]?.string
        else { throw SecretServiceClientError.unexpectedReply("LastFailedPrompt lacks time, caller or reason") }
        return FailedPromptReport(time: time, caller: caller, reason: reason)
    }
}

extension SecretService {
    /// Calls a method without arguments of one of cofferd's own interfaces on the service object.
    /// - Returns: the reply, or `nil` when the provider has no such method (gnome-keyring, KeePassXC, an older
    ///   cofferd), which the callers take as "nothing to report".
    /// - Throws: any other failure, in the client's vocabulary (`SecretServiceError`, `SecretServiceClientError`).
    func callCofferExtension(_ interface: InterfaceName, _ member: MemberName) async throws -> Message? {
        let call = Message.methodCall(destination: destination, path: SecretServiceNames.servicePath,
                                      interface: interface, member: member)
        do {
            return try await connection.call(call)
        } catch let error as DBusError
                    where [.unknownMethod, "org.freedesktop.DBus.Error.UnknownInterface"].contains(error.name) {
            return nil
        } catch {
            throw ProxyTarget.translate(error)
        }
    }
}
