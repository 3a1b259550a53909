// SPDX-License-Identifier: Apache-2.0
// coffer-manual: turns a command's `--experimental-dump-help` JSON (standard input) into its mdoc manual page
// (standard output). `make install` runs it for cofferd and coffer, so the pages always match the parsers.

import ArgumentParser
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#endif

@main
struct CofferManual: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coffer-manual",
        abstract: "Write the mdoc manual page of a command from its --experimental-dump-help output on stdin.")

    @Option(help: "The manual section.")
    var section = 1

    @Option(help: ArgumentHelp("Where the documentation is installed (shown under FILES).", valueName: "directory"))
    var docDir: String?

    @Option(help: ArgumentHelp("A related page, as name(section); repeatable.", valueName: "page"))
    var seeAlso: [String] = []

    func run() throws {
        var input: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(STDIN_FILENO, &buffer, buffer.count)
            guard count > 0 else { break }
            input += buffer[..<count]
        }
        let tool = try JSONDecoder().decode(ToolInfo.self, from: Data(input))
        let page = ManualPage(tool, context: .init(section: section, date: Self.date(), documentationDirectory: docDir,
                                                   seeAlso: seeAlso))
        print(page.text, terminator: "")
    }

    /// The page's date: `$SOURCE_DATE_EPOCH` for reproducible builds, else today, as mdoc wants it ("May 4, 2026").
    static func date() -> String {
        var seconds = time(nil)
        if let epoch = getenv("SOURCE_DATE_EPOCH").flatMap({ Int(String(cString: $0)) }) { seconds = epoch }
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                      "October", "November", "December"]
        return "\(months[Int(parts.tm_mon)]) \(parts.tm_mday), \(1900 + Int(parts.tm_year))"
    }
}
