// SPDX-License-Identifier: Apache-2.0
// Where cofferd keeps collection files by default, and the environment variables it reads.

#if canImport(Glibc)
import Glibc
#endif

/// The process environment, read with `getenv`: Foundation's `ProcessInfo` would link its internationalisation
/// data into cofferd, several megabytes of resident memory for a few variable names.
enum Environment {
    static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// The variables the configuration file's location depends on, in the form `ConfigFile.standardPath` reads.
    static var configurationVariables: [String: String] {
        var found: [String: String] = [:]
        for name in ["XDG_CONFIG_HOME", "HOME"] { found[name] = value(name) }
        return found
    }
}

enum DataDirectory {
    /// `$XDG_DATA_HOME/coffer`, else `$HOME/.local/share/coffer`.
    static var standard: String? {
        if let data = Environment.value("XDG_DATA_HOME"), data.hasPrefix("/") { return data + "/coffer" }
        if let home = Environment.value("HOME"), !home.isEmpty { return home + "/.local/share/coffer" }
        return nil
    }
}
