// SPDX-License-Identifier: Apache-2.0
// coffer-bench-null: a Secret Service that answers the benchmark's calls with canned replies — the cost of the
// D-Bus round trips alone, which no real provider can beat.
//
// It owns org.freedesktop.secrets on DBUS_SESSION_BUS_ADDRESS and answers OpenSession (a real DH agreement, so
// clients can decrypt what it sends), ReadAlias, SearchItems (100 paths when the query names a "group", one
// otherwise), GetSecrets (one secret sealed once per session, sent for every path), CreateItem and Item.Delete.
// Everything else gets UnknownMethod. It keeps no items and writes nothing.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sscall.h"
#include "sscrypto.h"

#define MAX_SESSIONS 64

typedef struct {
    char path[64];
    uint8_t iv[SS_AES_BLOCK];
    uint8_t sealed[32];
    int sealed_len;
} session;

static session sessions[MAX_SESSIONS];
static unsigned long session_counter, item_counter;

static DBusMessage *open_session(DBusMessage *msg) {
    DBusMessageIter iter, variant;
    dbus_message_iter_init(msg, &iter);
    dbus_message_iter_next(&iter);
    dbus_message_iter_recurse(&iter, &variant);
    const uint8_t *peer;
    int peer_len;
    ss_read_bytes(&variant, &peer, &peer_len);
    ss_dh_pair pair;
    ss_dh_generate(&pair);
    uint8_t key[SS_AES_KEY_BYTES];
    if (ss_dh_session_key(&pair, peer, (size_t)peer_len, key) != 0)
        return dbus_message_new_error(msg, DBUS_ERROR_INVALID_ARGS, "bad public key");
    session *s = &sessions[session_counter % MAX_SESSIONS];
    snprintf(s->path, sizeof s->path, SS_PATH "/session/s%lu", ++session_counter);
    ss_random(s->iv, sizeof s->iv);
    static const char canned[] = "canned-password";
    s->sealed_len = (int)ss_encrypt(key, s->iv, (const uint8_t *)canned, sizeof canned - 1, s->sealed);
    DBusMessage *reply = dbus_message_new_method_return(msg);
    dbus_message_iter_init_append(reply, &iter);
    dbus_message_iter_open_container(&iter, DBUS_TYPE_VARIANT, "ay", &variant);
    ss_append_bytes(&variant, pair.public_key, (int)pair.public_key_len);
    dbus_message_iter_close_container(&iter, &variant);
    const char *path = s->path;
    dbus_message_iter_append_basic(&iter, DBUS_TYPE_OBJECT_PATH, &path);
    ss_dh_free(&pair);
    return reply;
}

static DBusMessage *search_items(DBusMessage *msg) {
    DBusMessageIter iter, array, entry;
    int wants_group = 0;
    dbus_message_iter_init(msg, &iter);
    dbus_message_iter_recurse(&iter, &array);
    while (dbus_message_iter_get_arg_type(&array) == DBUS_TYPE_DICT_ENTRY) {
        const char *name;
        dbus_message_iter_recurse(&array, &entry);
        dbus_message_iter_get_basic(&entry, &name);
        if (strcmp(name, "group") == 0) wants_group = 1;
        dbus_message_iter_next(&array);
    }
    DBusMessage *reply = dbus_message_new_method_return(msg);
    dbus_message_iter_init_append(reply, &iter);
    dbus_message_iter_open_container(&iter, DBUS_TYPE_ARRAY, "o", &array);
    for (int i = 0; i < (wants_group ? 100 : 1); i++) {
        char path[96];
        snprintf(path, sizeof path, SS_PATH "/collection/login/%d", i + 1);
        const char *p = path;
        dbus_message_iter_append_basic(&array, DBUS_TYPE_OBJECT_PATH, &p);
    }
    dbus_message_iter_close_container(&iter, &array);
    dbus_message_iter_open_container(&iter, DBUS_TYPE_ARRAY, "o", &array);
    dbus_message_iter_close_container(&iter, &array);
    return reply;
}

