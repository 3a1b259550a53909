// SPDX-License-Identifier: Apache-2.0
// Builds a libdbus message value by value through libdbus's iterators: the path for bodies that carry Unix file
// descriptors, which travel beside the bytes and so cannot go through `dbus_message_demarshal`.

internal import CDBus
import DBusWire

extension MessageEncoder {
    /// Validates and marshals `message` one value at a time.
    ///
    /// Unix file descriptors in the body are duplicated into the libdbus message; the caller keeps its own.
    /// - Parameter keepSerial: copy `message.serial` into the header (tests only: a connection assigns serials).
    /// - Throws: ``TransportError/invalidMessage`` for anything libdbus would reject, or
    ///   ``TransportError/outOfMemory``.
    static func encodeThroughIterators(_ message: Message, keepSerial: Bool) throws(TransportError) -> LibDBusMessage {
        _ = try MessageValidator.validate(message)
        guard let pointer = dbus_message_new(messageType(message.kind)) else { throw .outOfMemory }
        let encoded = LibDBusMessage(adopting: pointer)
        try setHeader(message, on: pointer, keepSerial: keepSerial)
        var iter = DBusMessageIter()
        let appended = withUnsafeMutablePointer(to: &iter) { iter in
            dbus_message_iter_init_append(pointer, iter)
            return message.body.allSatisfy { append($0, to: iter) }
        }
        guard appended else {
            throw TransportError.invalidMessage.with(detail: "libdbus refused the body (out of memory or a bad fd)")
        }
        return encoded
    }

    static func messageType(_ kind: Message.Kind) -> Int32 {
        switch kind {
        case .methodCall: cdbus_message_type_method_call
        case .methodReturn: cdbus_message_type_method_return
        case .error: cdbus_message_type_error
        case .signal: cdbus_message_type_signal
        }
    }

    // MARK: - Header

    private static func setHeader(_ message: Message, on pointer: OpaquePointer,
                                  keepSerial: Bool) throws(TransportError) {
        var ok = true
        if let path = message.path { ok = ok && dbus_message_set_path(pointer, path.rawValue) != 0 }
        if let interface = message.interface { ok = ok && dbus_message_set_interface(pointer, interface.rawValue) != 0 }
        if let member = message.member { ok = ok && dbus_message_set_member(pointer, member.rawValue) != 0 }
        if let name = message.errorName { ok = ok && dbus_message_set_error_name(pointer, name.rawValue) != 0 }
        if let name = message.destination { ok = ok && dbus_message_set_destination(pointer, name.rawValue) != 0 }
        if let name = message.sender { ok = ok && dbus_message_set_sender(pointer, name.rawValue) != 0 }
        if let serial = message.replySerial { ok = ok && dbus_message_set_reply_serial(pointer, serial) != 0 }
        guard ok else { throw .outOfMemory }
        dbus_message_set_no_reply(pointer, message.noReplyExpected ? 1 : 0)
        dbus_message_set_auto_start(pointer, message.noAutoStart ? 0 : 1)
        if keepSerial, message.serial != 0 { dbus_message_set_serial(pointer, message.serial) }
    }

    // MARK: - Body

    /// Appends one validated value; `false` when libdbus fails (out of memory, or an fd it cannot duplicate).
    private static func append(_ value: DBusValue, to iter: UnsafeMutablePointer<DBusMessageIter>) -> Bool {
        switch value {
        case .byte(let v): return appendBasic(v, cdbus_type_byte, iter)
        case .boolean(let v): return appendBasic(dbus_bool_t(v ? 1 : 0), cdbus_type_boolean, iter)
        case .int16(let v): return appendBasic(v, cdbus_type_int16, iter)
        case .uint16(let v): return appendBasic(v, cdbus_type_uint16, iter)
        case .int32(let v): return appendBasic(v, cdbus_type_int32, iter)
        case .uint32(let v): return appendBasic(v, cdbus_type_uint32, iter)
        case .int64(let v): return appendBasic(v, cdbus_type_int64, iter)
        case .uint64(let v): return appendBasic(v, cdbus_type_uint64, iter)
        case .double(let v): return appendBasic(v, cdbus_type_double, iter)
        case .unixFD(let fd): return appendBasic(fd.rawValue, cdbus_type_unix_fd, iter)
        case .string(let text):
            return text.withCString { cdbus_iter_append_string(iter, cdbus_type_string, $0) != 0 }
        case .objectPath(let path):
            return path.rawValue.withCString { cdbus_iter_append_string(iter, cdbus_type_object_path, $0) != 0 }
        case .signature(let signature):
            return signature.rawValue.withCString { cdbus_iter_append_string(iter, cdbus_type_signature, $0) != 0 }
        case .bytes(let bytes):
            return appendFixedArray(bytes, cdbus_type_byte, "y", iter)
        case .array(let element, let values):
            if let appended = appendFastArray(element, values, iter) { return appended }
            return withContainer(cdbus_type_array, element.description, iter) { sub in
                values.allSatisfy { append($0, to: sub) }
            }
        case .dictionary(let key, let valueType, let entries):
            let entrySignature = "{" + key.description + valueType.description + "}"
            return withContainer(cdbus_type_array, entrySignature, iter) { sub in
                entries.allSatisfy { entry in
                    withContainer(cdbus_type_dict_entry, nil, sub) { pair in
                        append(entry.key, to: pair) && append(entry.value, to: pair)
                    }
                }
            }
        case .structure(let fields):
            return withContainer(cdbus_type_struct, nil, iter) { sub in fields.allSatisfy { append($0, to: sub) } }
        case .variant(let inner):
            return withContainer(cdbus_type_variant, inner.type.description, iter) { sub in append(inner, to: sub) }
        }
    }

