// SPDX-License-Identifier: Apache-2.0
// Enforces the C boundary: only DBusTransport imports libdbus and only SecretCrypto imports libgcrypt.

import Foundation
import Testing

@Suite("C boundary")
struct CBoundaryTests {
    /// The package root, found from this file's location.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func swiftFiles(under folder: String) throws -> [URL] {
        let base = root.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        return walker.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    }

    /// Files importing `module`, as paths relative to the package root.
    static func importers(of module: String) throws -> [String] {
        let pattern = try NSRegularExpression(
            pattern: #"^\s*(@_implementationOnly\s+|@preconcurrency\s+)?((public|package|internal|private|fileprivate)\s+)?import\s+"#
                + module + #"\b"#,
            options: [.anchorsMatchLines])
        var found: [String] = []
        for file in try swiftFiles(under: "Sources") + swiftFiles(under: "Tests") {
            let text = try String(contentsOf: file, encoding: .utf8)
            if pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil {
                found.append(String(file.path.dropFirst(root.path.count + 1)))
            }
        }
        return found
    }

    @Test("libdbus is imported only by DBusTransport")
    func dbusStaysInTransport() throws {
        let importers = try Self.importers(of: "CDBus")
        #expect(!importers.isEmpty, "the scan found no importer at all; the file walk is broken")
        #expect(importers.allSatisfy { $0.hasPrefix("Sources/DBusTransport/") }, "\(importers)")
    }

    @Test("libgcrypt is imported only by SecretCrypto")
    func gcryptStaysInCrypto() throws {
        let importers = try Self.importers(of: "CGcrypt")
        #expect(!importers.isEmpty, "the scan found no importer at all; the file walk is broken")
        #expect(importers.allSatisfy { $0.hasPrefix("Sources/SecretCrypto/") }, "\(importers)")
    }

    @Test("no public declaration exposes a C type")
    func noCTypesInPublicAPI() throws {
        let leak = try NSRegularExpression(pattern: #"^\s*(public|open)\s.*\b(OpaquePointer|DBusMessage|DBusConnection|DBusMessageIter|gcry_\w+|dbus_\w+)\b"#,
                                           options: [.anchorsMatchLines])
        var offenders: [String] = []
        for file in try Self.swiftFiles(under: "Sources") {
            let text = try String(contentsOf: file, encoding: .utf8)
            if leak.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil {
                offenders.append(file.lastPathComponent)
            }
        }
        #expect(offenders.isEmpty, "\(offenders)")
    }
}
