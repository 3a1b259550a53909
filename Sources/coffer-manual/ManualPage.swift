// SPDX-License-Identifier: Apache-2.0
// Renders a command's description as an mdoc(7) manual page: name, synopsis, description, options with their
// defaults, subcommands, files and see-also.

/// An mdoc document built line by line.
struct ManualPage {
    /// What the page says beyond the command's own description.
    struct Context {
        var section: Int
        var date: String
        var documentationDirectory: String?
        var seeAlso: [String]
    }

    private(set) var lines: [String] = []
    private let context: Context

    init(_ tool: ToolInfo, context: Context) {
        self.context = context
        let command = tool.command
        let name = command.commandName
        lines += [".Dd \(context.date)", ".Dt \(name.uppercased()) \(context.section)", ".Os"]
        lines += [".Sh NAME", ".Nm \(name)", ".Nd " + Self.escapeArgument(Self.withoutFinalStop(command.abstract ?? name))]
        lines.append(".Sh SYNOPSIS")
        synopsis(of: command, path: [])
        // A paragraph of the discussion that starts "Exit status" gets the section of that name.
        let paragraphs = (command.discussion ?? command.abstract ?? "").split(separator: "\n\n").map(String.init)
        let isExitStatus = { (paragraph: String) in paragraph.hasPrefix("Exit status") }
        // mdoc's conventional order: the options inside DESCRIPTION, then COMMANDS, FILES, EXIT STATUS, SEE ALSO.
        lines.append(".Sh DESCRIPTION")
        prose(paragraphs.filter { !isExitStatus($0) }.joined(separator: "\n\n"))
        if !command.displayedArguments.isEmpty {
            lines += [".Pp", "The options are as follows:"]
            options(command.displayedArguments)
        }
        if !command.displayedSubcommands.isEmpty {
            lines.append(".Sh COMMANDS")
            for subcommand in command.displayedSubcommands { describe(subcommand, path: [subcommand.commandName]) }
        }
        if let directory = context.documentationDirectory {
            lines += [".Sh FILES", ".Bl -tag -width Ds", ".It Pa \(Self.escapeArgument(directory))",
                      "Coffer's documentation: README.md and the documents it links, such as CONFIGURATION.md "
                        + "(cofferd.conf), INSTALL.md (what is installed where, the systemd unit), ACCESS-CONTROL.md "
                        + "(which applications may use which secrets, the access log) and ARCHIVE.md (the export "
                        + "archive format).", ".El"]
        }
        let exitStatus = paragraphs.filter(isExitStatus)
        if !exitStatus.isEmpty {
            lines.append(".Sh EXIT STATUS")
            prose(exitStatus.joined(separator: "\n\n"))
        }
        let references = context.seeAlso.compactMap(Self.crossReference)
        if !references.isEmpty {
            lines.append(".Sh SEE ALSO")
            for (index, reference) in references.enumerated() {
                lines.append(reference + (index < references.count - 1 ? " ," : ""))
            }
        }
    }

    /// The page's text, one line each.
    var text: String { lines.joined(separator: "\n") + "\n" }

    // MARK: - Sections

    private mutating func synopsis(of command: CommandInfo, path: [String]) {
        lines.append(".Nm")
        for word in path { lines.append(".Cm \(Self.escapeArgument(word))") }
        if !command.displayedSubcommands.isEmpty { lines.append(".Ar command") }
        for argument in command.displayedArguments {
            let usage = Self.usage(of: argument)
            lines.append(argument.isOptional || argument.kind == .flag ? ".Op \(usage)" : "." + usage)
            if argument.isRepeating { lines.append(".No ...") }
        }
    }

    private mutating func describe(_ command: CommandInfo, path: [String]) {
        lines.append(".Ss " + Self.escapeArgument(path.joined(separator: " ")))
        synopsis(of: command, path: path)
        lines.append(".Pp")
        prose(command.discussion.map { (command.abstract.map { $0 + "\n\n" } ?? "") + $0 } ?? command.abstract ?? "")
        // A list sets itself apart; a paragraph break before it is redundant (mandoc warns).
        if !command.displayedArguments.isEmpty { options(command.displayedArguments) }
        for subcommand in command.displayedSubcommands {
            describe(subcommand, path: path + [subcommand.commandName])
        }
    }

