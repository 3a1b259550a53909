// SPDX-License-Identifier: Apache-2.0
// Keeps the aliases of persistent collections across restarts, in `<dir>/aliases`.

extension SecretStore {
    /// Reads `name id` lines; aliases of collections that fail to load simply resolve to nothing.
    func loadAliases() throws {
        guard let directory, let bytes = try POSIXFile.read(directory + "/aliases") else { return }
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "))
            guard fields.count == 2, let name = String(validating: fields[0], as: UTF8.self),
                  let id = String(validating: fields[1], as: UTF8.self)
            else { continue }
            aliases[name] = id
        }
    }

    /// Writes the aliases that point at persistent collections (in-memory ones die with the daemon anyway).
    func saveAliases() throws {
        guard let directory else { return }
        let lines = aliases.filter { collections[$0.value]?.file != nil || unavailable[$0.value] != nil }
            .sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)\n" }.joined()
        try POSIXFile.ensureDirectory(directory)
        try POSIXFile.replace(directory + "/aliases", with: Array(lines.utf8), directory: directory)
    }
}
