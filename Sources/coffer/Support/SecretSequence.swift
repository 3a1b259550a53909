// SPDX-License-Identifier: Apache-2.0
// Several secrets read by one command in turn, where which ones are needed is known only as it goes.

import Foundation
import SecretCrypto

/// The secrets one command reads one after another, for example a keyring file's password and then, when the target
/// collection turns out to be missing, the password for creating it. On a terminal each is a prompt that does not
/// echo (a new password twice, as `create-keychain` asks); from a pipe each is the next line of stdin, which is read
/// once, so a script feeds them as lines in the order the command's help gives.
struct SecretSequence {
    /// Stdin's lines once read (pipes only); `nil` until the first secret is needed.
    private var pipedLines: [SecretBytes]?
    private var nextLine = 0

    /// The next secret.
    /// - Parameters:
    ///   - prompt: shown on a terminal.
    ///   - purpose: what the secret is for, named when stdin ends too early (for example "the file's password").
    /// - Throws: ``CofferError`` with ``ExitStatus/cancelled`` when stdin has no line left or the terminal gave end
    ///   of file.
    mutating func read(prompt: String, purpose: String) throws -> SecretBytes {
        if Console.isTerminal(STDIN_FILENO) { return try SecretInput.read(prompt: prompt) }
        return try piped(purpose)
    }

    /// The next secret as a new password: typed twice on a terminal (they must match), one line from a pipe.
    /// - Throws: as ``read(prompt:purpose:)``, and ``ExitStatus/badArguments`` when the two entries differ.
    mutating func readNewPassword(prompt: String, confirmation: String, purpose: String) throws -> SecretBytes {
        if Console.isTerminal(STDIN_FILENO) {
            return try SecretInput.readNewPassword(prompt: prompt, confirmation: confirmation)
        }
        return try piped(purpose)
    }

    private mutating func piped(_ purpose: String) throws -> SecretBytes {
        if pipedLines == nil {
            pipedLines = try SecretInput.lines(of: SecretInput.readToEnd(STDIN_FILENO), count: .max)
        }
        guard let lines = pipedLines, nextLine < lines.count else {
            throw CofferError(.cancelled, "stdin has no line left for \(purpose)")
        }
        defer { nextLine += 1 }
        return lines[nextLine]
    }
}
