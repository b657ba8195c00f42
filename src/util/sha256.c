/* sha256: SHA-256 (FIPS 180-4) by libcrypto (sha256.h). */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sha256.h"
#include "strv.h"

void
sha256_init(struct sha256 *s)
{
	SHA256_Init(&s->c);
}

void
sha256_update(struct sha256 *s, const void *data, size_t n)
{
	SHA256_Update(&s->c, data, n);
}

void
sha256_final(struct sha256 *s, uint8_t out[SHA256_LEN])
{
	SHA256_Final(out, &s->c);
}

/* One-shot hex digest. */
void
sha256_hex(const void *data, size_t n, char out[SHA256_HEX_LEN + 1])
{
	struct sha256	s;
	uint8_t		d[SHA256_LEN];
	int		i;

	sha256_init(&s);
	sha256_update(&s, data, n);
	sha256_final(&s, d);
	for (i = 0; i < SHA256_LEN; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* Hex digest of a finished context. */
static void
sha256_final_hex(struct sha256 *s, char out[SHA256_HEX_LEN + 1])
{
	uint8_t	d[SHA256_LEN];
	int	i;

	sha256_final(s, d);
	for (i = 0; i < SHA256_LEN; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* Digest of a file's content. */
int
sha256_file(const char *path, char out[SHA256_HEX_LEN + 1])
{
	struct sha256	s;
	char		buf[1 << 16];
	ssize_t		n;
	int		fd, e;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	sha256_init(&s);
	while ((n = read(fd, buf, sizeof buf)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		sha256_update(&s, buf, (size_t)n);
	}
	close(fd);
	sha256_final_hex(&s, out);
	return 0;
}

/* Digest of an argv, NUL-separated so word boundaries count. */
void
sha256_strv(const struct strv *sv, char out[SHA256_HEX_LEN + 1])
{
	struct sha256	s;

	sha256_init(&s);
	for (size_t i = 0; i < sv->n; i++)
		sha256_update(&s, sv->v[i], strlen(sv->v[i]) + 1);
	sha256_final_hex(&s, out);
}
