// SPDX-License-Identifier: Apache-2.0
// coffer-bench-client: drives any Secret Service provider with the calls libsecret makes, timing each one.
//
// Usage: coffer-bench-client OPERATION COUNT N   (the bus is DBUS_SESSION_BUS_ADDRESS)
//   fill        store COUNT items numbered N, N+1, … (attributes bench=coffer, id=I, group=gI/100)
//   lookup      COUNT lookups of random ids below N: SearchItems + GetSecrets over a DH session, secret decrypted
//   search1     COUNT SearchItems that match one item
//   search100   COUNT SearchItems that match 100 items (one group)
//   get100      COUNT GetSecrets of the 100 items of a group in one call
//   store       COUNT CreateItem of new items (replace=true, as libsecret stores); prints each new path
//   delete      Item.Delete of each path read from standard input (the store lines)
//   gk-setpassword  gives gnome-keyring's password-less login keyring the password on standard input
//   concurrent  COUNT lookups (or fewer, see BENCH_BUDGET_MS); prints the span they took and how many
//   waitname    waits until the provider owns its name
//   coldstart   waits for the provider's name, then retries one lookup until it is answered unlocked
//   kdf         COUNT Argon2id derivations with cofferd's default cost (t=4, m=64 MiB, p=1)
// Output: one line per measured call, "METRIC NANOSECONDS"; "span START END COUNT" for concurrent; "ready NS" for
// coldstart (CLOCK_MONOTONIC). Any unexpected answer stops the client with status 2.
#include <gcrypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sscall.h"
#include "sscrypto.h"

typedef struct {
    DBusConnection *conn;
    char session[256];
    uint8_t key[SS_AES_KEY_BYTES];
    char collection[256];
} client;

static DBusMessage *call(client *c, DBusMessage *msg) {
    DBusError error;
    dbus_error_init(&error);
    /* Generous: gnome-keyring takes minutes to load a 10,000-item textual keyring on a busy machine. */
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(c->conn, msg, 1800000, &error);
    dbus_message_unref(msg);
    if (!reply) ss_die(error.name, error.message);
    return reply;
}

static DBusMessage *method(const char *path, const char *interface, const char *member) {
    return dbus_message_new_method_call(SS_NAME, path, interface, member);
}

static void open_session(client *c) {
    ss_dh_pair pair;
    ss_dh_generate(&pair);
    DBusMessage *msg = method(SS_PATH, SS_SERVICE, "OpenSession");
    DBusMessageIter iter, variant;
    dbus_message_iter_init_append(msg, &iter);
    const char *algorithm = SS_DH_ALGORITHM;
    dbus_message_iter_append_basic(&iter, DBUS_TYPE_STRING, &algorithm);
    dbus_message_iter_open_container(&iter, DBUS_TYPE_VARIANT, "ay", &variant);
    ss_append_bytes(&variant, pair.public_key, (int)pair.public_key_len);
    dbus_message_iter_close_container(&iter, &variant);
    DBusMessage *reply = call(c, msg);
    dbus_message_iter_init(reply, &iter);
    dbus_message_iter_recurse(&iter, &variant);
    const uint8_t *peer;
    int peer_len;
    ss_read_bytes(&variant, &peer, &peer_len);
    if (ss_dh_session_key(&pair, peer, (size_t)peer_len, c->key) != 0) ss_die("bad DH reply", NULL);
    dbus_message_iter_next(&iter);
    const char *path;
    dbus_message_iter_get_basic(&iter, &path);
    snprintf(c->session, sizeof c->session, "%s", path);
    dbus_message_unref(reply);
    ss_dh_free(&pair);
}

static void read_default_alias(client *c) {
    DBusMessage *msg = method(SS_PATH, SS_SERVICE, "ReadAlias");
    const char *alias = "default";
    dbus_message_append_args(msg, DBUS_TYPE_STRING, &alias, DBUS_TYPE_INVALID);
    DBusMessage *reply = call(c, msg);
    const char *path;
    if (!dbus_message_get_args(reply, NULL, DBUS_TYPE_OBJECT_PATH, &path, DBUS_TYPE_INVALID) || strcmp(path, "/") == 0)
        ss_die("no default collection", NULL);
    snprintf(c->collection, sizeof c->collection, "%s", path);
    dbus_message_unref(reply);
}

