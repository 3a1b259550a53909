// SPDX-License-Identifier: Apache-2.0
// Enforces the C boundary: only DBusTransport imports libdbus and only SecretCrypto imports libgcrypt.

import Foundation
import Testing

@Suite("C boundary")
struct CBoundaryTests {
    /// Files importing `module`, as paths relative to the package root.
    static func importers(of module: String) throws -> [String] {
        let pattern = try NSRegularExpression(
            pattern: #"^\s*(@_implementationOnly\s+|@preconcurrency\s+)?((public|package|internal|private|fileprivate)\s+)?import\s+"#
                + module + #"\b"#,
            options: [.anchorsMatchLines])
        return try SourceTree.files(under: ["Sources", "Tests"], matching: pattern)
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
        let offenders = try SourceTree.files(under: ["Sources"], matching: leak)
        #expect(offenders.isEmpty, "\(offenders)")
    }
}
