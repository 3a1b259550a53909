// SPDX-License-Identifier: Apache-2.0
// The individual checks of `coffer doctor`: activation files, autostart, data directory and files, pinentry.

import Foundation
import SecretStore

enum DoctorChecks {
    // MARK: - Activation

    /// The D-Bus service directories of a session bus, in the order dbus-daemon searches them.
    static func serviceDirectories(environment: [String: String]) -> [String] {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.local/share"
        let dataDirs = (environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share")
            .split(separator: ":").map(String.init)
        return ([dataHome] + dataDirs).map { $0 + "/dbus-1/services" }
    }

    /// Every activation file for org.freedesktop.secrets and what it runs; the first one is the one the bus uses.
    static func activationFiles(in directories: [String]) -> [(path: String, exec: String)] {
        var found: [(String, String)] = []
        for directory in directories {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
            for name in names where name.hasSuffix(".service") {
                let path = directory + "/" + name
                guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
                let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                guard lines.contains("Name=org.freedesktop.secrets") else { continue }
                let exec = lines.first { $0.hasPrefix("Exec=") }.map { String($0.dropFirst(5)) } ?? "?"
                found.append((path, exec))
            }
        }
        return found
    }

    static func activation(environment: [String: String]) -> [DoctorFinding] {
        let files = activationFiles(in: serviceDirectories(environment: environment))
        guard let first = files.first else {
            return [.warning("activation", "no D-Bus activation file names org.freedesktop.secrets, so nothing "
                + "starts a provider on demand", fix: "reinstall Coffer (`sudo apt install --reinstall coffer`, or "
                + "`make install` again from its source tree) to put back "
                + "\(installedActivationFile), or start `cofferd --foreground &` in the session")]
        }
        var findings: [DoctorFinding] = []
        // A first file that starts something else is reported by the competitor checks, with its override.
        if first.exec.contains("cofferd") {
            findings.append(.ok("activation", "\(first.path) starts cofferd"))
        }
        for other in files.dropFirst() {
            findings.append(.warning("activation", "\(other.path) also claims org.freedesktop.secrets ('\(other.exec)'); "
                + "it is ignored while \(first.path) exists", fix: "remove it if that provider is not wanted"))
        }
        return findings
    }

    /// Where this installation keeps its activation file: the `share` directory beside the one holding `coffer`
    /// (/usr/bin/coffer: /usr/share/dbus-1/services), where the package and `make install` put it.
    static var installedActivationFile: String {
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? "/usr/bin/coffer"
        let prefix = URL(fileURLWithPath: executable).deletingLastPathComponent().deletingLastPathComponent()
        return prefix.appendingPathComponent("share/dbus-1/services/org.freedesktop.secrets.service").path
    }

    // MARK: - Files

    /// The data directory's and files' ownership and modes, and each collection file's header and framing.
    static func dataDirectory(_ directory: String, loadedIDs: Set<String>?) -> [DoctorFinding] {
        let manager = FileManager.default
        guard let attributes = try? manager.attributesOfItem(atPath: directory) else {
            return [.ok("files", "\(directory) does not exist yet (created on the first persistent collection)")]
        }
        var findings: [DoctorFinding] = []
        let uid = getuid()
        if let owner = (attributes[.ownerAccountID] as? NSNumber)?.uint32Value, owner != uid {
            findings.append(.error("files", "\(directory) belongs to uid \(owner), not you (\(uid))",
                fix: "chown -R \(uid) \(directory)"))
        }
        if let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue, mode & 0o077 != 0 {
            findings.append(.error("files", "\(directory) is readable by others (mode \(String(mode, radix: 8)))",
                fix: "chmod 700 \(directory)"))
        }
        if findings.isEmpty { findings.append(.ok("files", "\(directory) is private and owned by you")) }
        let ledger = DataDirectoryInspection.ledger(in: directory)
        for problem in ledger.problems {
            findings.append(.error("files", "\(directory)/generations: \(problem); cofferd ignores that line",
                fix: "look at the file: a line must be a collection id, one space and a number; remove the line "
                    + "once it is understood"))
        }
        let suffix = DataDirectoryInspection.collectionFileSuffix
        let names = ((try? manager.contentsOfDirectory(atPath: directory)) ?? []).sorted()
        for name in names {
            let path = directory + "/" + name
            if let mode = ((try? manager.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber)?.intValue,
               mode & 0o077 != 0 {
                findings.append(.error("files", "\(path) is readable by others (mode \(String(mode, radix: 8)))",
                    fix: "chmod 600 \(path)"))
            }
            guard name.hasSuffix(suffix) else { continue }
            let id = String(name.dropLast(suffix.count))
            switch DataDirectoryInspection.collectionFile(named: name, in: directory, recorded: ledger.generations) {
            case .damaged(let reason):
                findings.append(.error("files", "\(path) \(reason)", fix: "restore it from a backup, or move it "
                    + "away so cofferd starts without that collection"))
            case .intact(_, let generation):
                if let loadedIDs, !loadedIDs.contains(id) {
                    findings.append(.error("files", "\(path) looks intact (generation \(generation)) but the running "
                        + "cofferd does not serve it: it failed authentication or could not be read",
                        fix: "see cofferd's log (`journalctl --user -u cofferd`) for the reason; restore the file "
                            + "from a backup"))
                } else {
                    findings.append(.ok("files", "\(path): header and records intact (generation \(generation))"))
                }
            }
        }
        return findings
    }

    /// Who holds the data directory: nobody, the provider on this bus, or another process, whose writes the
    /// provider on this bus would never see.
    static func directoryLock(_ directory: String, provider: UInt32?) -> [DoctorFinding] {
        let holder = DirectoryLock.holder(of: directory)
        guard holder.held else {
            return provider == nil ? [] : [.warning("files", "no cofferd holds \(directory), though a provider runs: "
                + "it keeps its data elsewhere or is an older cofferd", fix: "compare its --data-dir with this one")]
        }
        let pid = holder.pid.map { "pid \($0)" } ?? "a process that has not named itself yet"
        if let provider, let owner = holder.pid, UInt32(owner) == provider {
            return [.ok("files", "\(directory) is held by the provider on this bus (pid \(provider))")]
        }
        return [.error("files", "\(directory) is held by another cofferd (\(pid)), not by the provider on this bus; "
            + "secrets stored through this bus are not in these files, and a second daemon on them cannot start",
            fix: "stop the other cofferd (`kill \(holder.pid.map(String.init) ?? "PID")`) or give one of them its own "
                + "--data-dir")]
    }

    // MARK: - Pinentry

    /// The pinentry program cofferd runs (its `--pinentry`, else `pinentry`) must exist.
    static func pinentry(arguments: [String], environment: [String: String]) -> [DoctorFinding] {
        var program = "pinentry"
        if let index = arguments.firstIndex(of: "--pinentry"), index + 1 < arguments.count {
            program = arguments[index + 1]
        } else if let argument = arguments.first(where: { $0.hasPrefix("--pinentry=") }) {
            program = String(argument.dropFirst("--pinentry=".count))
        }
        let path = environment["PATH"] ?? "/usr/bin:/bin"
        let candidates = program.contains("/") ? [program] : path.split(separator: ":").map { "\($0)/\(program)" }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return [.error("pinentry", "'\(program)' is not installed, so cofferd cannot ask for passwords",
                fix: "apt install pinentry-gnome3 (desktop) or pinentry-curses (terminal), or start cofferd with "
                    + "--pinentry PROGRAM")]
        }
        let resolved = (try? FileManager.default.destinationOfSymbolicLink(atPath: found)).map { " → \($0)" } ?? ""
        return [.ok("pinentry", "\(found)\(resolved)")]
    }
}