static DBusMessage *get_secrets(DBusMessage *msg) {
    DBusMessageIter iter, paths, array, entry;
    dbus_message_iter_init(msg, &iter);
    dbus_message_iter_recurse(&iter, &paths);
    dbus_message_iter_next(&iter);
    const char *session_path;
    dbus_message_iter_get_basic(&iter, &session_path);
    session *s = NULL;
    for (int i = 0; i < MAX_SESSIONS; i++)
        if (strcmp(sessions[i].path, session_path) == 0) s = &sessions[i];
    if (!s) return dbus_message_new_error(msg, "org.freedesktop.Secret.Error.NoSession", "no such session");
    DBusMessage *reply = dbus_message_new_method_return(msg);
    dbus_message_iter_init_append(reply, &iter);
    dbus_message_iter_open_container(&iter, DBUS_TYPE_ARRAY, "{o(oayays)}", &array);
    while (dbus_message_iter_get_arg_type(&paths) == DBUS_TYPE_OBJECT_PATH) {
        const char *path;
        dbus_message_iter_get_basic(&paths, &path);
        dbus_message_iter_open_container(&array, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
        dbus_message_iter_append_basic(&entry, DBUS_TYPE_OBJECT_PATH, &path);
        ss_append_secret(&entry, s->path, s->iv, sizeof s->iv, s->sealed, s->sealed_len);
        dbus_message_iter_close_container(&array, &entry);
        dbus_message_iter_next(&paths);
    }
    dbus_message_iter_close_container(&iter, &array);
    return reply;
}

static DBusMessage *reply_paths(DBusMessage *msg, const char *first, const char *second) {
    DBusMessage *reply = dbus_message_new_method_return(msg);
    if (second)
        dbus_message_append_args(reply, DBUS_TYPE_OBJECT_PATH, &first, DBUS_TYPE_OBJECT_PATH, &second,
                                 DBUS_TYPE_INVALID);
    else
        dbus_message_append_args(reply, DBUS_TYPE_OBJECT_PATH, &first, DBUS_TYPE_INVALID);
    return reply;
}

static DBusHandlerResult handle(DBusConnection *conn, DBusMessage *msg, void *data) {
    (void)data;
    if (dbus_message_get_type(msg) != DBUS_MESSAGE_TYPE_METHOD_CALL) return DBUS_HANDLER_RESULT_NOT_YET_HANDLED;
    DBusMessage *reply;
    char item[96];
    if (dbus_message_is_method_call(msg, SS_SERVICE, "OpenSession")) {
        reply = open_session(msg);
    } else if (dbus_message_is_method_call(msg, SS_SERVICE, "SearchItems")) {
        reply = search_items(msg);
    } else if (dbus_message_is_method_call(msg, SS_SERVICE, "GetSecrets")) {
        reply = get_secrets(msg);
    } else if (dbus_message_is_method_call(msg, SS_SERVICE, "ReadAlias")) {
        reply = reply_paths(msg, SS_PATH "/collection/login", NULL);
    } else if (dbus_message_is_method_call(msg, SS_COLLECTION, "CreateItem")) {
        snprintf(item, sizeof item, SS_PATH "/collection/login/n%lu", ++item_counter);
        reply = reply_paths(msg, item, "/");
    } else if (dbus_message_is_method_call(msg, SS_ITEM, "Delete")) {
        reply = reply_paths(msg, "/", NULL);
    } else {
        reply = dbus_message_new_error(msg, DBUS_ERROR_UNKNOWN_METHOD, "not part of the benchmark");
    }
    dbus_connection_send(conn, reply, NULL);
    dbus_message_unref(reply);
    return DBUS_HANDLER_RESULT_HANDLED;
}

int main(void) {
    ss_crypto_init();
    DBusError error;
    dbus_error_init(&error);
    DBusConnection *conn = dbus_bus_get_private(DBUS_BUS_SESSION, &error);
    if (!conn) ss_die(error.name, error.message);
    dbus_connection_set_exit_on_disconnect(conn, TRUE);
    dbus_connection_add_filter(conn, handle, NULL, NULL);
    if (dbus_bus_request_name(conn, SS_NAME, DBUS_NAME_FLAG_DO_NOT_QUEUE, &error) !=
        DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER)
        ss_die("cannot own " SS_NAME, error.message);
    while (dbus_connection_read_write_dispatch(conn, -1)) {
    }
    return 0;
}
