// SPDX-License-Identifier: Apache-2.0
// Finds what else would serve org.freedesktop.secrets: autostart entries, activation files, systemd user units,
// KeePassXC's integration and pam_gnome_keyring. Shared by `coffer takeover` (to act) and `coffer doctor` (to check).

import Foundation

enum CompetitorSurvey {
    /// Bus names whose activation starts gnome-keyring's Secret Service component (the portal backend and
    /// gnome-keyring's own name both run `--components=secrets`, which then claims org.freedesktop.secrets).
    static let gnomeKeyringNames = ["org.gnome.keyring", "org.freedesktop.impl.portal.Secret"]
    /// gnome-keyring's systemd user units: the socket starts the service, which serves secrets.
    static let gnomeKeyringUnits = ["gnome-keyring-daemon.socket", "gnome-keyring-daemon.service"]

    /// Everything that competes with cofferd and is not yet neutralised for this user.
    /// - Parameters:
    ///   - directories: where to look.
    ///   - cofferd: the cofferd executable the activation override should start.
    static func run(_ directories: UserDirectories, cofferd: String) -> [Competitor] {
        autostart(directories) + activation(directories, cofferd: cofferd) + units(directories)
            + keepassxc(directories) + pam(directories)
    }

    // MARK: - XDG autostart

    /// System autostart entries that run gnome-keyring's secrets component, unless the user's entry of the same
    /// name hides them (`Hidden=true`, which is how the XDG autostart specification disables an entry per user).
    static func autostart(_ directories: UserDirectories) -> [Competitor] {
        var found: [Competitor] = []
        var seen: Set<String> = []
        for directory in directories.systemAutostart {
            for name in listing(directory) where name.hasSuffix(".desktop") && !seen.contains(name) {
                seen.insert(name)
                let path = directory + "/" + name
                guard let entry = DesktopEntry(path: path), entry.startsGnomeKeyringSecrets else { continue }
                let override = directories.userAutostart + "/" + name
                if let user = DesktopEntry(path: override), user.isHidden || !user.startsGnomeKeyringSecrets {
                    continue
                }
                let content = "[Desktop Entry]\nType=Application\nName=\(entry.name ?? name)\nHidden=true\n"
                    + "# Written by `coffer takeover`, which keeps gnome-keyring from claiming the Secret Service at "
                    + "login; `coffer takeover --undo` removes it.\n"
                found.append(Competitor(
                    kind: .autostart, path: path,
                    explanation: "\(path) starts gnome-keyring's Secret Service when a desktop session begins, "
                        + "before anything asks for cofferd",
                    winsAtLogin: true, change: .writeFile(path: override, content: content),
                    fix: "printf '[Desktop Entry]\\nHidden=true\\n' > \(override)"))
            }
        }
        return found
    }

    // MARK: - D-Bus activation

    /// For org.freedesktop.secrets, the activation file the bus uses (the first in search order) must start
    /// cofferd; for gnome-keyring's other names, no file may start gnome-keyring. A user file shadows system ones.
    static func activation(_ directories: UserDirectories, cofferd: String) -> [Competitor] {
        let search = [directories.userServices] + directories.systemServices
        var found: [Competitor] = []
        if let winner = activationFile(for: "org.freedesktop.secrets", in: search), !winner.exec.contains("cofferd") {
            let override = directories.userServices + "/org.freedesktop.secrets.service"
            found.append(Competitor(
                kind: .activation, path: winner.path,
                explanation: "\(winner.path) makes the bus start '\(winner.exec)' when a client asks for "
                    + "org.freedesktop.secrets and nothing owns it",
                winsAtLogin: true,
                change: .writeFile(path: override, content: activationFile(name: "org.freedesktop.secrets",
                                                                             exec: cofferd)),
                fix: "write \(override) with Name=org.freedesktop.secrets and Exec=\(cofferd)"))
        }
        for name in gnomeKeyringNames {
            guard let winner = activationFile(for: name, in: search), winner.exec.contains("gnome-keyring") else {
                continue
            }
            let override = directories.userServices + "/\(name).service"
            found.append(Competitor(
                kind: .activation, path: winner.path,
                explanation: "\(winner.path) starts gnome-keyring's Secret Service when a program asks for \(name) "
                    + "(the file-chooser portal and seahorse do), which then takes org.freedesktop.secrets",
                winsAtLogin: true,
                // A user file of the same name shadows the system one; /bin/false makes activation fail cleanly.
                change: .writeFile(path: override, content: activationFile(name: name, exec: "/bin/false")),
                fix: "write \(override) with Name=\(name) and Exec=/bin/false"))
        }
        return found
    }

