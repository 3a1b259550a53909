// SPDX-License-Identifier: Apache-2.0
// The answers a `coffer prompt-agent` gives to cofferd's io.coffer.PromptAgent.Consent.

/// What `Consent(s title, s description, b keeps) → s answer` returns: the words cofferd and the agent share.
/// A denial is the `io.coffer.Error.Dismissed` error, not an answer.
public enum AgentConsent {
    /// For this connection of the application only.
    public static let once = "once"
    /// Always, for this secret (or its Keychain access group); offered only when the call's `keeps` is true.
    public static let always = "always"
    /// Always, for every secret of the keyring, present and future; offered only when `keeps` is true.
    public static let keyring = "keyring"
}
