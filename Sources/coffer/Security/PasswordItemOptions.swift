// SPDX-License-Identifier: Apache-2.0
// security(1)'s item attribute flags, shared by the add/find/delete password verbs, and their SecItem keys.

import ArgumentParser
import Foundation
import CofferKeychain
import SecretCrypto

/// The attribute flags every password verb has (`-a -c -C -D -j -l`).
struct CommonItemOptions: ParsableArguments {
    @Option(name: .customShort("a"), help: "The account name.")
    var account: String?
    @Option(name: .customShort("c"), help: "The creator, a four-character code.")
    var creator: String?
    @Option(name: .customShort("C"), help: "The type, a four-character code.")
    var type: String?
    @Option(name: .customShort("D"), help: "The kind (description), for example \"application password\".")
    var kind: String?
    @Option(name: .customShort("j"), help: "A comment.")
    var comment: String?
    @Option(name: .customShort("l"), help: "The label.")
    var label: String?

    /// The SecItem attributes these flags set.
    func attributes() throws -> [String: Any] {
        var attributes: [String: Any] = [:]
        if let account { attributes[kSecAttrAccount as String] = account }
        if let creator { attributes[kSecAttrCreator as String] = try Self.fourCharacterCode(creator, flag: "-c") }
        if let type { attributes[kSecAttrType as String] = try Self.fourCharacterCode(type, flag: "-C") }
        if let kind { attributes[kSecAttrDescription as String] = kind }
        if let comment { attributes[kSecAttrComment as String] = comment }
        if let label { attributes[kSecAttrLabel as String] = label }
        return attributes
    }

    /// A four-character code as the 32-bit number security(1) stores (`'aapl'`, big-endian).
    static func fourCharacterCode(_ text: String, flag: String) throws -> Int64 {
        let bytes = Array(text.utf8)
        guard bytes.count == 4 else {
            throw CofferError.badArguments("\(flag) takes a four-character code, got '\(text)'")
        }
        return bytes.reduce(Int64(0)) { $0 << 8 | Int64($1) }
    }

