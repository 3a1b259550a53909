// SPDX-License-Identifier: Apache-2.0
// A collection label made safe to show in a dialog the user is asked to trust.

/// A label as a prompt shows it: one line, no invisible direction changes, bounded length.
///
/// Any client may create a collection with any label, so a label is text chosen by a possible attacker placed
/// inside our dialog. Line breaks in it could start a fake "requested by" paragraph, bidirectional controls could
/// make it render as something else, and a long one could push the rest of the dialog past Assuan's line limit.
enum PromptLabel {
    /// The most characters shown; longer labels end in an ellipsis.
    static let maximumCharacters = 64
    /// The most Unicode scalars shown: a single character may carry any number of combining marks.
    static let maximumScalars = 128

    /// `label` with line breaks and other controls turned into spaces, format characters (bidirectional
    /// embeddings, overrides, isolates and marks; zero-width characters) removed, and cut to the bounds above.
    static func displayed(_ label: String, maximumCharacters: Int = maximumCharacters) -> String {
        var cleaned = String.UnicodeScalarView()
        for scalar in label.unicodeScalars {
            switch scalar.properties.generalCategory {
            // C0, DEL and C1 (which holds NEL), and U+2028/U+2029: anything that may break the line.
            case .control, .lineSeparator, .paragraphSeparator: cleaned.append(" ")
            // U+200E/F, U+061C, U+202A–U+202E, U+2066–U+2069, zero-width joiners and the like.
            case .format: continue
            default: cleaned.append(scalar)
            }
        }
        var shown = ""
        var characters = 0
        var scalars = 0
        for character in String(cleaned) {
            let size = character.unicodeScalars.count
            guard characters < maximumCharacters, scalars + size <= maximumScalars else {
                return shown + "…"
            }
            shown.append(character)
            characters += 1
            scalars += size
        }
        return shown
    }

    /// The most characters of a path shown; a longer one loses its beginning, since its end names the program.
    static let maximumPathCharacters = 120

    /// A path (or command line) made safe like a label, keeping its end when it is too long.
    static func displayedPath(_ path: String) -> String {
        guard path.count > maximumPathCharacters else { return displayed(path, maximumCharacters: maximumPathCharacters) }
        return "…" + displayed(String(path.suffix(maximumPathCharacters)), maximumCharacters: maximumPathCharacters)
    }
}
