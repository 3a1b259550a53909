// SPDX-License-Identifier: Apache-2.0
// The collection-file fuzz corpus, replayed on every test run: each input is parsed or refused, never a crash.

import Foundation
@_spi(Fuzzing) import SecretStore
import Testing

@Suite("Collection file fuzz corpus")
struct FuzzCorpusTests {
    /// `Fuzz/corpus/collection-file`, found from this file's path.
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus/collection-file")

    @Test("real files parse, damaged ones and past fuzzer findings are refused, every record re-encodes exactly")
    func corpus() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).sorted()
        #expect(names.count >= 5)
        for name in names {
            let bytes = [UInt8](try Data(contentsOf: Self.corpus.appendingPathComponent(name)))
            let outcome = CollectionFileProbe.decodeFile(bytes)
            if name.hasPrefix("login-") {
                guard case .parsed(let records) = outcome else {
                    Issue.record("\(name): \(outcome)")
                    continue
                }
                #expect(records >= 3, "\(name)")
            } else if name.hasPrefix("regression-") {
                #expect(outcome == .rejected, "\(name)")
            } else {
                #expect(!isNotCanonical(outcome), "\(name): \(outcome)")
            }
            _ = CollectionFileProbe.decodeItemMetadata(bytes)
        }
    }

    private func isNotCanonical(_ outcome: CollectionFileProbe.Outcome) -> Bool {
        if case .notCanonical = outcome { return true }
        return false
    }
}