    /// The inverse of ``fourCharacterCode(_:flag:)`` for display; `nil` for 0.
    static func fourCharacterText(_ number: Int64) -> String? {
        guard number != 0 else { return nil }
        let bytes = (0..<4).reversed().map { UInt8(truncatingIfNeeded: number >> ($0 * 8)) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The flags only generic passwords have (`-s -G`).
struct GenericItemOptions: ParsableArguments {
    @Option(name: .customShort("s"), help: "The service name.")
    var service: String?
    @Option(name: .customShort("G"), help: "The generic attribute.")
    var generic: String?

    func attributes() -> [String: Any] {
        var attributes: [String: Any] = [:]
        if let service { attributes[kSecAttrService as String] = service }
        if let generic { attributes[kSecAttrGeneric as String] = Data(generic.utf8) }
        return attributes
    }
}

/// The flags only internet passwords have (`-s -p -P -r -d -t`).
struct InternetItemOptions: ParsableArguments {
    @Option(name: .customShort("s"), help: "The server name.")
    var server: String?
    @Option(name: .customShort("p"), help: "The path.")
    var path: String?
    @Option(name: .customShort("P"), help: "The port number.")
    var port: Int?
    @Option(name: .customShort("r"), help: "The protocol, a four-character code (\"http\", \"htps\", \"ftp \") or a scheme (https, imaps, …).")
    var `protocol`: String?
    @Option(name: .customShort("d"), help: "The security domain.")
    var securityDomain: String?
    @Option(name: .customShort("t"), help: "The authentication type, a four-character code (\"dflt\", \"ntlm\", \"form\", …).")
    var authenticationType: String?

    func attributes() throws -> [String: Any] {
        var attributes: [String: Any] = [:]
        if let server { attributes[kSecAttrServer as String] = server }
        if let path { attributes[kSecAttrPath as String] = path }
        if let port {
            guard (0...65_535).contains(port) else { throw CofferError.badArguments("-P takes a port number, got \(port)") }
            attributes[kSecAttrPort as String] = port
        }
        if let value = `protocol` { attributes[kSecAttrProtocol as String] = try Self.protocolCode(value) }
        if let securityDomain { attributes[kSecAttrSecurityDomain as String] = securityDomain }
        if let authenticationType {
            attributes[kSecAttrAuthenticationType as String] = try Self.padded(authenticationType, flag: "-t")
        }
        return attributes
    }

    /// Scheme names people type, mapped to the four-character codes whose scheme differs from the code.
    private static let schemes = [
        "https": "htps", "imaps": "imps", "pop3s": "pops", "ldaps": "ldps", "nntps": "ntps", "telnet": "teln",
        "telnets": "tels", "socks": "sox ", "http-proxy": "htpx", "https-proxy": "htsx", "ftp-proxy": "ftpx",
    ]

    static func protocolCode(_ text: String) throws -> String {
        try schemes[text.lowercased()] ?? padded(text, flag: "-r")
    }

    /// security(1) pads codes shorter than four characters with spaces (`ftp` is `"ftp "`).
    private static func padded(_ text: String, flag: String) throws -> String {
        guard (1...4).contains(text.utf8.count) else {
            throw CofferError.badArguments("\(flag) takes a four-character code, got '\(text)'")
        }
        return text + String(repeating: " ", count: 4 - text.utf8.count)
    }
}

/// The add verbs' -U, and security's access-control options, which have no meaning over the Secret Service.
struct AddItemOptions: ParsableArguments {
    @Flag(name: .customShort("U"), help: "Update the item if it already exists.")
    var update = false
    @Flag(name: .customShort("A"), help: "Accepted and ignored.")
    var anyApplication = false
    @Option(name: .customShort("T"), help: ArgumentHelp("Accepted and ignored.", valueName: "app"))
    var trustedApplications: [String] = []
}

/// How the add verbs get the secret: `-w PASSWORD` (warned), `-X HEX`, or a prompt/stdin.
struct PasswordValueOptions: ParsableArguments {
    @Option(name: .customShort("w"), help: ArgumentHelp(
        "The password. Leave it out (or give -w last) to be prompted without echo or to pipe it on stdin; "
            + "a value here is visible to other processes.", valueName: "password"))
    var password: String?
    @Option(name: .customShort("X"), help: ArgumentHelp("The password as hexadecimal bytes.", valueName: "hex"))
    var hexPassword: String?
    /// Set by the root command when `-w` is the last argument (security's "prompt me" form).
    @Flag(name: .customLong("prompt-for-password"), help: .hidden)
    var promptForPassword = false
    @Flag(name: .customLong("allow-empty-password"), help: "Store an empty password instead of refusing it.")
    var allowsEmptyPassword = false

    /// The secret, from wherever the flags say: at a terminal asked twice (as security does), from a pipe without
    /// its trailing line ending (as every other password input of coffer), so `echo pw |` stores `pw`.
    /// - Throws: ``CofferError`` with ``ExitStatus/cancelled`` (128) for an empty password unless
    ///   `--allow-empty-password` was given, ``ExitStatus/badArguments`` for retyped passwords that differ.
    func read(prompt: String, legacy: String? = nil) throws -> Data {
        let data: Data
        if let hexPassword {
            SecretInput.warnAboutArgv("-X")
            data = try Self.bytes(fromHex: hexPassword)
        } else if let password = password ?? legacy {
            SecretInput.warnAboutArgv(self.password != nil ? "-w" : "-p")
            data = Data(password.utf8)
        } else {
            let secret = Console.isTerminal(STDIN_FILENO)
                ? try SecretInput.readNewPassword(prompt: prompt, confirmation: "retype password for new item: ")
                : try SecretInput.read(prompt: prompt, piped: .withoutTrailingNewline)
            // The SecItem API takes Data: the copy lives as long as the call, as it would on macOS.
            data = secret.withUnsafeBytes { Data($0) }
        }
        guard !data.isEmpty || allowsEmptyPassword else {
            throw CofferError(.cancelled, "no password given; --allow-empty-password stores an empty one")
        }
        return data
    }

    static func bytes(fromHex text: String) throws -> Data {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { throw CofferError.badArguments("-X needs an even number of hex digits") }
        var data = Data(capacity: digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else {
                throw CofferError.badArguments("-X takes hexadecimal digits only")
            }
            data.append(high << 4 | low)
            index += 2
        }
        return data
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// How the find verbs show what they found (`-g`, `-w`) and where new items go (`--access-group`).
struct FindOutputOptions: ParsableArguments {
    @Flag(name: .customShort("g"), help: "Show the password too (on stderr, as security does).")
    var showPassword = false
    @Flag(name: .customShort("w"), help: "Print only the password, on stdout.")
    var passwordOnly = false
    @Flag(name: .customLong("include-foreign"), help: ArgumentHelp(
        "When no Keychain item matches, also find items other programs stored (git's credential helper, "
            + "secret-tool, python keyring) by service and account, or server, account and protocol."))
    var includeForeign = false
}

struct AccessGroupOption: ParsableArguments {
    @Option(name: .customLong("access-group"), help: ArgumentHelp(
        "The Keychain access group new items go to (default: $COFFER_ACCESS_GROUP, else 'coffer'). Searches cover "
            + "every group.", valueName: "group"))
    var accessGroup: String?
}
