/*
 * sha256: SHA-256 (FIPS 180-4) by libcrypto (OpenSSL), which uses the
 * CPU's SHA extensions where it has them: rule files pinned, undo's kept
 * contents named, argv digests. Its one-call interface (SHA256_Init...)
 * keeps no allocation, so a context may be dropped on an error path, and
 * the statically linked helper pulls in the hash alone.
 *
 *	char hex[SHA256_HEX_LEN + 1];
 *	sha256_hex(data, len, hex);
 */
#ifndef BWGATE_SHA256_H
#define BWGATE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN	32
#define SHA256_HEX_LEN	64

#ifndef OPENSSL_SUPPRESS_DEPRECATED
#define OPENSSL_SUPPRESS_DEPRECATED
#endif
#include <openssl/sha.h>

struct sha256 {
	SHA256_CTX	c;
};

void	sha256_init(struct sha256 *);
void	sha256_update(struct sha256 *, const void *, size_t);
void	sha256_final(struct sha256 *, uint8_t out[SHA256_LEN]);
/* One-shot digest as 64 lowercase hex digits plus NUL. */
void	sha256_hex(const void *, size_t, char out[SHA256_HEX_LEN + 1]);
/* The digest of a file's content; -1 (errno set) if it cannot be read. */
int	sha256_file(const char *path, char out[SHA256_HEX_LEN + 1]);
/* The digest of an argv: each string with its terminating NUL. */
struct strv;
void	sha256_strv(const struct strv *, char out[SHA256_HEX_LEN + 1]);

#endif
