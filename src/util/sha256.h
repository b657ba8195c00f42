/*
 * sha256: a small SHA-256 (FIPS 180-4), used to pin the exact content of
 * a trusted project rule file. No dependency; not for secrets or speed.
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

struct sha256 {
	uint32_t	h[8];
	uint64_t	len;		/* bytes hashed so far */
	uint8_t		block[64];
	size_t		used;		/* bytes waiting in block */
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