    private static func appendBasic<T>(_ value: T, _ type: Int32,
                                       _ iter: UnsafeMutablePointer<DBusMessageIter>) -> Bool {
        withUnsafePointer(to: value) { dbus_message_iter_append_basic(iter, type, $0) != 0 }
    }

    /// Opens a container, fills it, and closes it (or abandons it when filling failed).
    private static func withContainer(_ type: Int32, _ signature: String?,
                                      _ iter: UnsafeMutablePointer<DBusMessageIter>,
                                      _ fill: (UnsafeMutablePointer<DBusMessageIter>) -> Bool) -> Bool {
        var sub = DBusMessageIter()
        return withUnsafeMutablePointer(to: &sub) { sub in
            let opened: dbus_bool_t
            if let signature {
                opened = signature.withCString { dbus_message_iter_open_container(iter, type, $0, sub) }
            } else {
                opened = dbus_message_iter_open_container(iter, type, nil, sub)
            }
            guard opened != 0 else { return false }
            guard fill(sub) else {
                dbus_message_iter_abandon_container(iter, sub)
                return false
            }
            return dbus_message_iter_close_container(iter, sub) != 0
        }
    }

    // MARK: - Fixed-size arrays

    /// Appends `aT` for a fixed-size numeric `T` in one copy; `nil` when `element` has no fast path.
    private static func appendFastArray(_ element: DBusType, _ values: [DBusValue],
                                        _ iter: UnsafeMutablePointer<DBusMessageIter>) -> Bool? {
        switch element {
        case .byte: appendFixedArray(values.compactMap(\.byteValue), cdbus_type_byte, "y", iter)
        case .int16: appendFixedArray(values.compactMap(\.int16Value), cdbus_type_int16, "n", iter)
        case .uint16: appendFixedArray(values.compactMap(\.uint16Value), cdbus_type_uint16, "q", iter)
        case .int32: appendFixedArray(values.compactMap(\.int32Value), cdbus_type_int32, "i", iter)
        case .uint32: appendFixedArray(values.compactMap(\.uint32Value), cdbus_type_uint32, "u", iter)
        case .int64: appendFixedArray(values.compactMap(\.int64Value), cdbus_type_int64, "x", iter)
        case .uint64: appendFixedArray(values.compactMap(\.uint64Value), cdbus_type_uint64, "t", iter)
        case .double: appendFixedArray(values.compactMap(\.doubleValue), cdbus_type_double, "d", iter)
        default: nil
        }
    }

    /// The corresponding C function is `dbus_message_iter_append_fixed_array`.
    private static func appendFixedArray<T>(_ elements: [T], _ type: Int32, _ signature: String,
                                            _ iter: UnsafeMutablePointer<DBusMessageIter>) -> Bool {
        withContainer(cdbus_type_array, signature, iter) { sub in
            guard !elements.isEmpty else { return true }
            return elements.withUnsafeBytes {
                cdbus_iter_append_fixed(sub, type, $0.baseAddress, Int32(elements.count)) != 0
            }
        }
    }
}

// MARK: - Fixed-size payloads

extension DBusValue {
    fileprivate var byteValue: UInt8? { if case .byte(let v) = self { v } else { nil } }
    fileprivate var int16Value: Int16? { if case .int16(let v) = self { v } else { nil } }
    fileprivate var uint16Value: UInt16? { if case .uint16(let v) = self { v } else { nil } }
    fileprivate var int32Value: Int32? { if case .int32(let v) = self { v } else { nil } }
    fileprivate var uint32Value: UInt32? { if case .uint32(let v) = self { v } else { nil } }
    fileprivate var int64Value: Int64? { if case .int64(let v) = self { v } else { nil } }
    fileprivate var uint64Value: UInt64? { if case .uint64(let v) = self { v } else { nil } }
    fileprivate var doubleValue: Double? { if case .double(let v) = self { v } else { nil } }
}
