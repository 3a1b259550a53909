// SPDX-License-Identifier: Apache-2.0
// Measures a received message's arguments from their wire form, before anything is decoded.

internal import CDBus
import Glibc

/// The size of a libdbus message's body as marshalled, measured without decoding it.
///
/// Decoding turns every array element into a value of its own, so a body costs several times its wire size once
/// decoded. Measuring first lets a connection refuse an oversized body without allocating anything: arrays count
/// by their length prefix and are never walked, so the walk visits only the values outside arrays. Alignment
/// padding between values is not counted.
enum MessageBodySize {
    /// The body's size in bytes, or some value above `limit` as soon as the count passes it.
    /// The corresponding C function is `dbus_message_iter_init`.
    static func of(_ message: OpaquePointer, limit: Int) -> Int {
        var iter = DBusMessageIter()
        return withUnsafeMutablePointer(to: &iter) { iter in
            guard dbus_message_iter_init(message, iter) != 0 else { return 0 }
            var total = 0
            add(iter, to: &total, limit: limit)
            return total
        }
    }

    /// Adds the values from `iter` to the end of its container; stops once `total` passes `limit`.
    private static func add(_ iter: UnsafeMutablePointer<DBusMessageIter>, to total: inout Int, limit: Int) {
        repeat {
            let type = dbus_message_iter_get_arg_type(iter)
            switch type {
            case cdbus_type_invalid:
                return
            case cdbus_type_array:
                // libdbus reads the length from an iterator inside the array; entering it does not walk it.
                var sub = DBusMessageIter()
                total += 4 + withUnsafeMutablePointer(to: &sub) { sub in
                    dbus_message_iter_recurse(iter, sub)
                    return Int(cdbus_iter_array_byte_length(sub))
                }
            case cdbus_type_struct, cdbus_type_dict_entry:
                recurse(iter, into: &total, limit: limit)
            case cdbus_type_variant:
                total += 3  // the content's signature: length byte, one type code, NUL
                recurse(iter, into: &total, limit: limit)
            case cdbus_type_string, cdbus_type_object_path:
                total += 4 + strlen(cdbus_iter_get_basic(iter).str) + 1
            case cdbus_type_signature:
                total += 1 + strlen(cdbus_iter_get_basic(iter).str) + 1
            case cdbus_type_byte:
                total += 1
            case cdbus_type_int16, cdbus_type_uint16:
                total += 2
            case cdbus_type_int64, cdbus_type_uint64, cdbus_type_double:
                total += 8
            default:
                total += 4  // boolean, int32, uint32, unix fd
            }
        } while total <= limit && dbus_message_iter_next(iter) != 0
    }

    private static func recurse(_ iter: UnsafeMutablePointer<DBusMessageIter>, into total: inout Int, limit: Int) {
        var sub = DBusMessageIter()
        withUnsafeMutablePointer(to: &sub) { sub in
            dbus_message_iter_recurse(iter, sub)
            add(sub, to: &total, limit: limit)
        }
    }
}
