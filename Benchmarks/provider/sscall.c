// SPDX-License-Identifier: Apache-2.0
// Marshalling helpers for the Secret Service types the benchmark client and null provider exchange.
#include "sscall.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void ss_die(const char *what, const char *detail) {
    fprintf(stderr, "coffer-bench: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(2);
}

void ss_append_attributes(DBusMessageIter *iter, const char *const *names, const char *const *values, int count) {
    DBusMessageIter array, entry;
    dbus_message_iter_open_container(iter, DBUS_TYPE_ARRAY, "{ss}", &array);
    for (int i = 0; i < count; i++) {
        dbus_message_iter_open_container(&array, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
        dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &names[i]);
        dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &values[i]);
        dbus_message_iter_close_container(&array, &entry);
    }
    dbus_message_iter_close_container(iter, &array);
}

void ss_append_bytes(DBusMessageIter *iter, const uint8_t *bytes, int len) {
    DBusMessageIter array;
    dbus_message_iter_open_container(iter, DBUS_TYPE_ARRAY, "y", &array);
    dbus_message_iter_append_fixed_array(&array, DBUS_TYPE_BYTE, &bytes, len);
    dbus_message_iter_close_container(iter, &array);
}

void ss_append_secret(DBusMessageIter *iter, const char *session, const uint8_t *iv, int iv_len, const uint8_t *value,
                      int value_len) {
    DBusMessageIter secret;
    const char *content_type = "text/plain";
    dbus_message_iter_open_container(iter, DBUS_TYPE_STRUCT, NULL, &secret);
    dbus_message_iter_append_basic(&secret, DBUS_TYPE_OBJECT_PATH, &session);
    ss_append_bytes(&secret, iv, iv_len);
    ss_append_bytes(&secret, value, value_len);
    dbus_message_iter_append_basic(&secret, DBUS_TYPE_STRING, &content_type);
    dbus_message_iter_close_container(iter, &secret);
}

void ss_read_bytes(DBusMessageIter *iter, const uint8_t **bytes, int *len) {
    if (dbus_message_iter_get_arg_type(iter) != DBUS_TYPE_ARRAY ||
        dbus_message_iter_get_element_type(iter) != DBUS_TYPE_BYTE)
        ss_die("expected a byte array", NULL);
    DBusMessageIter array;
    dbus_message_iter_recurse(iter, &array);
    *len = 0;
    *bytes = NULL;
    if (dbus_message_iter_get_arg_type(&array) == DBUS_TYPE_BYTE) dbus_message_iter_get_fixed_array(&array, bytes, len);
}

int64_t ss_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
