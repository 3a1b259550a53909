// SPDX-License-Identifier: Apache-2.0
// Parses cofferd.conf: [sections], `key = value` lines, durations; anything unknown is an error, never ignored.

import SecretServiceProtocol

extension ConfigFile {
    /// Parses the text of a settings file. Unknown sections and keys are errors: a typo must not silently leave
    /// collections unlocked.
    /// - Parameters:
    ///   - text: the file's contents.
    ///   - file: the name used in error messages.
    /// - Throws: ``ConfigFileError`` with the line number and the problem.
    public init(parsing text: String, file: String) throws(ConfigFileError) {
        var policy = AutoLockPolicy()
        var allowReplacement = false
        var access = AccessPolicy()
        var syncFolders: [String: String] = [:]
        var section: Section?
        var sectionLines: [Section: Int] = [:]
        var keyLines: [Key: Int] = [:]
        // `isNewline` also splits "\r\n", which Swift treats as one character.
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let number = index + 1
            func failure(_ problem: String) -> ConfigFileError {
                ConfigFileError(file: file, line: number, problem: problem)
            }
            let line = Self.trimmed(raw.prefix { $0 != "#" })
            if line.isEmpty { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else { throw failure("a section header must end with ']'") }
                let header: Section
                do { header = try Section(header: line.dropFirst().dropLast()) } catch { throw failure(error.text) }
                if let first = sectionLines[header] { throw failure("\(header) already appeared on line \(first)") }
                sectionLines[header] = number
                keyLines = [:]
                section = header
                // A section naming an in-memory collection opts it in, even with no keys.
                if case .collection(let id) = header { policy.collections[id] = AutoLockSettings() }
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw failure("expected 'key = value', a [section] header or a # comment")
            }
            let name = Self.trimmed(line[..<equals])
            let value = Self.trimmed(line[line.index(after: equals)...])
            guard let section else {
                let home = Key(rawValue: String(name))?.sections ?? "[defaults] or [collection ID]"
                throw failure("'\(name)' is outside a section; put it under \(home)")
            }
            guard let key = Key(rawValue: String(name)) else {
                let expected = Key.allCases.filter { $0.belongs(in: section) }.map(\.rawValue)
                throw failure("unknown key '\(name)' (expected \(expected.joined(separator: " or ")))")
            }
            guard key.belongs(in: section) else { throw failure("'\(name)' belongs under \(key.sections)") }
            if let first = keyLines[key] { throw failure("\(key.rawValue) is already set on line \(first)") }
            keyLines[key] = number
            if key == .allowReplacement {
                do { allowReplacement = try Self.yesOrNo(value) } catch {
                    throw failure("\(key.rawValue): \(error.text)")
                }
                continue
            }
            if key == .syncFolder {
                // belongs(in:) admits only [collection ID] sections.
                guard case .collection(let id) = section else { continue }
                guard value.hasPrefix("/") else {
                    throw failure("sync-folder: expected an absolute path, not "
                        + (value.isEmpty ? "nothing" : "'\(value)'"))
                }
                syncFolders[id] = String(value)
                continue
            }
            if key == .accessControl {
                guard let mode = AccessControl(rawValue: String(value)) else {
                    throw failure("access-control: expected off, ask or strict, not "
                        + (value.isEmpty ? "nothing" : "'\(value)'"))
                }
                switch section {
                case .defaults: access.defaults = mode
                case .collection(let id): access.collections[id] = mode
                case .daemon: break  // belongs(in:) already refused it
                }
                continue
            }
            var settings = section.settings(in: policy)
            switch key {
            case .onSleep, .onScreenLock:
                let choice: Bool
                do { choice = try Self.yesOrNo(value) } catch { throw failure("\(key.rawValue): \(error.text)") }
                if key == .onSleep { settings.onSleep = choice } else { settings.onScreenLock = choice }
            default:
                let timeout: LockTimeout
                do { timeout = try Self.timeout(value) } catch { throw failure("\(key.rawValue): \(error.text)") }
                if key == .idle { settings.idle = timeout } else { settings.unlocked = timeout }
            }
            section.store(settings, in: &policy)
        }
        self.init(autoLock: policy, allowReplacement: allowReplacement, accessPolicy: access, syncFolders: syncFolders)
    }

    // MARK: - Pieces

    private enum Key: String, CaseIterable {
        case idle = "lock-after-idle"
        case unlocked = "lock-after"
        case onSleep = "lock-on-sleep"
        case onScreenLock = "lock-on-screen-lock"
        case allowReplacement = "allow-replacement"
        case accessControl = "access-control"
        case syncFolder = "sync-folder"

        /// The auto-lock and access keys go under [defaults] or a collection; daemon-wide settings under [daemon];
        /// a sync folder belongs to one collection.
        func belongs(in section: Section) -> Bool {
            if self == .syncFolder {
                if case .collection = section { return true }
                return false
            }
            return (self == .allowReplacement) == (section == .daemon)
        }

        var sections: String {
            switch self {
            case .allowReplacement: "[daemon]"
            case .syncFolder: "[collection ID]"
            default: "[defaults] or [collection ID]"
            }
        }
    }

    private enum Section: Hashable, CustomStringConvertible {
        case daemon
        case defaults
        case collection(String)

        init(header: Substring) throws(Problem) {
            let words = header.split(whereSeparator: { $0 == " " || $0 == "\t" })
            switch (words.first, words.count) {
            case ("daemon", 1):
                self = .daemon
            case ("defaults", 1):
                self = .defaults
            case ("collection", 2) where ObjectPathElement.isValid(String(words[1])):
                self = .collection(String(words[1]))
            case ("collection", 2):
                throw Problem("'\(words[1])' is not a collection identifier (letters, digits and '_')")
            case ("collection", _):
                throw Problem("write [collection ID] with one collection identifier, as in [collection login]")
            default:
                throw Problem("unknown section [\(header)] (expected [daemon], [defaults] or [collection ID])")
            }
        }

        var description: String {
            switch self {
            case .daemon: "[daemon]"
            case .defaults: "[defaults]"
            case .collection(let id): "[collection \(id)]"
            }
        }

        func settings(in policy: AutoLockPolicy) -> AutoLockSettings {
            switch self {
            case .defaults: policy.defaults
            case .daemon: AutoLockSettings()  // holds no auto-lock keys
            case .collection(let id): policy.collections[id] ?? AutoLockSettings()
            }
        }

        func store(_ settings: AutoLockSettings, in policy: inout AutoLockPolicy) {
            switch self {
            case .defaults: policy.defaults = settings
            case .daemon: break
            case .collection(let id): policy.collections[id] = settings
            }
        }
    }

    /// What is wrong with one piece of a line; the caller adds the file and line.
    private struct Problem: Error {
        let text: String
        init(_ text: String) { self.text = text }
    }

    /// The longest duration accepted; longer ones are more likely typos than intent, and stay far from overflow.
    static let maximumDays = 365

    /// `off`, or a whole number with a unit: `90s`, `15m`, `8h`, `1d`.
    private static func timeout(_ value: Substring) throws(Problem) -> LockTimeout {
        if value == "off" { return .off }
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        guard let unit = value.last.flatMap({ units[$0] }), value.count > 1,
              value.dropLast().allSatisfy({ $0.isASCII && $0.isNumber })
        else {
            throw Problem("expected a duration (90s, 15m, 8h, 1d) or off, not \(value.isEmpty ? "nothing" : "'\(value)'")")
        }
        // Count the significant digits before converting, so no number can overflow.
        let digits = value.dropLast().drop { $0 == "0" }
        guard digits.count <= 9, let count = digits.isEmpty ? 0 : Int(digits), count <= maximumDays * 86400 / unit
        else { throw Problem("'\(value)' is longer than the limit of \(maximumDays)d") }
        guard count > 0 else { throw Problem("'\(value)' would lock at once; write off to never lock") }
        return .after(.seconds(count * unit))
    }

    /// `yes` or `no`.
    private static func yesOrNo(_ value: Substring) throws(Problem) -> Bool {
        switch value {
        case "yes": return true
        case "no": return false
        default: throw Problem("expected yes or no, not \(value.isEmpty ? "nothing" : "'\(value)'")")
        }
    }

    private static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
