// SPDX-License-Identifier: Apache-2.0
// The sync-journal fuzz corpus, replayed on every test run: each input is read or refused, never a crash.

@_spi(Fuzzing) @testable import CollectionSync
import Glibc
import Testing

@Suite("Sync: journal fuzz corpus")
struct SyncFuzzCorpusTests {
    /// `Fuzz/corpus/sync-journal`, found from this file's path.
    static let corpus: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/") + "/Fuzz/corpus/sync-journal"
    }()

    @Test("whole journals read, a torn one waits, a gap is damage; every input goes through every decoder")
    func corpus() throws {
        let names = try SyncFolder.entries(of: Self.corpus).sorted()
        #expect(names.count >= 5)
        for name in names {
            let bytes = try Fixture.read(Self.corpus + "/" + name)
            let outcome = JournalProbe.readJournal(bytes)
            if name.hasPrefix("journal-") {
                guard case .records(let count, waitingForMore: false) = outcome, count >= 2 else {
                    Issue.record("\(name): \(outcome)")
                    continue
                }
            } else if name.hasPrefix("torn-") {
                guard case .records(_, waitingForMore: true) = outcome else {
                    Issue.record("\(name): \(outcome)")
                    continue
                }
            } else if name.hasPrefix("damaged-") {
                #expect(outcome == .damaged, "\(name)")
            }
            JournalProbe.decodeOthers(bytes)
        }
    }
}

extension SyncFolder {
    /// The names in a directory, for the corpus test.
    static func entries(of directory: String) throws -> [String] {
        guard let stream = opendir(directory) else { throw SyncIOError("cannot list", directory) }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
