// SPDX-License-Identifier: Apache-2.0
// The dh-ietf1024-sha256-aes128-cbc-pkcs7 session cipher, shared by the benchmark client and the null provider.
#ifndef COFFER_BENCH_SSCRYPTO_H
#define COFFER_BENCH_SSCRYPTO_H

#include <stddef.h>
#include <stdint.h>

#define SS_DH_BYTES 128
#define SS_AES_KEY_BYTES 16
#define SS_AES_BLOCK 16

/* One side of a DH session: a private exponent and its public value g^x mod p. */
typedef struct {
    void *private_exponent; /* gcry_mpi_t; opaque so callers need not include gcrypt.h */
    uint8_t public_key[SS_DH_BYTES];
    size_t public_key_len;
} ss_dh_pair;

void ss_crypto_init(void);
void ss_dh_generate(ss_dh_pair *pair);
/* Derives the AES-128 key from the peer's public value; 0 on success. */
int ss_dh_session_key(const ss_dh_pair *pair, const uint8_t *peer, size_t peer_len, uint8_t key[SS_AES_KEY_BYTES]);
void ss_dh_free(ss_dh_pair *pair);

/* AES-128-CBC with PKCS#7 padding. `out` needs len + 16 bytes; returns the output length. */
size_t ss_encrypt(const uint8_t key[SS_AES_KEY_BYTES], const uint8_t iv[SS_AES_BLOCK], const uint8_t *in, size_t len,
                  uint8_t *out);
/* Returns the plaintext length, or -1 when the padding is wrong (a wrong key, in practice). */
long ss_decrypt(const uint8_t key[SS_AES_KEY_BYTES], const uint8_t iv[SS_AES_BLOCK], const uint8_t *in, size_t len,
                uint8_t *out);
void ss_random(uint8_t *out, size_t len);

#endif