/* SearchItems; copies up to `max` unlocked paths into `paths` (each 256 bytes); returns the unlocked count. */
static int search(client *c, const char *const *names, const char *const *values, int count, char (*paths)[256],
                  int max, int *locked) {
    DBusMessage *msg = method(SS_PATH, SS_SERVICE, "SearchItems");
    DBusMessageIter iter, array;
    dbus_message_iter_init_append(msg, &iter);
    ss_append_attributes(&iter, names, values, count);
    DBusMessage *reply = call(c, msg);
    dbus_message_iter_init(reply, &iter);
    int found = 0;
    dbus_message_iter_recurse(&iter, &array);
    while (dbus_message_iter_get_arg_type(&array) == DBUS_TYPE_OBJECT_PATH) {
        const char *path;
        dbus_message_iter_get_basic(&array, &path);
        if (found < max) snprintf(paths[found], 256, "%s", path);
        found++;
        dbus_message_iter_next(&array);
    }
    dbus_message_iter_next(&iter);
    *locked = 0;
    dbus_message_iter_recurse(&iter, &array);
    while (dbus_message_iter_get_arg_type(&array) == DBUS_TYPE_OBJECT_PATH) {
        (*locked)++;
        dbus_message_iter_next(&array);
    }
    dbus_message_unref(reply);
    return found;
}

/* GetSecrets for `count` paths; decrypts every secret and returns how many decrypted. */
static int get_secrets(client *c, char (*paths)[256], int count) {
    DBusMessage *msg = method(SS_PATH, SS_SERVICE, "GetSecrets");
    DBusMessageIter iter, array, entry, secret;
    dbus_message_iter_init_append(msg, &iter);
    dbus_message_iter_open_container(&iter, DBUS_TYPE_ARRAY, "o", &array);
    for (int i = 0; i < count; i++) {
        const char *path = paths[i];
        dbus_message_iter_append_basic(&array, DBUS_TYPE_OBJECT_PATH, &path);
    }
    dbus_message_iter_close_container(&iter, &array);
    const char *session = c->session;
    dbus_message_iter_append_basic(&iter, DBUS_TYPE_OBJECT_PATH, &session);
    DBusMessage *reply = call(c, msg);
    dbus_message_iter_init(reply, &iter);
    dbus_message_iter_recurse(&iter, &array);
    int opened = 0;
    while (dbus_message_iter_get_arg_type(&array) == DBUS_TYPE_DICT_ENTRY) {
        dbus_message_iter_recurse(&array, &entry);
        dbus_message_iter_next(&entry);
        dbus_message_iter_recurse(&entry, &secret);
        dbus_message_iter_next(&secret);
        const uint8_t *iv, *value;
        int iv_len, value_len;
        ss_read_bytes(&secret, &iv, &iv_len);
        dbus_message_iter_next(&secret);
        ss_read_bytes(&secret, &value, &value_len);
        uint8_t plain[4096];
        if (iv_len == SS_AES_BLOCK && value_len <= (int)sizeof plain &&
            ss_decrypt(c->key, iv, value, (size_t)value_len, plain) >= 0)
            opened++;
        dbus_message_iter_next(&array);
    }
    dbus_message_unref(reply);
    return opened;
}

