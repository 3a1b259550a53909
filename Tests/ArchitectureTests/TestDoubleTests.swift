// SPDX-License-Identifier: Apache-2.0
// Keeps test doubles out of the modules that ship: they live in the test targets that use them.

import Foundation
import Testing

@Suite("Test doubles")
struct TestDoubleTests {
    @Test("no production module declares a capturing, scripted, fake, mock or stub type")
    func noDoublesInSources() throws {
        let double = try NSRegularExpression(
            pattern: #"^\s*(public\s+|package\s+|internal\s+)?(final\s+)?(class|actor|struct|enum)\s+"#
                + #"(Capturing|Scripted|Fake|Mock|Stub)\w*"#,
            options: [.anchorsMatchLines])
        let sources = try CBoundaryTests.swiftFiles(under: "Sources")
        #expect(!sources.isEmpty, "the scan found no source file; the file walk is broken")
        var offenders: [String] = []
        for file in sources {
            let text = try String(contentsOf: file, encoding: .utf8)
            if double.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil {
                offenders.append(file.lastPathComponent)
            }
        }
        #expect(offenders.isEmpty, "\(offenders)")
    }
}
