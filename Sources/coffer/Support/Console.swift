// SPDX-License-Identifier: Apache-2.0
// Writing to stdout and stderr without buffering surprises, and asking whether a stream is a terminal.

import Foundation

/// The CLI's only way to print: human text and JSON to stdout, diagnostics to stderr.
enum Console {
    /// Writes `text` followed by a newline to stdout.
    static func print(_ text: String) { write(text + "\n", to: STDOUT_FILENO) }

    /// Writes `text` to stdout as is.
    static func write(_ text: String) { write(text, to: STDOUT_FILENO) }

    /// Writes raw bytes to stdout (a secret printed by `lookup` or `-w`; the caller wipes its copy).
    static func write(bytes: UnsafeRawBufferPointer) { writeAll(bytes, to: STDOUT_FILENO) }

    /// Writes `coffer: <text>` and a newline to stderr: the one line a failure or warning gets.
    static func error(_ text: String) { write("coffer: " + text + "\n", to: STDERR_FILENO) }

    /// Writes `coffer: warning: <text>` to stderr.
    static func warning(_ text: String) { error("warning: " + text) }

    /// Whether the descriptor is a terminal (prompts, colours and progress bars only then).
    static func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }

    /// Writes text to a descriptor; stdout buffering is bypassed so stdout and stderr stay in order.
    static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { writeAll(UnsafeRawBufferPointer($0), to: descriptor) }
    }

    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) {
        guard var base = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let written = Foundation.write(descriptor, base, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                return  // a closed pipe (`coffer … | head`): nothing sensible left to report to
            }
            remaining -= written
            base += written
        }
    }
}
