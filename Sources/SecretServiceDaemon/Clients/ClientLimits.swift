// SPDX-License-Identifier: Apache-2.0
// Per-client limits on sessions and prompts.

/// Caps on what one client connection may hold open, so a client looping on `OpenSession` cannot exhaust the
/// daemon. Past the session cap the client's least recently used session is closed; past the prompt cap new
/// prompts are refused with `org.freedesktop.DBus.Error.LimitsExceeded`.
public struct ClientLimits: Sendable, Hashable {
    public var maximumSessionsPerClient: Int
    public var maximumPromptsPerClient: Int

    public init(maximumSessionsPerClient: Int, maximumPromptsPerClient: Int) {
        self.maximumSessionsPerClient = maximumSessionsPerClient
        self.maximumPromptsPerClient = maximumPromptsPerClient
    }

    /// 256 open sessions and 64 pending prompts per client connection.
    public static let `default` = ClientLimits(maximumSessionsPerClient: 256, maximumPromptsPerClient: 64)
}
