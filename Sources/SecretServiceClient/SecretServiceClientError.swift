// SPDX-License-Identifier: Apache-2.0
// The failures of the client itself, as opposed to the provider's own Secret Service errors.

/// A failure that is not one of the provider's `SecretServiceError`s: no provider, a broken link, a reply of the
/// wrong shape, or a prompt the user dismissed.
///
/// Calls in this module throw either this type or `SecretServiceError` (the provider answered with an error), or
/// `CancellationError` when the calling task was cancelled.
public enum SecretServiceClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Nobody owns `org.freedesktop.secrets` and the bus could not start a provider
    /// (`ServiceUnknown` / `NameHasNoOwner`).
    case noProvider
    /// The provider left the bus (or was replaced) while the client was waiting for it, for example during a prompt.
    case providerVanished
    /// The connection failed, closed or timed out; the text says how.
    case transport(String)
    /// The user dismissed a prompt the operation needed.
    case dismissed
    /// The provider could not show a prompt the operation needed (its `Prompt()` failed: no display, no terminal,
    /// no pinentry); the text is the provider's reason, which says what to do instead.
    case promptNotShown(String)
    /// The provider answered with a value of the wrong type or shape; the text names what was expected.
    case unexpectedReply(String)
    /// The provider does not support the requested session algorithm and falling back was not allowed.
    case algorithmNotSupported(String)

    /// A human sentence describing the failure (never contains secrets).
    public var description: String {
        switch self {
        case .noProvider: "No Secret Service provider is running on the bus (org.freedesktop.secrets has no owner)."
        case .providerVanished: "The Secret Service provider left the bus."
        case .transport(let detail): "D-Bus transport failure: \(detail)"
        case .dismissed: "The prompt was dismissed."
        case .promptNotShown(let reason): "The provider could not show its prompt: \(reason)"
        case .unexpectedReply(let detail): "The Secret Service provider sent an unexpected reply: \(detail)"
        case .algorithmNotSupported(let name): "The provider does not support the session algorithm '\(name)'."
        }
    }
}