static void create_item(client *c, const char *id, char path_out[256]) {
    DBusMessage *msg = method(c->collection, SS_COLLECTION, "CreateItem");
    DBusMessageIter iter, props, entry, variant;
    dbus_message_iter_init_append(msg, &iter);
    dbus_message_iter_open_container(&iter, DBUS_TYPE_ARRAY, "{sv}", &props);
    const char *label_key = "org.freedesktop.Secret.Item.Label", *attrs_key = "org.freedesktop.Secret.Item.Attributes";
    char label[96];
    snprintf(label, sizeof label, "bench item %s", id);
    const char *label_value = label;
    dbus_message_iter_open_container(&props, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
    dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &label_key);
    dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "s", &variant);
    dbus_message_iter_append_basic(&variant, DBUS_TYPE_STRING, &label_value);
    dbus_message_iter_close_container(&entry, &variant);
    dbus_message_iter_close_container(&props, &entry);
    dbus_message_iter_open_container(&props, DBUS_TYPE_DICT_ENTRY, NULL, &entry);
    dbus_message_iter_append_basic(&entry, DBUS_TYPE_STRING, &attrs_key);
    dbus_message_iter_open_container(&entry, DBUS_TYPE_VARIANT, "a{ss}", &variant);
    char group[64];
    long number = strtol(id, NULL, 10);
    if (id[0] == 's')
        snprintf(group, sizeof group, "new");
    else
        snprintf(group, sizeof group, "g%ld", number / 100);
    const char *names[] = {"bench", "id", "group"}, *values[] = {"coffer", id, group};
    ss_append_attributes(&variant, names, values, 3);
    dbus_message_iter_close_container(&entry, &variant);
    dbus_message_iter_close_container(&props, &entry);
    dbus_message_iter_close_container(&iter, &props);
    uint8_t iv[SS_AES_BLOCK], sealed[64];
    char plain[48];
    int plain_len = snprintf(plain, sizeof plain, "password-%s", id);
    ss_random(iv, sizeof iv);
    size_t sealed_len = ss_encrypt(c->key, iv, (const uint8_t *)plain, (size_t)plain_len, sealed);
    ss_append_secret(&iter, c->session, iv, sizeof iv, sealed, (int)sealed_len);
    dbus_bool_t replace = TRUE; /* as libsecret's secret_password_store does */
    dbus_message_iter_append_basic(&iter, DBUS_TYPE_BOOLEAN, &replace);
    DBusMessage *reply = call(c, msg);
    const char *item, *prompt;
    if (!dbus_message_get_args(reply, NULL, DBUS_TYPE_OBJECT_PATH, &item, DBUS_TYPE_OBJECT_PATH, &prompt,
                               DBUS_TYPE_INVALID) ||
        strcmp(prompt, "/") != 0)
        ss_die("CreateItem asked for a prompt", NULL);
    snprintf(path_out, 256, "%s", item);
    dbus_message_unref(reply);
}

static void delete_item(client *c, const char *path) {
    DBusMessage *reply = call(c, method(path, SS_ITEM, "Delete"));
    dbus_message_unref(reply);
}

static void lookup(client *c, long n, int expect_unlocked) {
    char id[32], paths[1][256];
    snprintf(id, sizeof id, "%ld", random() % n);
    const char *names[] = {"bench", "id"}, *values[] = {"coffer", id};
    int locked;
    int found = search(c, names, values, 2, paths, 1, &locked);
    if (found != 1 && expect_unlocked) ss_die("lookup found no unlocked item", id);
    if (found == 1 && get_secrets(c, paths, 1) != 1) ss_die("lookup could not decrypt the secret", id);
}

static void wait_for_name(client *c) {
    DBusError error;
    dbus_error_init(&error);
    dbus_bus_add_match(c->conn,
                       "type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',arg0='" SS_NAME "'",
                       &error);
    if (dbus_error_is_set(&error)) ss_die(error.name, error.message);
    if (dbus_bus_name_has_owner(c->conn, SS_NAME, NULL)) return;
    /* The signal can arrive in the same read as the NameHasOwner reply and already wait in the queue, so the
       queue is drained before every blocking read (blocking first would wait for a signal already received). */
    do {
        DBusMessage *msg;
        while ((msg = dbus_connection_pop_message(c->conn))) {
            const char *name, *old_owner, *new_owner;
            int owned = dbus_message_is_signal(msg, DBUS_INTERFACE_DBUS, "NameOwnerChanged") &&
                        dbus_message_get_args(msg, NULL, DBUS_TYPE_STRING, &name, DBUS_TYPE_STRING, &old_owner,
                                              DBUS_TYPE_STRING, &new_owner, DBUS_TYPE_INVALID) &&
                        new_owner[0] != '\0';
            dbus_message_unref(msg);
            if (owned) return;
        }
    } while (dbus_connection_read_write(c->conn, -1));
    ss_die("the bus went away", NULL);
}

static void kdf(void) {
    unsigned long params[4] = {32, 4, 65536, 1};
    const char password[] = "benchmark-password", salt[] = "0123456789abcdef";
    gcry_kdf_hd_t hd;
    uint8_t out[32];
    if (gcry_kdf_open(&hd, GCRY_KDF_ARGON2, GCRY_KDF_ARGON2ID, params, 4, password, sizeof password - 1, salt,
                      sizeof salt - 1, NULL, 0, NULL, 0) != 0 ||
        gcry_kdf_compute(hd, NULL) != 0 || gcry_kdf_final(hd, sizeof out, out) != 0)
        ss_die("Argon2id failed", NULL);
    gcry_kdf_close(hd);
}

