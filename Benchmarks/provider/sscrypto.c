// SPDX-License-Identifier: Apache-2.0
// DH agreement in the second Oakley group, HKDF-SHA256 and AES-128-CBC on libgcrypt, as the Secret Service spec
// defines the dh-ietf1024-sha256-aes128-cbc-pkcs7 algorithm.
#include "sscrypto.h"

#include <gcrypt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *oakley2_prime_hex =
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
    "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF";

static gcry_mpi_t prime, generator;

void ss_crypto_init(void) {
    if (!gcry_check_version(GCRYPT_VERSION)) {
        fprintf(stderr, "libgcrypt version mismatch\n");
        exit(1);
    }
    gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
    if (gcry_mpi_scan(&prime, GCRYMPI_FMT_HEX, oakley2_prime_hex, 0, NULL) != 0) abort();
    generator = gcry_mpi_set_ui(NULL, 2);
}

void ss_random(uint8_t *out, size_t len) { gcry_create_nonce(out, len); }

void ss_dh_generate(ss_dh_pair *pair) {
    gcry_mpi_t x = gcry_mpi_new(1024);
    gcry_mpi_randomize(x, 1024, GCRY_STRONG_RANDOM);
    gcry_mpi_t y = gcry_mpi_new(1024);
    gcry_mpi_powm(y, generator, x, prime);
    size_t written = 0;
    if (gcry_mpi_print(GCRYMPI_FMT_USG, pair->public_key, sizeof pair->public_key, &written, y) != 0) abort();
    pair->public_key_len = written;
    pair->private_exponent = x;
    gcry_mpi_release(y);
}

void ss_dh_free(ss_dh_pair *pair) {
    gcry_mpi_release(pair->private_exponent);
    pair->private_exponent = NULL;
}

static void hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *data, size_t len, uint8_t out[32]) {
    gcry_mac_hd_t mac;
    if (gcry_mac_open(&mac, GCRY_MAC_HMAC_SHA256, 0, NULL) != 0) abort();
    gcry_mac_setkey(mac, key, key_len);
    gcry_mac_write(mac, data, len);
    size_t out_len = 32;
    gcry_mac_read(mac, out, &out_len);
    gcry_mac_close(mac);
}

int ss_dh_session_key(const ss_dh_pair *pair, const uint8_t *peer, size_t peer_len, uint8_t key[SS_AES_KEY_BYTES]) {
    if (peer_len == 0 || peer_len > SS_DH_BYTES) return -1;
    gcry_mpi_t y = NULL;
    if (gcry_mpi_scan(&y, GCRYMPI_FMT_USG, peer, peer_len, NULL) != 0) return -1;
    gcry_mpi_t z = gcry_mpi_new(1024);
    gcry_mpi_powm(z, y, pair->private_exponent, prime);
    uint8_t shared[SS_DH_BYTES] = {0};
    size_t written = 0;
    uint8_t raw[SS_DH_BYTES];
    gcry_mpi_print(GCRYMPI_FMT_USG, raw, sizeof raw, &written, z);
    memcpy(shared + (SS_DH_BYTES - written), raw, written); /* zero-padded to the prime's length */
    gcry_mpi_release(y);
    gcry_mpi_release(z);
    /* HKDF-SHA256: empty salt (a zero key), empty info, one block of output. */
    uint8_t zero_salt[32] = {0}, prk[32], okm[32];
    hmac_sha256(zero_salt, sizeof zero_salt, shared, sizeof shared, prk);
    uint8_t counter = 1;
    hmac_sha256(prk, sizeof prk, &counter, 1, okm);
    memcpy(key, okm, SS_AES_KEY_BYTES);
    return 0;
}

size_t ss_encrypt(const uint8_t key[SS_AES_KEY_BYTES], const uint8_t iv[SS_AES_BLOCK], const uint8_t *in, size_t len,
                  uint8_t *out) {
    size_t padded = (len / SS_AES_BLOCK + 1) * SS_AES_BLOCK;
    memcpy(out, in, len);
    memset(out + len, (int)(padded - len), padded - len);
    gcry_cipher_hd_t cipher;
    if (gcry_cipher_open(&cipher, GCRY_CIPHER_AES128, GCRY_CIPHER_MODE_CBC, 0) != 0) abort();
    gcry_cipher_setkey(cipher, key, SS_AES_KEY_BYTES);
    gcry_cipher_setiv(cipher, iv, SS_AES_BLOCK);
    gcry_cipher_encrypt(cipher, out, padded, NULL, 0);
    gcry_cipher_close(cipher);
    return padded;
}

long ss_decrypt(const uint8_t key[SS_AES_KEY_BYTES], const uint8_t iv[SS_AES_BLOCK], const uint8_t *in, size_t len,
                uint8_t *out) {
    if (len == 0 || len % SS_AES_BLOCK != 0) return -1;
    gcry_cipher_hd_t cipher;
    if (gcry_cipher_open(&cipher, GCRY_CIPHER_AES128, GCRY_CIPHER_MODE_CBC, 0) != 0) abort();
    gcry_cipher_setkey(cipher, key, SS_AES_KEY_BYTES);
    gcry_cipher_setiv(cipher, iv, SS_AES_BLOCK);
    gcry_cipher_decrypt(cipher, out, len, in, len);
    gcry_cipher_close(cipher);
    uint8_t pad = out[len - 1];
    if (pad == 0 || pad > SS_AES_BLOCK) return -1;
    for (size_t i = len - pad; i < len; i++)
        if (out[i] != pad) return -1;
    return (long)(len - pad);
}
