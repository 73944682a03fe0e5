/* sha256.h -- SHA-256 (FIPS 180-4), for the compile cache's keys and entry checksums.
** Written here so the build needs no crypto library; test vectors in tests/c/test_compile.c. */
#ifndef PL_SHA256_H
#define PL_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct plB_sha_ctx {
  uint32_t h[8];
  uint64_t len; /* bytes hashed so far */
  uint8_t buf[64];
  size_t nbuf;
} plB_sha_ctx;

void plB_sha_init(plB_sha_ctx *c);
void plB_sha_update(plB_sha_ctx *c, const void *data, size_t n);
void plB_sha_final(plB_sha_ctx *c, uint8_t out[32]);
void plB_sha256(const void *data, size_t n, uint8_t out[32]); /* one shot */
void plB_sha_hex(const uint8_t d[32], char out[65]);          /* lowercase, NUL-terminated */

#endif
