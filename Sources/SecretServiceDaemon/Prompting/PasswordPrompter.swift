// SPDX-License-Identifier: Apache-2.0
// The prompter for password-protected collections: asks for an existing password or a new one.

public import DBusWire
public import SecretCrypto

/// A prompter that can also ask for passwords (the `Unlock` of a password-protected collection, and
/// `CreateCollection`).
///
/// Like every ``Prompter``, implementations must return promptly (with `nil`) once their task is cancelled: a
/// dismissed prompt or a client that left the bus. ``FixedPrompter`` deliberately does not conform, since it has
/// no password to give.
public protocol PasswordPrompter: Prompter {
    /// Asks for an existing password.
    ///
    /// The caller checks the answer and, if it is wrong, asks again with ``PasswordRequest/attempt`` increased and
    /// ``PasswordRequest/errorText`` set.
    /// - Parameter request: What to ask; `attempt` starts at 1 and `errorText` is non-nil on retries
    ///   ("Wrong password, try again").
    /// - Returns: The password, or `nil` when the prompt was dismissed, cancelled or timed out.
    func password(for request: PasswordRequest) async -> SecretBytes?

    /// Asks for a new password, with confirmation (the user types it twice).
    /// - Parameter request: What to ask.
    /// - Returns: The confirmed password (possibly empty), or `nil` when the prompt was dismissed, cancelled or
    ///   timed out.
    func newPassword(for request: PasswordRequest) async -> SecretBytes?
}

/// What a password prompt asks the user.
public struct PasswordRequest: Sendable, Hashable {
    /// The label of the collection the password is for.
    public var collectionLabel: String
    /// The window the client wants the prompt attached to (`Prompt(window-id)`), possibly empty.
    public var windowID: String
    /// The unique bus name of the client that asked.
    public var caller: BusName
    /// Which try this is, starting at 1.
    public var attempt: Int
    /// Why the previous try failed, shown above the entry field on retries; `nil` on the first try.
    public var errorText: String?
    /// Whether the password is asked for to change it (first the current one, then the new one) rather than to
    /// unlock or create the collection, so the dialogue can say so.
    public var isPasswordChange: Bool

    /// Creates a request.
    /// - Parameters:
    ///   - collectionLabel: The label of the collection the password is for.
    ///   - windowID: The client's window id, possibly empty.
    ///   - caller: The unique bus name of the client that asked.
    ///   - attempt: Which try this is, starting at 1.
    ///   - errorText: Why the previous try failed, or `nil`.
    ///   - isPasswordChange: Whether the password is asked for to change it.
    public init(collectionLabel: String, windowID: String, caller: BusName, attempt: Int = 1,
                errorText: String? = nil, isPasswordChange: Bool = false) {
        self.collectionLabel = collectionLabel
        self.windowID = windowID
        self.caller = caller
        self.attempt = attempt
        self.errorText = errorText
        self.isPasswordChange = isPasswordChange
    }
}
