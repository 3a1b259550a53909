// SPDX-License-Identifier: Apache-2.0
// Making and reversing takeover's changes: user override files and masked systemd user units.

import Foundation

enum ChangeApplier {
    /// Makes `change` and returns its record.
    /// - Throws: ``CofferError`` with ``ExitStatus/ioError`` when a file cannot be written, ``ExitStatus/failure``
    ///   when systemctl refuses.
    static func apply(_ change: PlannedChange, _ directories: UserDirectories) throws -> AppliedChange {
        switch change {
        case .writeFile(let path, let content):
            let original = try? String(contentsOfFile: path, encoding: .utf8)
            try write(content, to: path)
            return .wroteFile(path: path, original: original, content: content)
        case .maskUnit(let name):
            let link = directories.userUnits + "/" + name
            if UserSystemd.isAvailable {
                // --now also stops a running instance, so the name is released at once.
                try UserSystemd.run(["mask", "--now", name])
            } else {
                // No user instance to talk to (a container, a test): make the link systemctl would make; the
                // next login's systemd --user reads it.
                try FileManager.default.createDirectory(atPath: directories.userUnits,
                                                        withIntermediateDirectories: true)
                do {
                    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/null")
                } catch {
                    throw CofferError(.ioError, "cannot mask \(name) (\(link)): \(error)")
                }
            }
            return .maskedUnit(name: name, link: link)
        }
    }

    /// Reverses `change`. A file the user changed since takeover wrote it is left alone and reported, rather than
    /// overwritten with an old copy.
    /// - Returns: a line saying what was done.
    static func undo(_ change: AppliedChange) throws -> String {
        switch change {
        case .wroteFile(let path, let original, let content):
            let current = try? String(contentsOfFile: path, encoding: .utf8)
            guard current == content else {
                return "left \(path) alone: it changed since takeover wrote it"
            }
            if let original {
                try write(original, to: path)
                return "restored \(path)"
            }
            do {
                try FileManager.default.removeItem(atPath: path)
            } catch {
                throw CofferError(.ioError, "cannot remove \(path): \(error)")
            }
            return "removed \(path)"
        case .maskedUnit(let name, let link):
            if UserSystemd.isAvailable {
                try UserSystemd.run(["unmask", name])
            } else if (try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == "/dev/null" {
                do {
                    try FileManager.default.removeItem(atPath: link)
                } catch {
                    throw CofferError(.ioError, "cannot unmask \(name) (\(link)): \(error)")
                }
            }
            return "unmasked \(name)"
        }
    }

    private static func write(_ content: String, to path: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try Data(content.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw CofferError(.ioError, "cannot write \(path): \(error)")
        }
    }
}

/// `systemctl --user`, when the session has a systemd user instance.
enum UserSystemd {
    /// The first `systemctl` on PATH, as a shell would run it.
    static let systemctl: String = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/systemctl" }
            .first(where: FileManager.default.isExecutableFile(atPath:)) ?? "/usr/bin/systemctl"
    }()

    /// Whether a user instance answers: its private socket exists under XDG_RUNTIME_DIR and `systemctl --user`
    /// can talk to it.
    static var isAvailable: Bool {
        guard let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"],
              FileManager.default.fileExists(atPath: runtime + "/systemd/private"),
              FileManager.default.isExecutableFile(atPath: systemctl)
        else { return false }
        return (try? status(["show-environment"])) == 0
    }

    /// Runs `systemctl --user arguments…`.
    /// - Throws: ``CofferError`` naming the command when it fails.
    static func run(_ arguments: [String]) throws {
        let code = try status(arguments)
        guard code == 0 else {
            throw CofferError(.failure, "`systemctl --user \(arguments.joined(separator: " "))` failed (exit \(code))")
        }
    }

    /// Whether `unit` is known to the user instance (installed where systemd --user looks).
    static func knows(_ unit: String) -> Bool {
        (try? status(["cat", unit])) == 0
    }

    private static func status(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: systemctl)
        process.arguments = ["--user", "--quiet"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw CofferError(.failure, "cannot run systemctl: \(error)")
        }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
