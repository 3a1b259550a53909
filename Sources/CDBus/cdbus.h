// SPDX-License-Identifier: Apache-2.0
// libdbus-1 for Swift: the real header plus mirrors of macros Swift cannot import and tiny helpers for
// variadic or pointer-to-pointer calls. Only the DBusTransport module may import this.

#ifndef CDBUS_H
#define CDBUS_H

#include <dbus/dbus.h>
#include <sys/eventfd.h>
#include <poll.h>
#include <sys/prctl.h>

// MARK: - Type codes (`((int) 's')` style macros do not import into Swift)

static const int cdbus_type_invalid = DBUS_TYPE_INVALID;
static const int cdbus_type_byte = DBUS_TYPE_BYTE;
static const int cdbus_type_boolean = DBUS_TYPE_BOOLEAN;
static const int cdbus_type_int16 = DBUS_TYPE_INT16;
static const int cdbus_type_uint16 = DBUS_TYPE_UINT16;
static const int cdbus_type_int32 = DBUS_TYPE_INT32;
static const int cdbus_type_uint32 = DBUS_TYPE_UINT32;
static const int cdbus_type_int64 = DBUS_TYPE_INT64;
static const int cdbus_type_uint64 = DBUS_TYPE_UINT64;
static const int cdbus_type_double = DBUS_TYPE_DOUBLE;
static const int cdbus_type_string = DBUS_TYPE_STRING;
static const int cdbus_type_object_path = DBUS_TYPE_OBJECT_PATH;
static const int cdbus_type_signature = DBUS_TYPE_SIGNATURE;
static const int cdbus_type_unix_fd = DBUS_TYPE_UNIX_FD;
static const int cdbus_type_array = DBUS_TYPE_ARRAY;
static const int cdbus_type_variant = DBUS_TYPE_VARIANT;
static const int cdbus_type_struct = DBUS_TYPE_STRUCT;
static const int cdbus_type_dict_entry = DBUS_TYPE_DICT_ENTRY;

// MARK: - Other mirrors

static const int cdbus_timeout_infinite = DBUS_TIMEOUT_INFINITE;
static const int cdbus_message_type_method_call = DBUS_MESSAGE_TYPE_METHOD_CALL;
static const int cdbus_message_type_method_return = DBUS_MESSAGE_TYPE_METHOD_RETURN;
static const int cdbus_message_type_error = DBUS_MESSAGE_TYPE_ERROR;
static const int cdbus_message_type_signal = DBUS_MESSAGE_TYPE_SIGNAL;
static const int cdbus_maximum_array_length = DBUS_MAXIMUM_ARRAY_LENGTH;
static const int cdbus_maximum_message_length = DBUS_MAXIMUM_MESSAGE_LENGTH;

/// The C `DBusError` under a name that does not collide with DBusWire's `DBusError`.
typedef DBusError cdbus_error;

// MARK: - Message iterator helpers (pointer-to-pointer arguments)

/// Appends a string, object path or signature. The corresponding C function is `dbus_message_iter_append_basic`.
static inline dbus_bool_t cdbus_iter_append_string(DBusMessageIter *iter, int type, const char *value) {
    return dbus_message_iter_append_basic(iter, type, &value);
}

/// Appends `count` fixed-size elements stored contiguously at `data`.
/// The corresponding C function is `dbus_message_iter_append_fixed_array`.
static inline dbus_bool_t cdbus_iter_append_fixed(DBusMessageIter *iter, int element_type, const void *data,
                                                  int count) {
    return dbus_message_iter_append_fixed_array(iter, element_type, &data, count);
}

/// Reads the current basic value. The corresponding C function is `dbus_message_iter_get_basic`.
static inline DBusBasicValue cdbus_iter_get_basic(DBusMessageIter *iter) {
    DBusBasicValue value;
    value.u64 = 0;
    dbus_message_iter_get_basic(iter, &value);
    return value;
}

/// Reads a whole fixed-size array from an iterator recursed into it; `*count` receives the element count.
/// The corresponding C function is `dbus_message_iter_get_fixed_array`.
static inline const void *cdbus_iter_get_fixed(DBusMessageIter *iter, int *count) {
    const void *data = NULL;
    *count = 0;
    dbus_message_iter_get_fixed_array(iter, &data, count);
    return data;
}

/// The length in bytes of the array `iter` was recursed into, as marshalled, read from its length prefix.
/// libdbus marks the function deprecated (callers usually want the element count), but the wire size is exactly
/// what a size limit needs, and it is part of the stable ABI.
/// The corresponding C function is `dbus_message_iter_get_array_len`.
static inline int cdbus_iter_array_byte_length(DBusMessageIter *iter) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    return dbus_message_iter_get_array_len(iter);
#pragma GCC diagnostic pop
}

// MARK: - Object tree

/// Registers a fallback handler with only a message function.
/// The corresponding C function is `dbus_connection_try_register_fallback`.
static inline dbus_bool_t cdbus_register_fallback(DBusConnection *connection, const char *path,
                                                  DBusObjectPathMessageFunction function, void *user_data,
                                                  DBusError *error) {
    DBusObjectPathVTable vtable = { NULL, function, NULL, NULL, NULL, NULL };
    return dbus_connection_try_register_fallback(connection, path, &vtable, user_data, error);
}

// MARK: - Loop plumbing

/// A non-blocking, close-on-exec eventfd used to wake a bus loop. The corresponding C function is `eventfd`.
static inline int cdbus_eventfd_create(void) {
    return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

/// Names the calling thread (at most 15 bytes show). The corresponding C function is `prctl(PR_SET_NAME)`.
static inline void cdbus_set_thread_name(const char *name) {
    (void) prctl(PR_SET_NAME, name, 0, 0, 0);
}

#endif
