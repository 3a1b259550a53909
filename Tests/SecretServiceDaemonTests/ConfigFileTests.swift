// SPDX-License-Identifier: Apache-2.0
// cofferd.conf: the documented format, where the file lives, and the one-line errors for what it refuses.

import Foundation
import SecretServiceDaemon
import SecretStore
import Testing

extension Duration {
    fileprivate static func minutes(_ count: Int) -> Duration { .seconds(60 * count) }
    fileprivate static func hours(_ count: Int) -> Duration { .seconds(3600 * count) }
}

@Suite("Configuration file")
struct ConfigFileTests {
    /// The example in docs/CONFIGURATION.md.
    static let documented = """
        # comments and blank lines are ignored
        [daemon]                     # settings of cofferd itself
        allow-replacement = no       # yes lets another provider take org.freedesktop.secrets over

        [defaults]
        lock-after-idle = 15m        # durations: 90s, 15m, 8h, 1d, or "off"
        lock-after = 8h
        lock-on-sleep = no           # yes locks on suspend, through logind (docs/PROMPTS.md)
        lock-on-screen-lock = no     # yes locks when the session's screen locks

        [collection login]           # per-collection overrides by collection id
        lock-after-idle = off

        [collection session]         # in-memory collections lock only when named
        lock-after = 1h
        """

    func parse(_ text: String) throws(ConfigFileError) -> AutoLockPolicy {
        try ConfigFile(parsing: text, file: "test.conf").autoLock
    }

