// SPDX-License-Identifier: Apache-2.0
// Reads a libdbus message value by value through libdbus's iterators: the path for messages that carry Unix file
// descriptors, each of which libdbus hands out as a fresh duplicate.

internal import CDBus
import DBusWire
import Glibc

extension MessageDecoder {
    /// The body of `pointer`, each `h` value a fresh duplicate of the descriptor that the caller owns and must
    /// close; `nil` when it cannot be read.
    static func bodyThroughIterators(of pointer: OpaquePointer) -> [DBusValue]? {
        guard let types = Signature(string(dbus_message_get_signature(pointer)) ?? "")?.types else { return nil }
        guard !types.isEmpty else { return [] }
        var iter = DBusMessageIter()
        return withUnsafeMutablePointer(to: &iter) { iter -> [DBusValue]? in
            guard dbus_message_iter_init(pointer, iter) != 0 else { return nil }
            var values: [DBusValue] = []
            values.reserveCapacity(types.count)
            for (index, type) in types.enumerated() {
                if index > 0 { guard dbus_message_iter_next(iter) != 0 else { return nil } }
                guard let value = read(type, from: iter) else { return nil }
                values.append(value)
            }
            return values
        }
    }

    /// The type code libdbus reports for a value of `type`.
    private static func code(of type: DBusType) -> Int32 {
        switch type {
        case .byte: cdbus_type_byte
        case .boolean: cdbus_type_boolean
        case .int16: cdbus_type_int16
        case .uint16: cdbus_type_uint16
        case .int32: cdbus_type_int32
        case .uint32: cdbus_type_uint32
        case .int64: cdbus_type_int64
        case .uint64: cdbus_type_uint64
        case .double: cdbus_type_double
        case .string: cdbus_type_string
        case .objectPath: cdbus_type_object_path
        case .signature: cdbus_type_signature
        case .unixFD: cdbus_type_unix_fd
        case .variant: cdbus_type_variant
        case .array, .dictionary: cdbus_type_array
        case .structure: cdbus_type_struct
        }
    }

    private static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    /// Reads the value under the iterator, which must have type `type`.
    private static func read(_ type: DBusType, from iter: UnsafeMutablePointer<DBusMessageIter>) -> DBusValue? {
        guard dbus_message_iter_get_arg_type(iter) == code(of: type) else { return nil }
        switch type {
        case .byte: return .byte(cdbus_iter_get_basic(iter).byt)
        case .boolean: return .boolean(cdbus_iter_get_basic(iter).bool_val != 0)
        case .int16: return .int16(cdbus_iter_get_basic(iter).i16)
        case .uint16: return .uint16(cdbus_iter_get_basic(iter).u16)
        case .int32: return .int32(cdbus_iter_get_basic(iter).i32)
        case .uint32: return .uint32(cdbus_iter_get_basic(iter).u32)
        case .int64: return .int64(Int64(cdbus_iter_get_basic(iter).i64))
        case .uint64: return .uint64(UInt64(cdbus_iter_get_basic(iter).u64))
        case .double: return .double(cdbus_iter_get_basic(iter).dbl)
        case .unixFD: return .unixFD(UnixFileDescriptor(rawValue: cdbus_iter_get_basic(iter).fd))
        case .string: return string(cdbus_iter_get_basic(iter).str).map(DBusValue.string)
        case .objectPath:
            return string(cdbus_iter_get_basic(iter).str).map { .objectPath(ObjectPath(unchecked: $0)) }
        case .signature:
            return string(cdbus_iter_get_basic(iter).str).flatMap { Signature($0) }.map(DBusValue.signature)
        case .array(let element):
            return recurse(iter) { sub in readArray(element, from: sub) }
        case .dictionary(let key, let value):
            return recurse(iter) { sub in readDictionary(key, value, from: sub) }
        case .structure(let fields):
            return recurse(iter) { sub -> DBusValue? in
                var values: [DBusValue] = []
                values.reserveCapacity(fields.count)
                for (index, field) in fields.enumerated() {
                    if index > 0 { guard dbus_message_iter_next(sub) != 0 else { return nil } }
                    guard let value = read(field, from: sub) else { return nil }
                    values.append(value)
                }
                return .structure(values)
            }
        case .variant:
            return recurse(iter) { sub -> DBusValue? in
                guard let raw = dbus_message_iter_get_signature(sub) else { return nil }
                let text = String(cString: raw)
                dbus_free(raw)
                guard let types = Signature(text)?.types, types.count == 1, let value = read(types[0], from: sub)
                else { return nil }
                return .variant(value)
            }
        }
    }

