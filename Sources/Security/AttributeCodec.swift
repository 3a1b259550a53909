// SPDX-License-Identifier: Apache-2.0
// Encodes Apple attribute values as Secret Service attribute strings and decodes them back (mapping §6.1–6.3).

import Foundation

/// The value encodings of mapping §6.1.
enum AttributeCodec {
    /// Encodes `value` for storage and for exact matching.
    /// - Returns: the attribute text, and for Data blobs the `keychain:types` marker: `d` (stored as UTF-8
    ///   text) or `b` (stored as base64).
    /// - Throws: `errSecParam` for a value of the wrong type or one D-Bus cannot carry; `errSecUnimplemented`
    ///   for accessibility values that cannot be honoured.
    static func encode(_ value: KeychainValue, as spec: AttributeSpec) throws(KeychainFailure)
        -> (text: String, marker: Character?) {
        switch spec.kind {
        case .text, .accessGroup, .label:
            guard case .string(let text) = value else { throw KeychainFailure(errSecParam) }
            return (try checked(text), nil)
        case .blob:
            switch value {
            case .string(let text):
                return (try checked(text), nil)
            case .data(let data):
                if let text = String(data: data, encoding: .utf8), !text.utf8.contains(0) { return (text, "d") }
                return (data.base64EncodedString(), "b")
            default:
                throw KeychainFailure(errSecParam)
            }
        case .number:
            switch value {
            case .integer(let number): return (String(number), nil)
            case .double(let number) where number.rounded() == number && abs(number) < 1e15:
                return (String(Int64(number)), nil)
            case .string(let text) where Int64(text) != nil: return (String(Int64(text)!), nil)  // Apple converts
            default: throw KeychainFailure(errSecParam)
            }
        case .hexData:
            guard case .data(let data) = value else { throw KeychainFailure(errSecParam) }
            return (hexEncoded(data), nil)
        case .flag, .synchronizable:
            guard let flag = value.booleanValue else { throw KeychainFailure(errSecParam) }
            return (flag ? "true" : "false", nil)
        case .accessibility:
            guard case .string(let code) = value else { throw KeychainFailure(errSecParam) }
            if code == "akpu" { throw KeychainFailure(errSecUnimplemented) }  // needs a passcode we cannot check
            guard accessibilityValues.contains(code) else { throw KeychainFailure(errSecParam) }
            return (code, nil)
        case .protocolCode:
            guard case .string(let code) = value else { throw KeychainFailure(errSecParam) }
            return (try checked(protocolNames[code] ?? code), nil)
        case .authenticationType:
            guard case .string(let code) = value else { throw KeychainFailure(errSecParam) }
            return (try checked(authenticationNames[code] ?? code), nil)
        case .date:
            guard case .date = value else { throw KeychainFailure(errSecParam) }
            throw KeychainFailure(errSecReadOnlyAttr)
        case .accessControl:
            throw KeychainFailure(errSecUnimplemented)
        }
    }

    /// Decodes a stored attribute back into Apple's type.
    /// - Parameters:
    ///   - text: the stored string.
    ///   - spec: the attribute.
    ///   - marker: its `keychain:types` entry, if any.
    static func decode(_ text: String, as spec: AttributeSpec, marker: Character?) -> KeychainValue {
        switch spec.kind {
        case .blob:
            switch marker {
            case "d": return .data(Data(text.utf8))
            case "b": return Data(base64Encoded: text).map(KeychainValue.data) ?? .string(text)
            default: return .string(text)
            }
        case .number: return Int64(text).map(KeychainValue.integer) ?? .integer(0)
        case .hexData: return .data(hexDecoded(text))
        case .flag, .synchronizable: return .bool(text == "true")
        case .protocolCode: return .string(protocolCodes[text] ?? text)
        case .authenticationType: return .string(authenticationCodes[text] ?? text)
        default: return .string(text)
        }
    }

    /// Parses `keychain:types` (`acct=d,gena=b`).
    static func parseTypes(_ text: String?) -> [String: Character] {
        var markers: [String: Character] = [:]
        for entry in (text ?? "").split(separator: ",") {
            let parts = entry.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let marker = parts[1].first { markers[String(parts[0])] = marker }
        }
        return markers
    }

    /// Formats `keychain:types`, sorted so equal maps give equal strings.
    static func formatTypes(_ markers: [String: Character]) -> String {
        markers.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
    }

    /// Lowercase hex text of `data`.
    static func hexEncoded(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

    /// The bytes of lowercase or uppercase hex text (an odd last digit or a non-hex pair is dropped).
    static func hexDecoded(_ text: String) -> Data {
        var bytes = Data()
        var digits = text.utf8.makeIterator()
        while let high = digits.next(), let low = digits.next() {
            guard let byte = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { continue }
            bytes.append(byte)
        }
        return bytes
    }

    /// D-Bus strings cannot hold NUL.
    private static func checked(_ text: String) throws(KeychainFailure) -> String {
        guard !text.utf8.contains(0) else { throw KeychainFailure(errSecParam) }
        return text
    }

    // MARK: - Value tables

    static let accessibilityValues: Set<String> = ["ak", "ck", "dk", "aku", "cku", "dku", "akpu"]

    /// `kSecAttrProtocol` codes → the lowercase URL schemes libsecret and git use.
    static let protocolNames: [String: String] = [
        "ftp ": "ftp", "ftpa": "ftp-account", "http": "http", "irc ": "irc", "nntp": "nntp", "pop3": "pop3",
        "smtp": "smtp", "sox ": "socks", "imap": "imap", "ldap": "ldap", "atlk": "appletalk", "afp ": "afp",
        "teln": "telnet", "ssh ": "ssh", "ftps": "ftps", "htps": "https", "htpx": "http-proxy",
        "htsx": "https-proxy", "ftpx": "ftp-proxy", "smb ": "smb", "rtsp": "rtsp", "rtsx": "rtsp-proxy",
        "daap": "daap", "eppc": "eppc", "ipp ": "ipp", "ntps": "nntps", "ldps": "ldaps", "tels": "telnets",
        "imps": "imaps", "ircs": "ircs", "pops": "pop3s",
    ]
    static let protocolCodes = Dictionary(uniqueKeysWithValues: protocolNames.map { ($1, $0) })

    /// `kSecAttrAuthenticationType` codes → libsecret's network-password names.
    static let authenticationNames: [String: String] = [
        "ntlm": "ntlm", "msna": "msn", "dpaa": "dpa", "rpaa": "rpa", "http": "basic", "httd": "digest",
        "form": "form", "dflt": "default",
    ]
    static let authenticationCodes = Dictionary(uniqueKeysWithValues: authenticationNames.map { ($1, $0) })
}
