// SPDX-License-Identifier: Apache-2.0
// Reads the login password for --unlock from standard input straight into secure memory.

#if canImport(Glibc)
import Glibc
#endif
import SecretCrypto

enum LoginPassword {
    static let maximumBytes = 4096
    /// How often a terminal user may mistype the confirmation of a new password.
    static let confirmationAttempts = 3

    /// Why no password came back.
    enum ReadError: Error, CustomStringConvertible {
        case noSecureMemory(CryptoError)
        case notConfirmed

        var description: String {
            switch self {
            case .noSecureMemory(let error): "\(error)"
            case .notConfirmed: "the two passwords typed differ"
            }
        }
    }

    /// Reads the login password. On a terminal a password that will create the `login` collection (`creating`) is
    /// asked twice, since a typo would otherwise become the collection's password with nothing to compare it to.
    /// - Throws: ``ReadError``.
    static func read(creating: Bool) throws(ReadError) -> SecretBytes {
        do {
            guard creating, isatty(STDIN_FILENO) == 1 else { return try readFromStandardInput(prompt: "Login password: ") }
            for _ in 0..<confirmationAttempts {
                let first = try readFromStandardInput(prompt: "New login password: ")
                let second = try readFromStandardInput(prompt: "Repeat the new login password: ")
                defer { second.wipe() }
                if first.constantTimeEquals(second) { return first }
                first.wipe()
                say("The passwords differ; try again.\n")
            }
        } catch {
            throw .noSecureMemory(error)
        }
        throw .notConfirmed
    }

    /// Reads standard input to its end (a terminal gets `prompt` and no echo) and drops one trailing newline, so
    /// `echo password | cofferd --unlock` and typing the password both work. The bytes never leave secure memory.
    /// - Throws: ``CryptoError/secureMemoryExhausted`` when there is no secure memory for it.
    static func readFromStandardInput(prompt: String) throws(CryptoError) -> SecretBytes {
        let terminal = isatty(STDIN_FILENO) == 1
        var saved = termios()
        if terminal {
            say(prompt)
            tcgetattr(STDIN_FILENO, &saved)
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSANOW, &quiet)
        }
        defer {
            if terminal {
                tcsetattr(STDIN_FILENO, TCSANOW, &saved)
                say("\n")
            }
        }
        let buffer = try SecretBytes(count: maximumBytes)
        var length = 0
        buffer.withUnsafeMutableBytes { raw in
            while length < raw.count {
                let count = Glibc.read(STDIN_FILENO, raw.baseAddress! + length, raw.count - length)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                length += count
                // On a terminal the line ends the password.
                if terminal, raw[length - 1] == UInt8(ascii: "\n") { break }
            }
            if length > 0, raw[length - 1] == UInt8(ascii: "\n") { length -= 1 }
        }
        let password = try SecretBytes(count: length)
        password.withUnsafeMutableBytes { out in
            buffer.withUnsafeBytes { out.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
        }
        return password
    }

    private static func say(_ text: String) {
        _ = text.withCString { write(STDERR_FILENO, $0, strlen($0)) }
    }
}
