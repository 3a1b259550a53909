// SPDX-License-Identifier: Apache-2.0
// Reads the login password for --unlock from standard input straight into secure memory.

#if canImport(Glibc)
import Glibc
#endif
import SecretCrypto

enum LoginPassword {
    static let maximumBytes = 4096

    /// Reads standard input to its end (a terminal gets a prompt and no echo) and drops one trailing newline, so
    /// `echo password | cofferd --unlock` and typing the password both work. The bytes never leave secure memory.
    /// - Throws: ``CryptoError/secureMemoryExhausted`` when there is no secure memory for it.
    static func readFromStandardInput() throws(CryptoError) -> SecretBytes {
        let terminal = isatty(STDIN_FILENO) == 1
        var saved = termios()
        if terminal {
            let prompt = "Login password: "
            _ = prompt.withCString { write(STDERR_FILENO, $0, strlen($0)) }
            tcgetattr(STDIN_FILENO, &saved)
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(STDIN_FILENO, TCSANOW, &quiet)
        }
        defer {
            if terminal {
                tcsetattr(STDIN_FILENO, TCSANOW, &saved)
                _ = write(STDERR_FILENO, "\n", 1)
            }
        }
        let buffer = try SecretBytes(count: maximumBytes)
        var length = 0
        buffer.withUnsafeMutableBytes { raw in
            while length < raw.count {
                let count = read(STDIN_FILENO, raw.baseAddress! + length, raw.count - length)
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
}
