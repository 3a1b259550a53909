// SPDX-License-Identifier: Apache-2.0
// org.freedesktop.Secret.Prompt: showing and dismissing a prompt (the raw calls, without waiting for Completed).

public import DBusTransport
public import DBusWire
public import SecretServiceProtocol

/// Calls `org.freedesktop.Secret.Prompt` on one prompt object. To run a prompt to its end use
/// ``SecretService/runPrompt(_:windowID:)``, which subscribes to `Completed` first.
public struct PromptProxy: Sendable {
    let target: ProxyTarget

    /// The prompt's path.
    public var path: ObjectPath { target.path }

    /// - Parameters:
    ///   - connection: the connection that received the prompt (prompts belong to their connection).
    ///   - path: the prompt's path.
    ///   - destination: the provider's bus name.
    public init(connection: Connection, path: ObjectPath, destination: BusName = SecretServiceNames.busName) {
        target = ProxyTarget(connection: connection, destination: destination, path: path)
    }

    /// `Prompt(s window-id)`: asks the provider to show the prompt. The outcome arrives later as `Completed`.
    /// - Parameter windowID: the platform window to attach the prompt to, or `""`.
    /// - Returns: the unique bus name of the provider that answered (the sender `Completed` must come from), if
    ///   the transport reported it.
    /// - Throws: `SecretServiceError` or `SecretServiceClientError`.
    @discardableResult
    public func prompt(windowID: String = "") async throws -> BusName? {
        let (_, reply) = try await target.call(
            SecretServiceNames.promptInterface, "Prompt", [.string(windowID)], expecting: .empty)
        return reply.sender
    }

    /// `Dismiss()`: asks the provider to abandon the prompt; it answers with `Completed(true, …)`.
    /// - Throws: `SecretServiceError` or `SecretServiceClientError`.
    public func dismiss() async throws {
        try await target.call(SecretServiceNames.promptInterface, "Dismiss", expecting: .empty)
    }

    /// Sends `Dismiss()` without waiting for the reply; safe to use from a cancelled task.
    /// - Throws: `SecretServiceClientError` when the message cannot be sent.
    public func dismissWithoutReply() async throws {
        try await target.callNoReply(SecretServiceNames.promptInterface, "Dismiss")
    }
}
