// SPDX-License-Identifier: Apache-2.0
// Reading a secret from a no-echo terminal prompt or from stdin, straight into secure memory; never from argv.

import Foundation
import SecretCrypto

/// Where secrets come from. On a terminal the user types them at a prompt that does not echo; otherwise stdin is
/// read to its end (a pipe, a file), as secret-tool does, so scripts can feed secrets without putting them on argv.
enum SecretInput {
    /// How stdin is turned into a secret when it is not a terminal.
    enum PipedInput {
        /// Everything up to end of file, byte for byte (secret-tool's `store`).
        case whole
        /// The first line without its line ending (a password for unlocking, creating, importing).
        case firstLine
        /// Everything up to end of file without one final `\n` or `\r\n` (a password for a new item: `echo`
        /// adds the newline, while a multi-line secret keeps its inner lines).
        case withoutTrailingNewline
    }

    /// Reads one secret.
    /// - Parameters:
    ///   - prompt: shown on stderr when stdin is a terminal, for example `"Password: "`.
    ///   - piped: how to read stdin when it is not a terminal.
    /// - Returns: the secret in secure memory.
    /// - Throws: ``CofferError`` with ``ExitStatus/cancelled`` when the terminal gave end of file before a newline,
    ///   ``ExitStatus/ioError`` when reading failed.
    static func read(prompt: String, piped: PipedInput = .whole) throws -> SecretBytes {
        if Console.isTerminal(STDIN_FILENO) { return try readFromTerminal(prompt: prompt) }
        let all = try readToEnd(STDIN_FILENO)
        switch piped {
        case .whole: return all
        case .firstLine: return try firstLine(of: all)
        case .withoutTrailingNewline: return try withoutTrailingNewline(all)
        }
    }

    /// Reads a new password twice on a terminal and insists they match; from a pipe, reads the first line once.
    /// - Parameters:
    ///   - prompt: the first prompt.
    ///   - confirmation: the second prompt.
    /// - Returns: the password.
    /// - Throws: as ``read(prompt:piped:)``, and ``ExitStatus/badArguments`` when the two entries differ.
    static func readNewPassword(prompt: String, confirmation: String) throws -> SecretBytes {
        guard Console.isTerminal(STDIN_FILENO) else { return try read(prompt: prompt, piped: .firstLine) }
        let first = try readFromTerminal(prompt: prompt)
        let second = try readFromTerminal(prompt: confirmation)
        guard first.constantTimeEquals(second) else {
            throw CofferError(.badArguments, "the passwords do not match")
        }
        return first
    }

    /// Reads several passwords: one prompt each on a terminal; from a pipe, one line each, in order (so a script can
    /// feed an old and a new password as two lines).
    /// - Parameter prompts: one prompt per password.
    /// - Returns: the passwords, as many as prompts.
    /// - Throws: as ``read(prompt:piped:)``, and ``ExitStatus/cancelled`` when stdin has fewer lines.
    static func readPasswords(prompts: [String]) throws -> [SecretBytes] {
        if Console.isTerminal(STDIN_FILENO) { return try prompts.map { try readFromTerminal(prompt: $0) } }
        let all = try readToEnd(STDIN_FILENO)
        let lines = try lines(of: all, count: prompts.count)
        guard lines.count == prompts.count else {
            throw CofferError(.cancelled, "stdin holds \(lines.count) line(s); \(prompts.count) password(s) needed")
        }
        return lines
    }

    /// Prints the warning every secret given on the command line earns.
    /// - Parameter option: the option that carried it, for example `-w`.
    static func warnAboutArgv(_ option: String) {
        Console.warning("a secret given with \(option) on the command line is visible to other processes "
            + "(ps, /proc); leave the value out to be prompted, or pipe it on stdin")
    }

    /// A password given on the command line, with the warning it earns, in secure memory from here on.
    /// - Parameters:
    ///   - text: the option's value.
    ///   - option: the option, for example `-p`.
    static func fromArgv(_ text: String, _ option: String) throws -> SecretBytes {
        warnAboutArgv(option)
        return try SecretBytes(copying: Array(text.utf8))
    }

    /// Reads one line: at a no-echo prompt on a terminal, else the next line of stdin, leaving the rest for later
    /// reads (a prompt agent answers one prompt after another).
    /// - Parameter prompt: shown on stderr.
    /// - Returns: the line without its ending.
    /// - Throws: ``CofferError`` with ``ExitStatus/cancelled`` at end of file, ``ExitStatus/ioError`` when reading
    ///   failed.
    static func readLine(prompt: String) throws -> SecretBytes {
        try readFromTerminal(prompt: prompt)
    }

    // MARK: - Terminal

