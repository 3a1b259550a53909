// SPDX-License-Identifier: Apache-2.0
// Small libdbus helpers for Secret Service calls, shared by the benchmark client and the null provider.
#ifndef COFFER_BENCH_SSCALL_H
#define COFFER_BENCH_SSCALL_H

#include <dbus/dbus.h>
#include <stdint.h>

#define SS_NAME "org.freedesktop.secrets"
#define SS_PATH "/org/freedesktop/secrets"
#define SS_SERVICE "org.freedesktop.Secret.Service"
#define SS_COLLECTION "org.freedesktop.Secret.Collection"
#define SS_ITEM "org.freedesktop.Secret.Item"
#define SS_DH_ALGORITHM "dh-ietf1024-sha256-aes128-cbc-pkcs7"

/* Stops the process with a message; the benchmark has no use for a half-working provider or client. */
void ss_die(const char *what, const char *detail) __attribute__((noreturn));

/* Appends a{ss} from `count` name/value pairs laid out as names[i], values[i]. */
void ss_append_attributes(DBusMessageIter *iter, const char *const *names, const char *const *values, int count);
/* Appends ay. */
void ss_append_bytes(DBusMessageIter *iter, const uint8_t *bytes, int len);
/* Appends a Secret struct (o session, ay parameters, ay value, s content_type). */
void ss_append_secret(DBusMessageIter *iter, const char *session, const uint8_t *iv, int iv_len, const uint8_t *value,
                      int value_len);
/* Reads ay at the iterator (which must be on an array of bytes). */
void ss_read_bytes(DBusMessageIter *iter, const uint8_t **bytes, int *len);

/* CLOCK_MONOTONIC in nanoseconds; the runner reads the same clock. */
int64_t ss_now_ns(void);

#endif