    static func activationFile(name: String, exec: String) -> String {
        "[D-BUS Service]\nName=\(name)\nExec=\(exec)\n"
            + "# Written by `coffer takeover`; `coffer takeover --undo` removes it.\n"
    }

    /// The first `.service` file in `directories` that names `name`, as dbus-daemon picks it.
    static func activationFile(for name: String, in directories: [String]) -> (path: String, exec: String)? {
        for directory in directories {
            for file in listing(directory) where file.hasSuffix(".service") {
                let path = directory + "/" + file
                guard let entry = DesktopEntry(path: path), entry.values["Name"] == name else { continue }
                return (path, entry.values["Exec"] ?? "?")
            }
        }
        return nil
    }

    // MARK: - systemd user units

    /// gnome-keyring's units, present on the system and not masked for this user.
    static func units(_ directories: UserDirectories) -> [Competitor] {
        gnomeKeyringUnits.compactMap { unit -> Competitor? in
            guard let path = directories.systemUnits.map({ $0 + "/" + unit }).first(where: fileExists) else {
                return nil
            }
            if isMasked(unit, directories) { return nil }
            let enabled = (directories.systemUnits + [directories.userUnits]).contains { directory in
                listing(directory).contains { $0.hasSuffix(".wants") && fileExists(directory + "/" + $0 + "/" + unit) }
            }
            return Competitor(
                kind: .systemd, path: path,
                explanation: enabled
                    ? "\(unit) is enabled: systemd --user starts gnome-keyring (with its Secret Service) at login"
                    : "\(unit) is installed: anything that wants it starts gnome-keyring's Secret Service",
                winsAtLogin: enabled, change: .maskUnit(name: unit),
                fix: "systemctl --user mask --now \(unit)")
        }
    }

    /// Whether the user's unit directory links `unit` to /dev/null, which is what `systemctl --user mask` does.
    static func isMasked(_ unit: String, _ directories: UserDirectories) -> Bool {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: directories.userUnits + "/" + unit)) == "/dev/null"
    }

    // MARK: - KeePassXC

    /// KeePassXC serves org.freedesktop.secrets itself when its Secret Service integration is on.
    static func keepassxc(_ directories: UserDirectories) -> [Competitor] {
        let path = directories.keepassxcConfig
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
              let edited = IniSetting.replacing(section: "FdoSecrets", key: "Enabled", value: "false", in: text,
                                                when: { $0.lowercased() == "true" })
        else { return [] }
        return [Competitor(
            kind: .keepassxc, path: path,
            explanation: "KeePassXC's Secret Service integration is on ([FdoSecrets] Enabled=true): whenever "
                + "KeePassXC runs it takes org.freedesktop.secrets if it is free. Quit KeePassXC first, or it "
                + "writes its settings back when it exits",
            winsAtLogin: true, change: .writeFile(path: path, content: edited),
            fix: "in KeePassXC: Tools › Settings › Secret Service Integration, untick \"Enable KeePassXC Freedesktop.org "
                + "Secret Service integration\"")]
    }

    // MARK: - PAM

    /// Lines that load pam_gnome_keyring: reported only, since changing the PAM stack needs root.
    static func pam(_ directories: UserDirectories) -> [Competitor] {
        var found: [Competitor] = []
        for name in listing(directories.pamDirectory) {
            let path = directories.pamDirectory + "/" + name
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { continue }
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard !trimmed.hasPrefix("#"), trimmed.contains("pam_gnome_keyring.so") else { continue }
                found.append(Competitor(
                    kind: .pam, path: "\(path):\(number + 1)",
                    explanation: "\(path) line \(number + 1) (\(trimmed)) unlocks gnome-keyring at login and can "
                        + "start it; changing PAM needs root",
                    winsAtLogin: false, change: nil,
                    fix: "as root, replace pam_gnome_keyring.so with pam_coffer.so on that line"))
            }
        }
        return found
    }

    // MARK: - Helpers

    static func listing(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    static func fileExists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
}
