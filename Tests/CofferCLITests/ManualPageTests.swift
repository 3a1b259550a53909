// SPDX-License-Identifier: Apache-2.0
// The man pages coffer-manual writes from cofferd's and coffer's own descriptions: clean for mandoc, with the
// defaults and exit statuses, without swift-argument-parser's `help` subcommand, pointing at installed docs.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("man pages")
struct ManualPageTests {
    /// Writes `program`'s page the way `make install` does and returns its path.
    static func page(_ program: String, seeAlso: String, in directory: URL) async throws -> String {
        let bin = try DaemonHarness.executableURL().deletingLastPathComponent().path
        let path = directory.appendingPathComponent("\(program).1").path
        let make = try await Command.run("/bin/sh", ["-c", "'\(bin)/\(program)' --experimental-dump-help | "
            + "'\(bin)/coffer-manual' --doc-dir /usr/share/doc/coffer --see-also '\(seeAlso)' > '\(path)'"])
        #expect(make.status == 0, "\(make.stderr)")
        return path
    }

    static func lintAndRender(_ path: String) async throws -> String {
        let lint = try await Command.run("/usr/bin/mandoc", ["-T", "lint", "-W", "warning", path])
        #expect(lint.status == 0 && lint.text.isEmpty, "\(lint.text)")
        let render = try await Command.run("/usr/bin/mandoc", ["-T", "ascii", path])
        #expect(render.status == 0, "\(render.stderr)")
        // Drop the overstrike that marks bold and underlined text: each character followed by a backspace.
        var plain: [Character] = []
        for character in render.text {
            if character == "\u{8}" { _ = plain.popLast() } else { plain.append(character) }
        }
        // Lines are wrapped and justified: compare with single spaces.
        return String(plain).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    @Test func cofferdPageShowsDefaultsExitStatusesAndNoHelpCommand() async throws {
        try await withTemporaryDirectory { directory in
            let text = try await Self.lintAndRender(try await Self.page("cofferd", seeAlso: "coffer(1)", in: directory))
            #expect(text.contains("--prompt-timeout seconds"), "\(text)")
            #expect(text.contains("Default: 300."))
            #expect(text.contains("Default: info."))
            #expect(text.contains("64 when the command line is invalid"))
            #expect(text.contains("6 when the data directory cannot be created or opened"))
            #expect(!text.contains("cofferd help") && !text.contains("COMMANDS"), "\(text)")
            #expect(text.contains("/usr/share/doc/coffer"))
            #expect(!text.contains("Sources/"))
            #expect(text.contains("coffer(1)"))
        }
    }

    @Test func cofferPageListsTheCommandsButNotHelp() async throws {
        try await withTemporaryDirectory { directory in
            let text = try await Self.lintAndRender(try await Self.page("coffer", seeAlso: "cofferd(1)", in: directory))
            #expect(text.contains("COMMANDS"))
            #expect(text.contains("coffer store"), "\(text)")
            #expect(text.contains("64 bad arguments"))
            #expect(!text.contains("coffer help"))
            #expect(!text.contains("Sources/KeyringFiles"))
            #expect(text.contains("ARCHIVE.md in Coffer's documentation directory"))
        }
    }

    @Test func cofferPageDescribesManagingAccess() async throws {
        try await withTemporaryDirectory { directory in
            let text = try await Self.lintAndRender(try await Self.page("coffer", seeAlso: "cofferd(1)", in: directory))
            for verb in ["coffer access list", "coffer access grant", "coffer access revoke", "coffer access log"] {
                #expect(text.contains(verb), "\(verb) is missing")
            }
            #expect(text.contains("--since"))
            #expect(text.contains("ACCESS-CONTROL.md in Coffer's documentation directory"))
        }
    }

    func withTemporaryDirectory(_ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-man-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory)
    }
}
