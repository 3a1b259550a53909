// SPDX-License-Identifier: Apache-2.0
// The last prompt that could not be shown, kept for `coffer status`.

import DBusWire

/// A prompt cofferd could not show, and why. Kept because the reason otherwise reaches only the client that asked
/// (which may print nothing) and cofferd's log (which under D-Bus activation may go nowhere).
struct FailedPrompt: Sendable, Hashable {
    /// When, in seconds since the Unix epoch.
    var time: UInt64
    /// The client that asked.
    var caller: BusName
    /// The reason, as the client was told.
    var reason: String

    /// The `LastFailedPrompt` answer: `time` (t), `caller` (s), `reason` (s).
    var dictionary: DBusValue {
        .dictionary(key: .string, value: .variant, [
            DictEntry(.string("time"), .variant(.uint64(time))),
            DictEntry(.string("caller"), .variant(.string(caller.rawValue))),
            DictEntry(.string("reason"), .variant(.string(reason))),
        ])
    }
}
