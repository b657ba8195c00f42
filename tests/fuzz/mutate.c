/* mutate: deterministic input mutation for the plain fuzz drivers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mutate.h"

static uint64_t	rng = 0x9e3779b97f4a7c15ull;

/* xorshift64. */
static uint64_t
next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

void
fuzz_seed(uint64_t s)
{
	if (s != 0)
		rng = s;
}

/* Insert n bytes at pos if they fit. */
static size_t
insert(uint8_t *out, size_t len, size_t cap, size_t pos, const void *p,
    size_t n)
{
	if (len + n > cap)
		return len;
	memmove(out + pos + n, out + pos, len - pos);
	memcpy(out + pos, p, n);
	return len + n;
}

size_t
fuzz_mutate(const struct fuzz_corpus *c, size_t i, uint8_t *out, size_t cap)
{
	const char	*seed = c->seeds[i % c->nseeds], *t, *other;
	size_t		 len = strlen(seed), n = 1 + next() % 8, pos, tl, ol;

	if (len > cap)
		len = cap;
	memcpy(out, seed, len);
	while (n-- > 0) {
		pos = len == 0 ? 0 : next() % (len + 1);
		switch (next() % 6) {
		case 0:
			if (pos < len)
				out[pos] ^= (uint8_t)(1u << (next() % 8));
			break;
		case 1:
			if (pos < len) {
				memmove(out + pos, out + pos + 1,
				    len - pos - 1);
				len--;
			}
			break;
		case 2:
		case 3:
			t = c->tokens[next() % c->ntokens];
			tl = strlen(t);
			len = insert(out, len, cap, pos, t, tl == 0 ? 1 : tl);
			break;
		case 4:
			/* Splice in the end of another seed. */
			other = c->seeds[next() % c->nseeds];
			ol = strlen(other);
			tl = next() % (ol + 1);
			len = insert(out, len, cap, pos, other + (ol - tl), tl);
			break;
		default:
			if (pos < len)
				out[pos] = (uint8_t)next();
			break;
		}
	}
	return len;
}

long
fuzz_run(int argc, char **argv, const struct fuzz_corpus *c, long iterations,
    int (*one)(const uint8_t *, size_t))
{
	uint8_t		 buf[4096];
	const char	*env = getenv("FUZZ_ITERATIONS");

	if (argc > 1) {
		for (int i = 1; i < argc; i++) {
			FILE	*f = fopen(argv[i], "rb");
			size_t	 n;

			if (f == NULL)
				continue;
			n = fread(buf, 1, sizeof buf, f);
			fclose(f);
			one(buf, n);
		}
		return -1;
	}
	if (env != NULL)
		iterations = atol(env);
	printf("1..1\n");
	for (long i = 0; i < iterations; i++)
		one(buf, fuzz_mutate(c, (size_t)i, buf, sizeof buf));
	return iterations;
}
