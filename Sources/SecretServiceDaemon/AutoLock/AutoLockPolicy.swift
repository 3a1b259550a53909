// SPDX-License-Identifier: Apache-2.0
// Which collections lock themselves, and after how long: the [defaults] and [collection ID] sections of cofferd.conf.

public import SecretStore

/// One auto-lock setting as written in the configuration file.
public enum LockTimeout: Sendable, Hashable {
    /// Never lock for this reason.
    case off
    /// Lock once this much time has passed.
    case after(Duration)

    var duration: Duration? {
        switch self {
        case .off: nil
        case .after(let duration): duration
        }
    }
}

/// The settings of one section; a `nil` field was not written and is inherited from `[defaults]`.
public struct AutoLockSettings: Sendable, Hashable {
    /// `lock-after-idle`: time since the collection was last used (a secret read, a write, an unlock).
    public var idle: LockTimeout?
    /// `lock-after`: time since the collection was unlocked.
    public var unlocked: LockTimeout?

    /// `lock-on-sleep`: lock when the machine suspends or hibernates (logind's `PrepareForSleep`).
    public var onSleep: Bool?
    /// `lock-on-screen-lock`: lock when the user's login session is locked (logind's `Session.Lock`).
    public var onScreenLock: Bool?

    public init(idle: LockTimeout? = nil, unlocked: LockTimeout? = nil, onSleep: Bool? = nil,
                onScreenLock: Bool? = nil) {
        self.idle = idle
        self.unlocked = unlocked
        self.onSleep = onSleep
        self.onScreenLock = onScreenLock
    }
}

/// Auto-lock settings for every collection: defaults, and overrides by collection identifier.
///
/// In-memory collections (the `session` collection) hold secrets that exist nowhere else and are unlocked without a
/// password, so the defaults do not reach them: they lock only when a `[collection ID]` section names them.
public struct AutoLockPolicy: Sendable, Hashable {
    /// The `[defaults]` section; unset fields mean `off`.
    public var defaults: AutoLockSettings
    /// The `[collection ID]` sections.
    public var collections: [String: AutoLockSettings]

    public init(defaults: AutoLockSettings = AutoLockSettings(), collections: [String: AutoLockSettings] = [:]) {
        self.defaults = defaults
        self.collections = collections
    }

    /// Nothing locks by itself: the default.
    public static let off = AutoLockPolicy()

    /// Whether any collection could ever be auto-locked; when not, the daemon runs no AutoLocker.
    public var locksAnything: Bool {
        ([defaults] + collections.values).contains { $0.idle?.duration != nil || $0.unlocked?.duration != nil }
    }

    /// Whether any collection locks on a session event; when none does, the daemon does not watch logind.
    public var locksOnSessionEvents: Bool {
        SessionEvent.allCases.contains { locksAnything(on: $0) }
    }

    /// Whether some collection could lock on `event`.
    public func locksAnything(on event: SessionEvent) -> Bool {
        ([defaults] + collections.values).contains { (event == .sleep ? $0.onSleep : $0.onScreenLock) == true }
    }

    /// Whether a collection locks when `event` happens. Unset means no, as in gnome-keyring: a collection unlocked
    /// at login is not unlocked again by the screen unlocker, so locking it would make every resume prompt.
    /// - Parameters:
    ///   - event: what happened.
    ///   - collection: its identifier.
    ///   - isInMemory: whether it lives only in memory (then only a section naming it applies).
    public func locks(on event: SessionEvent, collection: String, isInMemory: Bool) -> Bool {
        let specific = collections[collection]
        if isInMemory && specific == nil { return false }
        switch event {
        case .sleep: return (specific?.onSleep ?? defaults.onSleep) ?? false
        case .screenLock: return (specific?.onScreenLock ?? defaults.onScreenLock) ?? false
        }
    }

    /// The limits that apply to one collection.
    /// - Parameters:
    ///   - collection: its identifier.
    ///   - isInMemory: whether it lives only in memory (then only a section naming it applies).
    public func timeouts(for collection: String, isInMemory: Bool) -> LockTimeouts {
        let specific = collections[collection]
        if isInMemory && specific == nil { return .never }
        return LockTimeouts(idle: (specific?.idle ?? defaults.idle)?.duration,
                            unlocked: (specific?.unlocked ?? defaults.unlocked)?.duration)
    }
}

/// Something in the user's login session that can lock collections.
public enum SessionEvent: String, Sendable, Hashable, CaseIterable {
    /// The machine is about to suspend or hibernate.
    case sleep
    /// The session's screen was locked.
    case screenLock = "screen lock"
}
