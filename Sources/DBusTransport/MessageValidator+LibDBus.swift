// SPDX-License-Identifier: Apache-2.0
// Checks a Message against every rule libdbus would otherwise enforce by aborting the process.

internal import CDBus
import DBusWire

/// Validates messages before marshalling.
///
/// libdbus treats invalid arguments (a bad path, a NUL inside a string, a container signature over the limits) as
/// programming errors and aborts. Messages may carry values from peers or `unchecked` names, so the transport
/// checks everything first and throws ``TransportError/invalidMessage`` instead.
enum MessageValidator {
    /// What the validator learned while walking the body.
    struct Summary {
        /// How many Unix file descriptors the body carries.
        var unixFDCount = 0
    }

    /// The deepest value nesting libdbus accepts in a body (32 arrays plus 32 structs, variants included).
    static let maximumDepth = 64

    /// The most file descriptors one message can carry: Linux passes at most 253 (SCM_MAX_FD) per sendmsg.
    static let maximumUnixFDs = 253

    /// Validates the header fields and the body of `message`.
    /// - Throws: ``TransportError/invalidMessage`` naming the first problem.
    static func validate(_ message: Message) throws(TransportError) -> Summary {
        try validateHeader(message)
        return try validate(body: message.body)
    }

    /// Validates a message body.
    static func validate(body: [DBusValue]) throws(TransportError) -> Summary {
        let signature = body.map(\.type.description).joined()
        guard isValidSignature(signature) else { throw invalid("the body signature \(signature) is invalid") }
        var summary = Summary()
        for value in body { try check(value, depth: 0, summary: &summary) }
        // More than the kernel passes in one message makes sendmsg fail, and libdbus then drops the connection.
        guard summary.unixFDCount <= maximumUnixFDs else {
            throw invalid("\(summary.unixFDCount) file descriptors; at most \(maximumUnixFDs) fit in one message")
        }
        return summary
    }

    // MARK: - Header

    /// Validates the header fields of `message`.
    static func validateHeader(_ message: Message) throws(TransportError) {
        switch message.kind {
        case .methodCall:
            guard message.path != nil, message.member != nil else {
                throw invalid("a method call needs a path and a member")
            }
        case .signal:
            guard message.path != nil, message.interface != nil, message.member != nil else {
                throw invalid("a signal needs a path, an interface and a member")
            }
        case .methodReturn:
            guard message.replySerial != nil else { throw invalid("a method return needs a reply serial") }
        case .error:
            guard message.replySerial != nil, message.errorName != nil else {
                throw invalid("an error needs a reply serial and an error name")
            }
        }
        if message.replySerial == 0 { throw invalid("the reply serial must not be 0") }
        if let path = message.path {
            guard check(path.rawValue, dbus_validate_path) else { throw invalid("invalid object path \(path)") }
            // The bus treats every path and interface that merely starts with the Local name as reserved, and drops
            // the connection that sends one, so the check is on the prefix.
            guard !path.rawValue.hasPrefix("/org/freedesktop/DBus/Local") else {
                throw invalid("the Local path is reserved")
            }
        }
        if let interface = message.interface {
            guard check(interface.rawValue, dbus_validate_interface) else {
                throw invalid("invalid interface \(interface)")
            }
            guard !interface.rawValue.hasPrefix("org.freedesktop.DBus.Local") else {
                throw invalid("the Local interface is reserved")
            }
        }
        if let member = message.member, !check(member.rawValue, dbus_validate_member) {
            throw invalid("invalid member name \(member)")
        }
        if let name = message.errorName, !check(name.rawValue, dbus_validate_error_name) {
            throw invalid("invalid error name \(name)")
        }
        if let name = message.destination, !check(name.rawValue, dbus_validate_bus_name) {
            throw invalid("invalid destination \(name)")
        }
        if let name = message.sender, !check(name.rawValue, dbus_validate_bus_name) {
            throw invalid("invalid sender \(name)")
        }
    }

    // MARK: - Body

    private static func check(_ value: DBusValue, depth: Int, summary: inout Summary) throws(TransportError) {
        switch value {
        case .byte, .boolean, .int16, .uint16, .int32, .uint32, .int64, .uint64, .double:
            return
        case .string(let text):
            // One pass for both questions: strings are most of what a service sends.
            var isASCII = true
            for byte in text.utf8 {
                if byte == 0 { throw invalid("a string contains NUL") }
                if byte >= 0x80 { isASCII = false }
            }
            if !isASCII, !check(text, dbus_validate_utf8) {
                throw invalid("a string is not UTF-8 libdbus accepts")
            }
        case .objectPath(let path):
            guard check(path.rawValue, dbus_validate_path) else { throw invalid("invalid object path \(path)") }
        case .signature(let signature):
            guard !signature.rawValue.utf8.contains(0), isValidSignature(signature.rawValue) else {
                throw invalid("invalid signature value \(signature)")
            }
        case .unixFD(let fd):
            guard fd.rawValue >= 0 else { throw invalid("negative file descriptor") }
            summary.unixFDCount += 1
        case .bytes(let bytes):
            guard depth < maximumDepth else { throw invalid("values nest too deeply") }
            guard bytes.count <= Int(cdbus_maximum_array_length) else { throw invalid("byte array too long") }
        case .array(let element, let values):
            guard depth < maximumDepth else { throw invalid("values nest too deeply") }
            for item in values {
                guard item.hasType(element) else {
                    throw invalid("array element of type \(item.type), expected \(element)")
                }
                try check(item, depth: depth + 1, summary: &summary)
            }
        case .dictionary(let key, let valueType, let entries):
            guard depth + 1 < maximumDepth else { throw invalid("values nest too deeply") }
            guard key.isBasic else { throw invalid("dictionary key type \(key) is not basic") }
            for entry in entries {
                guard entry.key.hasType(key), entry.value.hasType(valueType) else {
                    throw invalid("dictionary entry does not match a{\(key)\(valueType)}")
                }
                try check(entry.key, depth: depth + 2, summary: &summary)
                try check(entry.value, depth: depth + 2, summary: &summary)
            }
        case .structure(let fields):
            guard depth < maximumDepth else { throw invalid("values nest too deeply") }
            guard !fields.isEmpty else { throw invalid("empty structure") }
            for field in fields { try check(field, depth: depth + 1, summary: &summary) }
        case .variant(let inner):
            guard depth < maximumDepth else { throw invalid("values nest too deeply") }
            let type = inner.type
            guard type.isPlainlyValid || isValidSingleSignature(type.description) else {
                throw invalid("variant content type \(type) is invalid")
            }
            try check(inner, depth: depth + 1, summary: &summary)
        }
    }

    // MARK: - libdbus syntax checks

    private static func check(
        _ text: String, _ validator: (UnsafePointer<CChar>?, UnsafeMutablePointer<cdbus_error>?) -> dbus_bool_t
    ) -> Bool {
        text.withCString { validator($0, nil) != 0 }
    }

    /// The corresponding C function is `dbus_signature_validate`.
    static func isValidSignature(_ text: String) -> Bool {
        text.withCString { dbus_signature_validate($0, nil) != 0 }
    }

    /// The corresponding C function is `dbus_signature_validate_single`.
    static func isValidSingleSignature(_ text: String) -> Bool {
        text.withCString { dbus_signature_validate_single($0, nil) != 0 }
    }

    private static func invalid(_ detail: String) -> TransportError {
        TransportError.invalidMessage.with(detail: detail)
    }
}
