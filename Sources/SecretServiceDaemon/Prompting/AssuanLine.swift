// SPDX-License-Identifier: Apache-2.0
// One response line from an Assuan server, parsed from raw bytes with data lines decoded into secure memory.

import SecretCrypto

/// A line an Assuan server sends (the Assuan protocol, "Server responses").
enum AssuanLine: Sendable {
    /// `OK [text]`: the command succeeded.
    case ok(String)
    /// `ERR code [description]`: the command failed; `code` is a libgpg-error code.
    case err(code: UInt32, description: String)
    /// `D data`: percent-decoded bytes, straight into secure memory because they may be a password.
    case data(SecretBytes)
    /// `S keyword [arguments]`: a status message.
    case status(keyword: String, arguments: String)
    /// `INQUIRE keyword [parameters]`: the server asks us for data.
    case inquire(keyword: String, parameters: String)
    /// `# text`: a comment; also anything we do not recognise, which the protocol says to ignore.
    case comment

    // MARK: - Parsing

    /// Parses one line without its trailing LF (a CR before it is tolerated).
    /// - Parameter raw: The line's bytes. They are not copied into ordinary memory except for non-data lines.
    /// - Throws: ``CryptoError/secureMemoryExhausted`` when a data line finds no secure memory.
    init(parsing raw: UnsafeRawBufferPointer) throws(CryptoError) {
        var line = raw
        if line.last == UInt8(ascii: "\r") { line = UnsafeRawBufferPointer(rebasing: line.dropLast()) }
        let (verb, rest) = Self.split(line)
        switch verb {
        case "OK": self = .ok(Self.decodedText(rest))
        case "ERR":
            let (code, description) = Self.split(rest)
            self = .err(code: UInt32(code) ?? 0, description: Self.decodedText(description))
        case "D": self = .data(try Self.decodedSecret(rest))
        case "S":
            let (keyword, arguments) = Self.split(rest)
            self = .status(keyword: keyword, arguments: Self.decodedText(arguments))
        case "INQUIRE":
            let (keyword, parameters) = Self.split(rest)
            self = .inquire(keyword: keyword, parameters: Self.decodedText(parameters))
        default: self = .comment
        }
    }

    /// Splits at the first space: the word before it as a `String`, the bytes after it (possibly empty).
    private static func split(_ bytes: UnsafeRawBufferPointer) -> (String, UnsafeRawBufferPointer) {
        guard let space = bytes.firstIndex(of: UInt8(ascii: " ")) else {
            return (String(decoding: bytes, as: UTF8.self), UnsafeRawBufferPointer(start: nil, count: 0))
        }
        let word = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<space]), as: UTF8.self)
        return (word, UnsafeRawBufferPointer(rebasing: bytes[(space + 1)...]))
    }

    // MARK: - Percent decoding

    /// `%XX` decoding of non-secret text (status and error descriptions).
    private static func decodedText(_ bytes: UnsafeRawBufferPointer) -> String {
        var decoded = [UInt8](repeating: 0, count: decodedCount(bytes))
        decoded.withUnsafeMutableBytes { decode(bytes, into: $0) }
        return String(decoding: decoded, as: UTF8.self)
    }

    /// `%XX` decoding of a data line straight into secure memory, with no ordinary intermediate buffer.
    private static func decodedSecret(_ bytes: UnsafeRawBufferPointer) throws(CryptoError) -> SecretBytes {
        let secret = try SecretBytes(count: decodedCount(bytes))
        secret.withUnsafeMutableBytes { decode(bytes, into: $0) }
        return secret
    }

    /// The length after decoding. A `%` not followed by two hex digits is kept literally: lenient, like libassuan.
    static func decodedCount(_ bytes: UnsafeRawBufferPointer) -> Int {
        var count = 0, index = 0
        while index < bytes.count {
            index += escapeValue(bytes, at: index) == nil ? 1 : 3
            count += 1
        }
        return count
    }

    /// Decodes `bytes` into `target`, which must hold exactly ``decodedCount(_:)`` bytes.
    static func decode(_ bytes: UnsafeRawBufferPointer, into target: UnsafeMutableRawBufferPointer) {
        var index = 0, out = 0
        while index < bytes.count {
            if let value = escapeValue(bytes, at: index) {
                target[out] = value
                index += 3
            } else {
                target[out] = bytes[index]
                index += 1
            }
            out += 1
        }
    }

    /// The byte a `%XX` escape at `index` stands for, or `nil` when there is no valid escape there.
    private static func escapeValue(_ bytes: UnsafeRawBufferPointer, at index: Int) -> UInt8? {
        guard bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
              let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
        else { return nil }
        return high << 4 | low
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
