// SPDX-License-Identifier: Apache-2.0
// The package's Swift files, for the architecture tests that hold rules over all of them.

import Foundation

enum SourceTree {
    /// The package root, found from this file's location.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func swiftFiles(under folder: String) throws -> [URL] {
        let base = root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        return walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    }

    /// The Swift files under `folders` whose text `pattern` matches, as paths relative to the package root.
    /// - Throws: when a folder holds no Swift file at all, so a broken walk cannot pass as "nothing matched".
    static func files(under folders: [String], matching pattern: NSRegularExpression) throws -> [String] {
        var found: [String] = []
        for folder in folders {
            let files = try swiftFiles(under: folder)
            guard !files.isEmpty else { throw EmptyFolder(folder: folder) }
            for file in files {
                let text = try String(contentsOf: file, encoding: .utf8)
                if pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil {
                    found.append(String(file.path.dropFirst(root.path.count + 1)))
                }
            }
        }
        return found
    }

    struct EmptyFolder: Error, CustomStringConvertible {
        let folder: String
        var description: String { "no Swift file under \(folder): the file walk is broken" }
    }
}