    private mutating func options(_ arguments: [ArgumentInfo]) {
        lines.append(".Bl -tag -width Ds")
        for argument in arguments {
            lines.append(".It " + Self.usage(of: argument, allNames: true))
            var text = [argument.abstract, argument.discussion].compactMap { $0 }.joined(separator: "\n\n")
            if let values = argument.allValues, !values.isEmpty, argument.kind != .flag {
                text += (text.isEmpty ? "" : " ") + "One of: " + values.joined(separator: ", ") + "."
            }
            if let value = argument.shownDefault {
                text += (text.isEmpty ? "" : " ") + "Default: \(value)."
            }
            prose(text)
        }
        lines.append(".El")
    }

    /// Paragraphs separated by blank lines. A paragraph of several lines is a table or list laid out with spaces,
    /// so it is kept as it is.
    private mutating func prose(_ text: String) {
        let paragraphs = text.split(separator: "\n\n", omittingEmptySubsequences: true)
        for (index, paragraph) in paragraphs.enumerated() {
            let paragraphLines = paragraph.split(separator: "\n", omittingEmptySubsequences: true)
            if paragraphLines.count > 1 {
                lines.append(".Bd -literal -offset indent")
                lines += paragraphLines.map { Self.escapeText(String($0), literal: true) }
                lines.append(".Ed")
            } else {
                if index > 0 { lines.append(".Pp") }
                lines += paragraphLines.flatMap { Self.sentences(String($0)) }.map { Self.escapeText($0) }
            }
        }
    }

    // MARK: - mdoc syntax

    /// `Fl -name Ar value`, or `Ar value` for a positional argument; all of its names joined with commas.
    static func usage(of argument: ArgumentInfo, allNames: Bool = false) -> String {
        let value = "Ar " + escapeArgument(argument.valueName ?? "value")
        guard argument.kind != .positional else { return value }
        let names = (argument.names ?? []).map(\.spelled)
        let shown = allNames ? names : Array(names.sorted { $0.count > $1.count }.prefix(1))
        let flags = shown.map { "Fl " + escapeArgument(String($0.dropFirst())) }.joined(separator: " , ")
        return argument.kind == .option ? flags + " " + value : flags
    }

    /// The sentences of a line, one per line: roff puts the sentence spacing only where a line ends, and mandoc
    /// warns about a sentence that starts mid-line.
    static func sentences(_ line: String) -> [String] {
        var result: [String] = []
        var current = ""
        var previous: Character = " "
        for character in line {
            if character == " ", ".?!".contains(previous), !current.isEmpty {
                result.append(current)
                current = ""
            } else if !(character == " " && current.isEmpty) {
                current.append(character)
            }
            previous = character
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    /// `coffer(1)` as `.Xr coffer 1`.
    static func crossReference(_ page: String) -> String? {
        guard let open = page.firstIndex(of: "("), page.last == ")" else { return nil }
        let name = page[..<open], section = page[page.index(after: open)..<page.index(before: page.endIndex)]
        return ".Xr \(name) \(section)"
    }

    /// A text line: backslashes escaped, and a leading `.` or `'` kept from being read as a request.
    /// Outside a literal block leading spaces are dropped: mdoc would read them as a line break.
    static func escapeText(_ line: String, literal: Bool = false) -> String {
        let escaped = line.replacing("\\", with: "\\e")
        let body = literal ? escaped : String(escaped.drop { $0 == " " })
        return body.hasPrefix(".") || body.hasPrefix("'") ? "\\&" + body : body
    }

    /// A macro argument: escaped, quoted when it holds spaces.
    static func escapeArgument(_ text: String) -> String {
        let escaped = text.replacing("\\", with: "\\e").replacing("\"", with: "\\(dq")
        return escaped.contains(" ") ? "\"\(escaped)\"" : escaped
    }

    static func withoutFinalStop(_ text: String) -> String {
        text.hasSuffix(".") ? String(text.dropLast()) : text
    }
}