    private static func recurse(_ iter: UnsafeMutablePointer<DBusMessageIter>,
                                _ body: (UnsafeMutablePointer<DBusMessageIter>) -> DBusValue?) -> DBusValue? {
        var sub = DBusMessageIter()
        return withUnsafeMutablePointer(to: &sub) { sub in
            dbus_message_iter_recurse(iter, sub)
            return body(sub)
        }
    }

    private static func readArray(_ element: DBusType, from sub: UnsafeMutablePointer<DBusMessageIter>) -> DBusValue? {
        switch element {
        case .byte: return .bytes(readFixed(UInt8.self, sub))
        case .int16: return .array(element, readFixed(Int16.self, sub).map(DBusValue.int16))
        case .uint16: return .array(element, readFixed(UInt16.self, sub).map(DBusValue.uint16))
        case .int32: return .array(element, readFixed(Int32.self, sub).map(DBusValue.int32))
        case .uint32: return .array(element, readFixed(UInt32.self, sub).map(DBusValue.uint32))
        case .int64: return .array(element, readFixed(Int64.self, sub).map(DBusValue.int64))
        case .uint64: return .array(element, readFixed(UInt64.self, sub).map(DBusValue.uint64))
        case .double: return .array(element, readFixed(Double.self, sub).map(DBusValue.double))
        default:
            var values: [DBusValue] = []
            while dbus_message_iter_get_arg_type(sub) != cdbus_type_invalid {
                guard let value = read(element, from: sub) else { return nil }
                values.append(value)
                dbus_message_iter_next(sub)
            }
            return .array(element, values)
        }
    }

    private static func readDictionary(_ key: DBusType, _ value: DBusType,
                                       from sub: UnsafeMutablePointer<DBusMessageIter>) -> DBusValue? {
        var entries: [DictEntry] = []
        // Most maps are property or attribute maps of a few entries: one allocation instead of growing step by step.
        entries.reserveCapacity(8)
        while dbus_message_iter_get_arg_type(sub) == cdbus_type_dict_entry {
            var pair = DBusMessageIter()
            let entry = withUnsafeMutablePointer(to: &pair) { pair -> DictEntry? in
                dbus_message_iter_recurse(sub, pair)
                guard let k = read(key, from: pair), dbus_message_iter_next(pair) != 0,
                      let v = read(value, from: pair) else { return nil }
                return DictEntry(k, v)
            }
            guard let entry else { return nil }
            entries.append(entry)
            dbus_message_iter_next(sub)
        }
        guard dbus_message_iter_get_arg_type(sub) == cdbus_type_invalid else { return nil }
        return .dictionary(key: key, value: value, entries)
    }

    /// Copies a whole fixed-size array out of the message in one go.
    /// The corresponding C function is `dbus_message_iter_get_fixed_array`.
    private static func readFixed<T>(_: T.Type, _ sub: UnsafeMutablePointer<DBusMessageIter>) -> [T] {
        var count: Int32 = 0
        guard let data = cdbus_iter_get_fixed(sub, &count), count > 0 else { return [] }
        return [T](unsafeUninitializedCapacity: Int(count)) { buffer, initialized in
            memcpy(buffer.baseAddress!, data, Int(count) * MemoryLayout<T>.stride)
            initialized = Int(count)
        }
    }
}
