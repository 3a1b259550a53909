// SPDX-License-Identifier: Apache-2.0
// A one-line progress bar on stderr, drawn only when stderr is a terminal.

import Foundation

/// Shows `label [#####.....]  12/40` on stderr, redrawn in place, for long operations (imports of large keyrings).
///
/// When stderr is not a terminal (scripts, CI logs, `--json` callers) it draws nothing at all, so the output a
/// script parses stays clean. Redraws are limited to visible changes so a million updates cost a few writes.
struct ProgressBar {
    private let label: String
    private let total: Int
    private let width: Int
    private let enabled: Bool
    private var completed = 0
    private var drawnFilled = -1
    private var drawnCount = -1

    /// - Parameters:
    ///   - label: what is progressing, for example `"importing"`.
    ///   - total: the number of steps; `0` draws nothing.
    ///   - width: the bar's width in characters.
    ///   - enabled: `nil` means "when stderr is a terminal".
    init(label: String, total: Int, width: Int = 30, enabled: Bool? = nil) {
        self.label = label
        self.total = max(0, total)
        self.width = max(1, width)
        self.enabled = (enabled ?? Console.isTerminal(STDERR_FILENO)) && total > 0
    }

    /// Sets the number of steps done and redraws if anything visible changed.
    mutating func update(completed: Int) {
        self.completed = min(max(0, completed), total)
        draw()
    }

    /// One more step done.
    mutating func advance(by steps: Int = 1) { update(completed: completed + steps) }

    /// Draws the final state and moves to a fresh line, so later output does not overwrite the bar.
    mutating func finish() {
        guard enabled else { return }
        drawnCount = -1
        draw()
        Console.write("\n", to: STDERR_FILENO)
    }

    /// The text of the bar for `completed` steps (no carriage return), exposed for tests of the layout.
    func line() -> String {
        let filled = total == 0 ? width : completed * width / total
        return "\(label) [" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            + "] \(completed)/\(total)"
    }

    private mutating func draw() {
        guard enabled else { return }
        let filled = completed * width / total
        // Redraw when the bar grows or at least every 1% of the count: bounded writes for any total.
        let step = max(1, total / 100)
        guard filled != drawnFilled || drawnCount < 0 || completed - drawnCount >= step || completed == total
        else { return }
        drawnFilled = filled
        drawnCount = completed
        Console.write("\r\u{1B}[2K" + line(), to: STDERR_FILENO)
    }
}