/* Slow providers would take minutes per turn at a fixed count: BENCH_BUDGET_MS (when set) ends a turn early once
 * that much time has passed and at least three calls were measured. */
static int64_t budget_end;

static int within_budget(long done) { return budget_end == 0 || done < 3 || ss_now_ns() < budget_end; }

/* Sets the login password of a gnome-keyring collection that has none (a textual keyring file) to the line on
 * standard input, through gnome-keyring's own interface, so gnome-keyring writes its encrypted file itself. */
static void gnome_keyring_set_password(client *c) {
    char password[256];
    if (!fgets(password, sizeof password, stdin)) ss_die("no password on standard input", NULL);
    password[strcspn(password, "\n")] = '\0';
    DBusMessage *msg = method(SS_PATH, SS_SERVICE, "OpenSession");
    DBusMessageIter iter, variant;
    dbus_message_iter_init_append(msg, &iter);
    const char *algorithm = "plain", *empty = "";
    dbus_message_iter_append_basic(&iter, DBUS_TYPE_STRING, &algorithm);
    dbus_message_iter_open_container(&iter, DBUS_TYPE_VARIANT, "s", &variant);
    dbus_message_iter_append_basic(&variant, DBUS_TYPE_STRING, &empty);
    dbus_message_iter_close_container(&iter, &variant);
    DBusMessage *reply = call(c, msg);
    dbus_message_iter_init(reply, &iter);
    dbus_message_iter_next(&iter);
    const char *session;
    dbus_message_iter_get_basic(&iter, &session);
    const char *collection = SS_PATH "/collection/login";
    const char *interface = "org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface";
    msg = method(SS_PATH, interface, "UnlockWithMasterPassword");
    dbus_message_iter_init_append(msg, &iter);
    dbus_message_iter_append_basic(&iter, DBUS_TYPE_OBJECT_PATH, &collection);
    ss_append_secret(&iter, session, NULL, 0, NULL, 0);
    dbus_message_unref(call(c, msg));
    msg = method(SS_PATH, interface, "ChangeWithMasterPassword");
    dbus_message_iter_init_append(msg, &iter);
    dbus_message_iter_append_basic(&iter, DBUS_TYPE_OBJECT_PATH, &collection);
    ss_append_secret(&iter, session, NULL, 0, NULL, 0);
    ss_append_secret(&iter, session, NULL, 0, (const uint8_t *)password, (int)strlen(password));
    dbus_message_unref(call(c, msg));
    dbus_message_unref(reply);
}

#define TIMED(metric, statement)                                                                                    \
    do {                                                                                                           \
        int64_t start_ = ss_now_ns();                                                                              \
        statement;                                                                                                 \
        printf("%s %lld\n", metric, (long long)(ss_now_ns() - start_));                                            \
    } while (0)

