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

    public init(idle: LockTimeout? = nil, unlocked: LockTimeout? = nil) {
        self.idle = idle
        self.unlocked = unlocked
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
