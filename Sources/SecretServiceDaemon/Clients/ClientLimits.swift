// SPDX-License-Identifier: Apache-2.0
// Limits on what clients may hold open and send, per client and for all clients together.

/// Caps on what clients may hold open, so a client looping on `OpenSession` (or many connections doing it) cannot
/// exhaust the daemon. Past the per-client session cap the client's least recently used session is closed; past the
/// daemon-wide session cap, or any prompt cap, new ones are refused with `org.freedesktop.DBus.Error.LimitsExceeded`,
/// as is a call whose arguments are larger than ``maximumCallBytes``.
public struct ClientLimits: Sendable, Hashable {
    public var maximumSessionsPerClient: Int
    public var maximumPromptsPerClient: Int
    /// Open sessions of all clients together. Reached only by many connections each near its own cap.
    public var maximumSessions: Int
    /// Pending prompts of all clients together.
    public var maximumPrompts: Int
    /// The largest argument payload one call may carry, in bytes as counted by the router (strings and byte arrays
    /// by length, other values by their wire size). Room for the largest secret plus full attributes and label.
    public var maximumCallBytes: Int

    public init(maximumSessionsPerClient: Int, maximumPromptsPerClient: Int, maximumSessions: Int = 8192,
                maximumPrompts: Int = 1024, maximumCallBytes: Int = 8 << 20) {
        self.maximumSessionsPerClient = maximumSessionsPerClient
        self.maximumPromptsPerClient = maximumPromptsPerClient
        self.maximumSessions = maximumSessions
        self.maximumPrompts = maximumPrompts
        self.maximumCallBytes = maximumCallBytes
    }

    /// 256 open sessions and 64 pending prompts per client connection; 8,192 sessions and 1,024 pending prompts in
    /// all; 8 MiB of arguments per call.
    public static let `default` = ClientLimits(maximumSessionsPerClient: 256, maximumPromptsPerClient: 64)
}