int main(int argc, char **argv) {
    if (argc != 4) ss_die("usage: coffer-bench-client OPERATION COUNT N", NULL);
    const char *op = argv[1];
    long count = strtol(argv[2], NULL, 10), n = strtol(argv[3], NULL, 10);
    srandom((unsigned)(getpid() ^ ss_now_ns()));
    ss_crypto_init();
    if (strcmp(op, "kdf") == 0) {
        for (long i = 0; i < count; i++) TIMED("kdf", kdf());
        return 0;
    }
    DBusError error;
    dbus_error_init(&error);
    client c = {.conn = dbus_bus_get_private(DBUS_BUS_SESSION, &error)};
    if (!c.conn) ss_die(error.name, error.message);
    if (strcmp(op, "waitname") == 0) {
        wait_for_name(&c);
        return 0;
    }
    if (strcmp(op, "coldstart") == 0) {
        int64_t started = ss_now_ns();
        wait_for_name(&c);
        open_session(&c);
        for (;;) {
            char id[32], paths[1][256];
            snprintf(id, sizeof id, "%ld", random() % n);
            const char *names[] = {"bench", "id"}, *values[] = {"coffer", id};
            int locked;
            if (search(&c, names, values, 2, paths, 1, &locked) == 1 && get_secrets(&c, paths, 1) == 1) break;
            if (ss_now_ns() - started > 300 * 1000000000LL) ss_die("no unlocked item after 300 s", id);
            struct timespec pause = {0, 1000000}; /* the login collection is still being unlocked */
            nanosleep(&pause, NULL);
        }
        printf("ready %lld\n", (long long)ss_now_ns());
        return 0;
    }
    if (strcmp(op, "gk-setpassword") == 0) {
        gnome_keyring_set_password(&c);
        return 0;
    }
    const char *budget = getenv("BENCH_BUDGET_MS");
    if (budget) budget_end = ss_now_ns() + strtoll(budget, NULL, 10) * 1000000;
    open_session(&c);
    read_default_alias(&c);
    char (*paths)[256] = calloc(100, 256);
    int locked;
    if (strcmp(op, "fill") == 0) {
        for (long i = 0; i < count; i++) {
            char id[32];
            snprintf(id, sizeof id, "%ld", n + i);
            create_item(&c, id, paths[0]);
        }
    } else if (strcmp(op, "lookup") == 0) {
        for (long i = 0; i < count && within_budget(i); i++) TIMED("lookup", lookup(&c, n, 1));
    } else if (strcmp(op, "search1") == 0 || strcmp(op, "search100") == 0) {
        int hundred = op[6] == '1' && op[7] == '0';
        for (long i = 0; i < count && within_budget(i); i++) {
            char value[32];
            snprintf(value, sizeof value, hundred ? "g%ld" : "%ld", random() % (hundred ? n / 100 : n));
            const char *names[] = {"bench", hundred ? "group" : "id"}, *values[] = {"coffer", value};
            int found;
            TIMED(op, found = search(&c, names, values, 2, paths, 100, &locked));
            if (found != (hundred ? 100 : 1)) ss_die("SearchItems found a wrong number of items", value);
        }
    } else if (strcmp(op, "get100") == 0) {
        for (long i = 0; i < count && within_budget(i); i++) {
            char value[32];
            snprintf(value, sizeof value, "g%ld", random() % (n / 100));
            const char *names[] = {"bench", "group"}, *values[] = {"coffer", value};
            if (search(&c, names, values, 2, paths, 100, &locked) != 100) ss_die("no group of 100", value);
            int opened;
            TIMED("get100", opened = get_secrets(&c, paths, 100));
            if (opened != 100) ss_die("GetSecrets did not return 100 secrets", value);
        }
    } else if (strcmp(op, "store") == 0) {
        char created[256];
        for (long i = 0; i < count && within_budget(i); i++) {
            char id[48];
            snprintf(id, sizeof id, "s%d-%lld-%ld", getpid(), (long long)ss_now_ns(), i);
            int64_t start = ss_now_ns();
            create_item(&c, id, created);
            printf("store %lld %s\n", (long long)(ss_now_ns() - start), created);
        }
    } else if (strcmp(op, "delete") == 0) {
        char line[512];
        while (fgets(line, sizeof line, stdin)) {
            line[strcspn(line, "\n")] = '\0';
            TIMED("delete", delete_item(&c, line));
        }
    } else if (strcmp(op, "storeloop") == 0) {
        /* A client that never stops storing: creates an item and deletes it again (two durable writes), until
         * killed, so the collection keeps its size. One line on standard output once the first pair is done. */
        char created[256];
        for (long i = 0;; i++) {
            char id[48];
            snprintf(id, sizeof id, "w%d-%ld", getpid(), i);
            create_item(&c, id, created);
            delete_item(&c, created);
            if (i == 0) {
                printf("storing\n");
                fflush(stdout);
            }
        }
    } else if (strcmp(op, "concurrent") == 0) {
        int64_t start = ss_now_ns();
        long done = 0;
        while (done < count && within_budget(done)) {
            lookup(&c, n, 1);
            done++;
        }
        printf("span %lld %lld %ld\n", (long long)start, (long long)ss_now_ns(), done);
    } else {
        ss_die("unknown operation", op);
    }
    free(paths);
    dbus_connection_close(c.conn);
    dbus_connection_unref(c.conn);
    return 0;
}
