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

    /// The `aliases` file's contents: the aliases that point at persistent collections (in-memory ones die with the
    /// daemon anyway).
    func persistentAliasText() -> String {
        aliases.filter { collections[$0.value]?.file != nil || unavailable[$0.value] != nil }
            .sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)\n" }.joined()
    }

    /// Writes the aliases that point at persistent collections.
    /// Writes nothing when the persistent aliases did not change (say, the in-memory `session` alias was set), so a
    /// read-only data directory does not stop cofferd from starting.
    /// - Parameter previous: ``persistentAliasText()`` before the change.
    func saveAliases(previous: String) throws {
        guard let directory else { return }
        let lines = persistentAliasText()
        guard lines != previous else { return }
        try POSIXFile.ensureDirectory(directory)
        try POSIXFile.replace(directory + "/aliases", with: Array(lines.utf8), directory: directory)
    }
}
