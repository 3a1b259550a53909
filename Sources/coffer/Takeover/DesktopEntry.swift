// SPDX-License-Identifier: Apache-2.0
// Reading the key files that start providers: XDG autostart entries and D-Bus activation files, and editing one
// key of an INI file (KeePassXC's settings) without disturbing the rest.

import Foundation

/// The unlocalised keys of a key file's first group (`[Desktop Entry]`, `[D-BUS Service]`).
struct DesktopEntry {
    var values: [String: String] = [:]

    /// Reads `path`; `nil` when it cannot be read. Files beyond a small size are not key files a session uses.
    init?(path: String) {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              (attributes[.size] as? NSNumber)?.intValue ?? 0 <= 1 << 20,
              let text = try? String(contentsOfFile: path, encoding: .utf8)
        else { return nil }
        var groups = 0
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("[") {
                groups += 1
                if groups > 1 { break }
                continue
            }
            guard !trimmed.hasPrefix("#"), let equals = trimmed.firstIndex(of: "=") else { continue }
            let key = trimmed[..<equals].trimmingCharacters(in: .whitespaces)
            guard !key.contains("[") else { continue }  // localised variants
            values[key] = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
    }

    var name: String? { values["Name"] }

    /// `Hidden=true` disables the entry for this user (X-GNOME-Autostart-enabled=false does in GNOME too).
    var isHidden: Bool {
        values["Hidden"]?.lowercased() == "true" || values["X-GNOME-Autostart-enabled"]?.lowercased() == "false"
    }

    /// Whether the entry runs gnome-keyring-daemon with its secrets component (no `--components` means all).
    var startsGnomeKeyringSecrets: Bool {
        guard let exec = values["Exec"], exec.contains("gnome-keyring-daemon") else { return false }
        guard let range = exec.range(of: "--components=") else { return true }
        let list = exec[range.upperBound...].prefix { !$0.isWhitespace }
        return list.replacingOccurrences(of: "\"", with: "").split(separator: ",").contains("secrets")
    }
}

/// One key of an INI file, changed in place.
enum IniSetting {
    /// `text` with `key` in `[section]` set to `value`, or `nil` when the key is absent or `when` rejects its
    /// current value. Every other line is kept byte for byte, so undoing restores the file exactly.
    static func replacing(section: String, key: String, value: String, in text: String,
                          when condition: (String) -> Bool) -> String? {
        var lines = text.components(separatedBy: "\n")
        var current: String?
        for index in lines.indices {
            let trimmed = lines[index].trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("[") && trimmed.hasSuffix("]") {
                current = String(trimmed.dropFirst().dropLast())
                continue
            }
            guard current == section, let equals = trimmed.firstIndex(of: "="),
                  trimmed[..<equals].trimmingCharacters(in: .whitespaces) == key
            else { continue }
            let old = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard condition(old) else { return nil }
            lines[index] = "\(key)=\(value)"
            return lines.joined(separator: "\n")
        }
        return nil
    }
}
