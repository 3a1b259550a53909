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
        let offenders = try SourceTree.files(under: ["Sources"], matching: double)
        #expect(offenders.isEmpty, "\(offenders)")
    }
}