    private static func readFromTerminal(prompt: String) throws -> SecretBytes {
        // Echo goes off before the prompt appears: whatever is typed after the prompt is never echoed, and the
        // switch (which discards unread input) cannot swallow an answer typed in response to it.
        let echo = EchoGuard(descriptor: STDIN_FILENO)
        Console.write(prompt, to: STDERR_FILENO)
        defer {
            echo.restore()
            Console.write("\n", to: STDERR_FILENO)  // the user's Enter was not echoed
        }
        var buffer = try SecretBuffer()
        var byte: UInt8 = 0
        while true {
            let count = Foundation.read(STDIN_FILENO, &byte, 1)
            if count < 0, errno == EINTR { continue }
            if count < 0 { throw CofferError(.ioError, "reading the terminal failed: \(String(cString: strerror(errno)))") }
            if count == 0 {
                if buffer.count == 0 { throw CofferError(.cancelled, "no secret entered") }
                break
            }
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { break }
            try buffer.append(byte)
        }
        byte = 0
        return try buffer.finish()
    }

    // MARK: - Pipes and files

    /// Reads a descriptor to its end into secure memory.
    static func readToEnd(_ descriptor: Int32) throws -> SecretBytes {
        var buffer = try SecretBuffer()
        let chunk = try SecretBytes(count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count < 0 { throw CofferError(.ioError, "reading stdin failed: \(String(cString: strerror(errno)))") }
            if count == 0 { break }
            try chunk.withUnsafeBytes { try buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
        return try buffer.finish()
    }

    /// The bytes before the first `\n` (and a `\r` before it).
    private static func firstLine(of secret: SecretBytes) throws -> SecretBytes {
        try lines(of: secret, count: 1).first ?? SecretBytes(count: 0)
    }

    /// `secret` without one final `\n` (and a `\r` before it).
    private static func withoutTrailingNewline(_ secret: SecretBytes) throws -> SecretBytes {
        try secret.withUnsafeBytes { bytes throws(CryptoError) in
            var end = bytes.count
            if end > 0, bytes[end - 1] == UInt8(ascii: "\n") {
                end -= 1
                if end > 0, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            }
            return try SecretBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[..<end]))
        }
    }

    /// Up to `count` lines, without their `\n` or `\r\n`; a last line without a newline counts.
    static func lines(of secret: SecretBytes, count: Int) throws -> [SecretBytes] {
        try secret.withUnsafeBytes { bytes throws(CryptoError) in
            var lines: [SecretBytes] = []
            var start = 0
            while lines.count < count, start < bytes.count {
                let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
                var end = newline
                if end > start, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                lines.append(try SecretBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[start..<end])))
                start = newline + 1
            }
            return lines
        }
    }
}

/// A growable buffer in secure memory: it doubles by copying into a fresh `SecretBytes`, so no secret byte ever
/// sits in ordinary heap memory that is freed without being wiped.
private struct SecretBuffer {
    private var storage: SecretBytes
    private(set) var count = 0

    init() throws {
        storage = try SecretBytes(count: 256)
    }

    mutating func append(_ byte: UInt8) throws {
        try withUnsafeBytes(of: byte) { try append(contentsOf: $0) }
    }

    mutating func append(contentsOf bytes: UnsafeRawBufferPointer) throws {
        if count + bytes.count > storage.count {
            var capacity = storage.count
            while capacity < count + bytes.count { capacity *= 2 }
            let grown = try SecretBytes(count: capacity)
            let used = count
            storage.withUnsafeBytes { old in
                grown.withUnsafeMutableBytes { new in
                    new.copyMemory(from: UnsafeRawBufferPointer(rebasing: old[..<used]))
                }
            }
            storage = grown
        }
        let offset = count
        storage.withUnsafeMutableBytes { target in
            UnsafeMutableRawBufferPointer(rebasing: target[offset..<(offset + bytes.count)]).copyMemory(from: bytes)
        }
        count += bytes.count
    }

    /// The bytes appended so far, in a `SecretBytes` of exactly that size.
    func finish() throws -> SecretBytes {
        try storage.withUnsafeBytes { try SecretBytes(copying: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }
}

/// Turns terminal echo off for its lifetime; SIGINT/SIGTERM while it is off restore the terminal before dying, so
/// an interrupted prompt never leaves the shell without echo.
private final class EchoGuard {
    private let descriptor: Int32
    private var saved = termios()
    private var active = false

    init(descriptor: Int32) {
        self.descriptor = descriptor
        guard tcgetattr(descriptor, &saved) == 0 else { return }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        EchoGuard.interrupted.saved = saved
        EchoGuard.interrupted.descriptor = descriptor
        signal(SIGINT, EchoGuard.restoreAndDie)
        signal(SIGTERM, EchoGuard.restoreAndDie)
        active = tcsetattr(descriptor, TCSAFLUSH, &quiet) == 0
    }

    func restore() {
        guard active else { return }
        _ = tcsetattr(descriptor, TCSAFLUSH, &saved)
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        active = false
    }

    /// What a signal handler may read: written before the handler is installed, only read afterwards.
    private struct Interrupted {
        var saved = termios()
        var descriptor: Int32 = STDIN_FILENO
    }
    nonisolated(unsafe) private static var interrupted = Interrupted()

    private static let restoreAndDie: @convention(c) (Int32) -> Void = { signalNumber in
        _ = tcsetattr(EchoGuard.interrupted.descriptor, TCSANOW, &EchoGuard.interrupted.saved)
        signal(signalNumber, SIG_DFL)
        raise(signalNumber)
    }
}
