// SPDX-License-Identifier: Apache-2.0
// Where cofferd keeps collection files by default.

import Foundation

enum DataDirectory {
    /// `$XDG_DATA_HOME/coffer`, else `$HOME/.local/share/coffer`.
    static var standard: String? {
        let environment = ProcessInfo.processInfo.environment
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/coffer" }
        if let home = environment["HOME"], !home.isEmpty { return home + "/.local/share/coffer" }
        return nil
    }
}