    /// The error message for `text`, or `nil` when it parses.
    func problem(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("the documented example parses")
    func documentedFormat() throws {
        let policy = try parse(Self.documented)
        #expect(policy == AutoLockPolicy(
            defaults: AutoLockSettings(idle: .after(.minutes(15)), unlocked: .after(.hours(8)), onSleep: false,
                                       onScreenLock: false),
            collections: ["login": AutoLockSettings(idle: .off), "session": AutoLockSettings(unlocked: .after(.hours(1)))]))
        #expect(policy.timeouts(for: "login", isInMemory: false) == LockTimeouts(idle: nil, unlocked: .hours(8)))
        #expect(policy.timeouts(for: "work", isInMemory: false) == LockTimeouts(idle: .minutes(15), unlocked: .hours(8)))
        #expect(policy.timeouts(for: "session", isInMemory: true) == LockTimeouts(idle: .minutes(15),
                                                                                  unlocked: .hours(1)))
    }

    @Test("every duration unit, off, CRLF line ends and a section with no keys")
    func durations() throws {
        let policy = try parse("[defaults]\r\nlock-after-idle=90s\r\nlock-after =\t1d\r\n[collection a]\n"
                                   + "lock-after = 0365d\n[collection b]\n[collection c]\nlock-after-idle = off\n")
        #expect(policy.defaults == AutoLockSettings(idle: .after(.seconds(90)), unlocked: .after(.hours(24))))
        #expect(policy.collections["a"] == AutoLockSettings(unlocked: .after(.hours(365 * 24))))
        #expect(policy.collections["b"] == AutoLockSettings())
        #expect(policy.collections["c"] == AutoLockSettings(idle: .off))
        #expect(try parse("").locksAnything == false)
        #expect(try parse("# nothing\n\n   \n") == .off)
    }

    @Test("unknown keys and sections are refused with their line")
    func unknownNames() {
        #expect(problem("[defaults]\n\nlock-after-idel = 15m\n")
            == "test.conf:3: unknown key 'lock-after-idel' (expected lock-after-idle or lock-after or lock-on-sleep or "
            + "lock-on-screen-lock or access-control)")
        #expect(problem("[defualts]\n")
            == "test.conf:1: unknown section [defualts] (expected [daemon], [defaults] or [collection ID])")
        #expect(problem("[defaults]\n[collection]\n")
            == "test.conf:2: write [collection ID] with one collection identifier, as in [collection login]")
        #expect(problem("[collection my-keys]\n")
            == "test.conf:1: 'my-keys' is not a collection identifier (letters, digits and '_')")
        #expect(problem("[defaults\n") == "test.conf:1: a section header must end with ']'")
    }

    @Test("sync-folder is an absolute path under [collection ID], absent by default, and refused elsewhere")
    func syncFolder() throws {
        func folders(_ text: String) throws -> [String: String] {
            try ConfigFile(parsing: text, file: "test.conf").syncFolders
        }
        #expect(try folders("[collection login]\nsync-folder = /home/u/Sync/coffer\n") == ["login": "/home/u/Sync/coffer"])
        #expect(try folders(Self.documented).isEmpty)
        #expect(problem("[collection login]\nsync-folder = Sync\n")
            == "test.conf:2: sync-folder: expected an absolute path, not 'Sync'")
        #expect(problem("[collection login]\nsync-folder =\n")
            == "test.conf:2: sync-folder: expected an absolute path, not nothing")
        #expect(problem("[defaults]\nsync-folder = /s\n") == "test.conf:2: 'sync-folder' belongs under [collection ID]")
        #expect(problem("[daemon]\nsync-folder = /s\n") == "test.conf:2: 'sync-folder' belongs under [collection ID]")
    }

    @Test("allow-replacement is yes or no under [daemon], off when absent, and refused anywhere else")
    func allowReplacement() throws {
        func allows(_ text: String) throws -> Bool { try ConfigFile(parsing: text, file: "test.conf").allowReplacement }
        #expect(try allows("[daemon]\nallow-replacement = yes\n"))
        #expect(try !allows("[daemon]\nallow-replacement = no\n"))
        #expect(try !allows("[daemon]\n"))
        #expect(try !allows(Self.documented))
        #expect(problem("[daemon]\nallow-replacement = true\n")
            == "test.conf:2: allow-replacement: expected yes or no, not 'true'")
        #expect(problem("[daemon]\nallow-replacement =\n")
            == "test.conf:2: allow-replacement: expected yes or no, not nothing")
        #expect(problem("[defaults]\nallow-replacement = yes\n")
            == "test.conf:2: 'allow-replacement' belongs under [daemon]")
        #expect(problem("[collection login]\nallow-replacement = yes\n")
            == "test.conf:2: 'allow-replacement' belongs under [daemon]")
        #expect(problem("allow-replacement = yes\n")
            == "test.conf:1: 'allow-replacement' is outside a section; put it under [daemon]")
        #expect(problem("[daemon]\nlock-after = 1h\n")
            == "test.conf:2: 'lock-after' belongs under [defaults] or [collection ID]")
        #expect(problem("[daemon]\nallow-replace = yes\n")
            == "test.conf:2: unknown key 'allow-replace' (expected allow-replacement)")
        #expect(problem("[daemon]\nallow-replacement = yes\nallow-replacement = no\n")
            == "test.conf:3: allow-replacement is already set on line 2")
    }

    @Test("lock-on-sleep and lock-on-screen-lock are yes or no per collection; unset is off; memory needs its section")
    func sessionEventLocks() throws {
        let policy = try parse("""
            [defaults]
            lock-on-sleep = yes
            [collection login]
            lock-on-screen-lock = yes
            [collection work]
            lock-on-sleep = no
            [collection session]
            lock-on-screen-lock = yes
            """)
        #expect(policy.locksOnSessionEvents)
        #expect(policy.locks(on: .sleep, collection: "login", isInMemory: false))
        #expect(policy.locks(on: .screenLock, collection: "login", isInMemory: false))
        #expect(!policy.locks(on: .sleep, collection: "work", isInMemory: false))
        #expect(!policy.locks(on: .screenLock, collection: "work", isInMemory: false))
        #expect(policy.locks(on: .sleep, collection: "other", isInMemory: false))
        #expect(!policy.locks(on: .screenLock, collection: "other", isInMemory: false))
        // [defaults] does not reach an in-memory collection until its own section names it.
        #expect(!policy.locks(on: .sleep, collection: "scratch", isInMemory: true))
        #expect(policy.locks(on: .screenLock, collection: "session", isInMemory: true))
        #expect(policy.locks(on: .sleep, collection: "session", isInMemory: true))
        // Nothing set: nothing locks, and logind is not watched.
        let defaults = try parse(Self.documented)
        #expect(!defaults.locksOnSessionEvents)
        #expect(!defaults.locks(on: .sleep, collection: "login", isInMemory: false))
        #expect(problem("[defaults]\nlock-on-sleep = 1\n")
            == "test.conf:2: lock-on-sleep: expected yes or no, not '1'")
        #expect(problem("[daemon]\nlock-on-screen-lock = yes\n")
            == "test.conf:2: 'lock-on-screen-lock' belongs under [defaults] or [collection ID]")
    }

    @Test("bad durations are refused with their line", arguments: [
        ("15", "expected a duration (90s, 15m, 8h, 1d) or off, not '15'"),
        ("15x", "expected a duration (90s, 15m, 8h, 1d) or off, not '15x'"),
        ("1.5h", "expected a duration (90s, 15m, 8h, 1d) or off, not '1.5h'"),
        ("-5m", "expected a duration (90s, 15m, 8h, 1d) or off, not '-5m'"),
        ("15 m", "expected a duration (90s, 15m, 8h, 1d) or off, not '15 m'"),
        ("m", "expected a duration (90s, 15m, 8h, 1d) or off, not 'm'"),
        ("Off", "expected a duration (90s, 15m, 8h, 1d) or off, not 'Off'"),
        ("", "expected a duration (90s, 15m, 8h, 1d) or off, not nothing"),
        ("0m", "'0m' would lock at once; write off to never lock"),
        ("366d", "'366d' is longer than the limit of 365d"),
        ("99999999999999999999999s", "'99999999999999999999999s' is longer than the limit of 365d"),
    ])
    func badDurations(value: String, message: String) {
        #expect(problem("# header\n[defaults]\nlock-after = \(value)\n") == "test.conf:3: lock-after: \(message)")
    }

    @Test("keys outside a section, repeats and stray lines are refused with their line")
    func structure() {
        #expect(problem("# comment\nlock-after-idle = 15m\n[defaults]\n")
            == "test.conf:2: 'lock-after-idle' is outside a section; put it under [defaults] or [collection ID]")
        #expect(problem("[defaults]\nlock-after = 1h\nlock-after = 2h\n")
            == "test.conf:3: lock-after is already set on line 2")
        #expect(problem("[collection a]\n[defaults]\n[collection a]\n")
            == "test.conf:3: [collection a] already appeared on line 1")
        #expect(problem("[defaults]\nlock-after 1h\n")
            == "test.conf:2: expected 'key = value', a [section] header or a # comment")
        // The same key in different sections is fine.
        #expect(problem("[defaults]\nlock-after = 1h\n[collection a]\nlock-after = 2h\n") == nil)
    }

    @Test("the file lives under XDG_CONFIG_HOME, else ~/.config")
    func location() {
        #expect(ConfigFile.standardPath(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]) == "/x/coffer/cofferd.conf")
        #expect(ConfigFile.standardPath(environment: ["XDG_CONFIG_HOME": "rel", "HOME": "/h"])
            == "/h/.config/coffer/cofferd.conf")
        #expect(ConfigFile.standardPath(environment: ["HOME": "/h"]) == "/h/.config/coffer/cofferd.conf")
        #expect(ConfigFile.standardPath(environment: [:]) == nil)
    }

    @Test("loading: a missing standard file means defaults; a missing --config file, a directory or bad UTF-8 do not")
    func loading() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-config-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/cofferd.conf"
        #expect(try ConfigFile.load(path: file, required: false) == ConfigFile())
        #expect(throws: ConfigFileError(file: file, line: nil, problem: "no such file")) {
            try ConfigFile.load(path: file, required: true)
        }
        try Data(Self.documented.utf8).write(to: URL(fileURLWithPath: file))
        #expect(try ConfigFile.load(path: file, required: true).autoLock == parse(Self.documented))
        try Data("[defaults]\nlock-after = 8x\n".utf8).write(to: URL(fileURLWithPath: file))
        #expect(throws: ConfigFileError(file: file, line: 2, problem:
                                            "lock-after: expected a duration (90s, 15m, 8h, 1d) or off, not '8x'")) {
            try ConfigFile.load(path: file, required: false)
        }
        try Data([0x5b, 0xff, 0x5d]).write(to: URL(fileURLWithPath: file))
        #expect(throws: ConfigFileError(file: file, line: nil, problem: "not UTF-8 text")) {
            try ConfigFile.load(path: file, required: false)
        }
        #expect(throws: ConfigFileError(file: directory, line: nil, problem: "cannot read: Is a directory")) {
            try ConfigFile.load(path: directory, required: false)
        }
    }
}

@Suite("Configuration file: access-control")
struct AccessControlConfigTests {
    @Test("access-control under [defaults] and [collection ID]; ask when unset")
    func parsed() throws {
        #expect(try ConfigFile(parsing: "", file: "t").accessPolicy.mode(for: "login") == .ask)
        let policy = try ConfigFile(parsing: "[defaults]\naccess-control = strict\n[collection work]\naccess-control = off\n",
                                    file: "t").accessPolicy
        #expect(policy.mode(for: "login") == .strict)
        #expect(policy.mode(for: "work") == .off)
        #expect(!policy.isOff)
        #expect(AccessPolicy(defaults: .off).isOff)
    }

    @Test("a wrong value or section is a one-line error")
    func refused() {
        #expect(throws: ConfigFileError(file: "t", line: 2, problem: "access-control: expected off, ask or strict, not 'maybe'")) {
            try ConfigFile(parsing: "[defaults]\naccess-control = maybe\n", file: "t")
        }
        #expect(throws: ConfigFileError(file: "t", line: 2, problem: "'access-control' belongs under [defaults] or [collection ID]")) {
            try ConfigFile(parsing: "[daemon]\naccess-control = ask\n", file: "t")
        }
    }
}
