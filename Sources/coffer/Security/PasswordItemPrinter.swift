// SPDX-License-Identifier: Apache-2.0
// Printing a found password item: security(1)'s attribute listing, or JSON.

import Foundation
import CofferKeychain

/// Shows items the way `security find-generic-password` does, so scripts that grep `"acct"<blob>="…"` keep working.
enum PasswordItemPrinter {
    /// security's attribute list per class: the four-letter key and its display type, in security's order.
    private static let genericLayout: [(String, String)] = [
        ("acct", "blob"), ("cdat", "timedate"), ("crtr", "uint32"), ("cusi", "sint32"), ("desc", "blob"),
        ("gena", "blob"), ("icmt", "blob"), ("invi", "sint32"), ("mdat", "timedate"), ("nega", "sint32"),
        ("prot", "blob"), ("scrp", "sint32"), ("svce", "blob"), ("type", "uint32"),
    ]
    private static let internetLayout: [(String, String)] = [
        ("acct", "blob"), ("atyp", "blob"), ("cdat", "timedate"), ("crtr", "uint32"), ("cusi", "sint32"),
        ("desc", "blob"), ("icmt", "blob"), ("invi", "sint32"), ("mdat", "timedate"), ("nega", "sint32"),
        ("path", "blob"), ("port", "uint32"), ("prot", "blob"), ("ptcl", "uint32"), ("scrp", "sint32"),
        ("sdmn", "blob"), ("srvr", "blob"), ("type", "uint32"),
    ]

    /// security's text: `class:`, then `attributes:` with one line per attribute.
    static func text(_ item: PasswordItem) -> String {
        var lines = ["class: \"\(item.itemClass)\"", "attributes:"]
        let label = item.attributes[kSecAttrLabel as String] as? String
        lines.append("    0x00000007 <blob>=" + quoted(label))
        let layout = item.itemClass == (kSecClassInternetPassword as String) ? internetLayout : genericLayout
        for (key, type) in layout {
            lines.append("    \"\(key)\"<\(type)>=" + value(item.attributes[key], type: type, key: key))
        }
        return lines.joined(separator: "\n")
    }

    /// security's `password: "…"` line (hex for bytes that are not printable text).
    static func passwordLine(_ data: Data) -> String {
        if let text = printable(data) { return "password: \"\(text)\"" }
        return "password: 0x" + data.map { String(format: "%02X", $0) }.joined()
    }

    /// The JSON shape of an item: readable attribute names; the password only when asked for.
    struct JSONItem: Encodable {
        var `class`: String
        var attributes: [String: String]
        var password: String?
        var passwordHex: String?
    }

    static func json(_ item: PasswordItem, includePassword: Bool) -> JSONItem {
        var attributes: [String: String] = [:]
        for (key, name) in jsonNames {
            guard let raw = item.attributes[key] else { continue }
            switch raw {
            case let date as Date: attributes[name] = JSONOutput.date(UInt64(max(0, date.timeIntervalSince1970)))
            case let data as Data: attributes[name] = String(decoding: data, as: UTF8.self)
            case let number as NSNumber where key == "crtr" || key == "type":
                if let code = CommonItemOptions.fourCharacterText(number.int64Value) { attributes[name] = code }
            case let number as NSNumber: attributes[name] = number.stringValue
            default: attributes[name] = "\(raw)"
            }
        }
        var result = JSONItem(class: item.itemClass, attributes: attributes)
        if includePassword, let data = item.data {
            if let text = String(data: data, encoding: .utf8) { result.password = text } else {
                result.passwordHex = data.map { String(format: "%02x", $0) }.joined()
            }
        }
        return result
    }

    private static let jsonNames: [String: String] = [
        "acct": "account", "svce": "service", "labl": "label", "icmt": "comment", "desc": "kind", "gena": "generic",
        "crtr": "creator", "type": "type", "cdat": "created", "mdat": "modified", "agrp": "accessGroup",
        "srvr": "server", "ptcl": "protocol", "port": "port", "path": "path", "sdmn": "securityDomain",
        "atyp": "authenticationType",
    ]

    // MARK: - security's value formats

    private static func value(_ raw: Any?, type: String, key: String) -> String {
        guard let raw else { return "<NULL>" }
        switch (type, raw) {
        case ("timedate", let date as Date):
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyyMMddHHmmss'Z'"
            let text = formatter.string(from: date)
            return "0x" + (Array(text.utf8) + [0]).map { String(format: "%02X", $0) }.joined() + "  \"\(text)\\000\""
        case ("uint32", let number as NSNumber) where key == "port":
            return String(format: "0x%08X", number.uint32Value)
        case ("uint32", let text as String):  // protocol codes come back as text
            return "\"\(text)\""
        case ("uint32", let number as NSNumber):
            return CommonItemOptions.fourCharacterText(number.int64Value).map { "\"\($0)\"" } ?? "<NULL>"
        case ("sint32", let number as NSNumber):
            return number.boolValue ? "0x00000001" : "<NULL>"
        case (_, let text as String):
            return quoted(text)
        case (_, let data as Data):
            return printable(data).map { "\"\($0)\"" } ?? "0x" + data.map { String(format: "%02X", $0) }.joined()
        default:
            return quoted("\(raw)")
        }
    }

    private static func quoted(_ text: String?) -> String {
        guard let text else { return "<NULL>" }
        return "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            + "\""
    }

    /// The data as text when it is UTF-8 without control characters.
    private static func printable(_ data: Data) -> String? {
        guard let text = String(data: data, encoding: .utf8),
              !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { return nil }
        return text
    }
}
