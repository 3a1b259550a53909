// SPDX-License-Identifier: Apache-2.0
// doctor's check of what unlocks `login` when the user logs in: pam_coffer.so in the PAM stack (docs/PAM.md), each
// of its three parts, and the module file the lines name.

import Foundation

extension DoctorChecks {
    /// The PAM module types pam_coffer acts in, and what is lost without each.
    private static let pamParts: [(type: String, without: String)] = [
        ("auth", "the login password is never picked up, so nothing unlocks login at login"),
        ("session", "the login password is picked up but never handed to cofferd, so login stays locked"),
        ("password", "a change of the login password leaves login's password behind"),
    ]

    /// Where libpam looks for a module named without a path (Debian's multiarch directories and the generic ones).
    static func pamModuleDirectories(systemRoot: String) -> [String] {
        var found: [String] = []
        for base in ["/lib", "/usr/lib"] {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: systemRoot + base)) ?? []
            for entry in entries.sorted() where entry.hasSuffix("-linux-gnu") {
                found.append(systemRoot + base + "/" + entry + "/security")
            }
            found.append(systemRoot + base + "/security")
        }
        return found
    }

    /// Which of auth, session and password load pam_coffer.so somewhere in the PAM stack, and whether the module
    /// each line names exists. A missing part is a warning: cofferd works, but login then waits for a prompt.
    static func loginUnlock(_ directories: UserDirectories) -> [DoctorFinding] {
        var typesFound: Set<String> = []
        var findings: [DoctorFinding] = []
        let moduleDirectories = pamModuleDirectories(systemRoot: directories.systemRoot)
        for name in CompetitorSurvey.listing(directories.pamDirectory) {
            let path = directories.pamDirectory + "/" + name
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
                guard fields.count >= 3, !fields[0].hasPrefix("#"),
                      let module = fields.dropFirst(2).first(where: { $0.hasSuffix("pam_coffer.so") })
                else { continue }
                // "-session" marks a line libpam skips quietly when the module is missing.
                let type = fields[0].hasPrefix("-") ? String(fields[0].dropFirst()) : String(fields[0])
                typesFound.insert(type)
                let candidates = module.hasPrefix("/") ? [directories.systemRoot + module]
                    : moduleDirectories.map { $0 + "/" + module }
                if !candidates.contains(where: FileManager.default.fileExists(atPath:)) {
                    findings.append(.warning("pam", "\(path) line \(number + 1) loads \(module), which is not "
                        + "installed", fix: "reinstall Coffer (the package and `make install` as root put "
                        + "pam_coffer.so into the PAM module directory)"))
                }
            }
        }
        let missing = pamParts.filter { !typesFound.contains($0.type) }
        if missing.count == pamParts.count {
            return findings + [.warning("pam", "no PAM stack in \(directories.pamDirectory) loads pam_coffer.so: "
                + "nothing unlocks login when you log in", fix: "as root, add pam_coffer.so's auth, session and "
                + "password lines (docs/PAM.md), or give login a systemd-credential key slot (docs/KEY-SLOTS.md)")]
        }
        for part in missing {
            findings.append(.warning("pam", "no \(part.type) line loads pam_coffer.so: \(part.without)",
                                     fix: "as root, add `\(part.type) optional pam_coffer.so` (docs/PAM.md)"))
        }
        if findings.isEmpty {
            findings.append(.ok("pam", "pam_coffer.so unlocks login at login and follows password changes"))
        }
        return findings
    }
}
