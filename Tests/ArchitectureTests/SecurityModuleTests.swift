// SPDX-License-Identifier: Apache-2.0
// The Security module holds Apple's names only, so `import Security` brings nothing an iOS app could clash with.

import Foundation
import Testing

@Suite("Security module surface")
struct SecurityModuleTests {
    /// Apple's prefixes for the Security and CoreFoundation names, plus the unprefixed ones Apple has too.
    static let applePrefixes = ["Sec", "kSec", "errSec", "CF", "kCF"]
    static let appleNames: Set = ["OSStatus", "noErr"]

    @Test("every top-level public declaration in Sources/Security has an Apple name")
    func onlyAppleNames() throws {
        let pattern = try NSRegularExpression(
            pattern: #"^(?:nonisolated\(unsafe\) )?public (?:final class|class|struct|enum|typealias|func|let|var|protocol|actor) ([A-Za-z_][A-Za-z0-9_]*)"#,
            options: [.anchorsMatchLines])
        var names: [String] = []
        for file in try SourceTree.swiftFiles(under: "Sources/Security") {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let range = Range(match.range(at: 1), in: text) { names.append(String(text[range])) }
            }
        }
        #expect(names.count > 50, "the scan found too few declarations; the file walk is broken")
        let foreign = names.filter { name in
            !Self.appleNames.contains(name) && !Self.applePrefixes.contains { name.hasPrefix($0) }
        }
        #expect(foreign.isEmpty, "non-Apple public names in Security: \(foreign)")
    }

    @Test("the Swift-style Keychain type lives outside Security, in a module not named like a type")
    func keychainTypeOutsideSecurity() throws {
        let security = try SourceTree.swiftFiles(under: "Sources/Security")
        for file in security {
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(!text.contains("public struct Keychain "), "\(file.lastPathComponent)")
            #expect(!text.contains("public struct KeychainConfiguration"), "\(file.lastPathComponent)")
        }
        #expect(try !SourceTree.swiftFiles(under: "Sources/CofferKeychain").isEmpty)
    }
}
