// SPDX-License-Identifier: Apache-2.0
// libsecret's password lookup, as applications make it, for comparison with the Keychain library's
// SecItemCopyMatching on the same item of the same provider (the items keychain-bench seeds).
//
//   libsecret-lookup CALLS     CALLS lookups of service coffer-bench-keychain, account item-0; prints
//                              "libsecret1 NANOSECONDS" for each
//
// One untimed lookup first opens the transfer session, which libsecret then keeps, as the library does.

#include <libsecret/secret.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const SecretSchema schema = {
    "io.coffer.bench.keychain", SECRET_SCHEMA_DONT_MATCH_NAME,
    {{"service", SECRET_SCHEMA_ATTRIBUTE_STRING}, {"account", SECRET_SCHEMA_ATTRIBUTE_STRING}, {NULL, 0}},
};

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void lookup(void) {
    GError *error = NULL;
    gchar *password = secret_password_lookup_sync(&schema, NULL, &error, "service", "coffer-bench-keychain",
                                                  "account", "item-0", NULL);
    if (error != NULL || password == NULL || strcmp(password, "secret-0") != 0) {
        fprintf(stderr, "libsecret-lookup: %s\n", error ? error->message : "no or a wrong secret");
        exit(1);
    }
    secret_password_free(password);
}

int main(int argc, char **argv) {
    long calls = argc > 1 ? atol(argv[1]) : 0;
    if (calls <= 0) {
        fprintf(stderr, "usage: libsecret-lookup CALLS\n");
        return 2;
    }
    lookup();
    for (long i = 0; i < calls; i++) {
        long long start = now_ns();
        lookup();
        printf("libsecret1 %lld\n", now_ns() - start);
    }
    return 0;
}
