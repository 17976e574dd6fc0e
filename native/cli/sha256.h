/* sha256.h - a small self-contained SHA-256 (FIPS 180-4) for `tokcore info`.
 * No global state: the caller owns the context. */
#ifndef TC_CLI_SHA256_H
#define TC_CLI_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct sha256_ctx {
    uint32_t h[8];
    uint64_t total;      /* bytes hashed so far */
    uint8_t block[64];
    size_t fill;         /* bytes waiting in block */
} sha256_ctx;

void sha256_init(sha256_ctx *c);
void sha256_update(sha256_ctx *c, const void *data, size_t len);
void sha256_final(sha256_ctx *c, uint8_t digest[32]);

/* One-shot: writes 64 lowercase hex digits and a NUL into hex. */
void sha256_hex(const void *data, size_t len, char hex[65]);

#endif
