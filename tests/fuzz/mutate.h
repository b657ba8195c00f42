/*
 * mutate: the plain (non-libFuzzer) fuzz drivers' shared mutation loop.
 *
 * Deterministic (xorshift64, seedable), so a failure reproduces:
 *
 *	static const struct fuzz_corpus c = { seeds, nseeds, tokens, ntokens };
 *	n = fuzz_mutate(&c, i, buf, sizeof buf);	from seed i % nseeds
 *	LLVMFuzzerTestOneInput(buf, n);
 */
#ifndef BWGATE_FUZZ_MUTATE_H
#define BWGATE_FUZZ_MUTATE_H

#include <stddef.h>
#include <stdint.h>

struct fuzz_corpus {
	const char *const	*seeds;
	size_t			 nseeds;
	const char *const	*tokens;	/* "" stands for one NUL byte */
	size_t			 ntokens;
};

/* Set the generator's state (0 keeps the default). */
void	fuzz_seed(uint64_t);
/* A mutated copy of seed i (flip, delete, insert a token, splice another
   seed, overwrite a byte) in out; returns its length. */
size_t	fuzz_mutate(const struct fuzz_corpus *, size_t i, uint8_t *out,
	    size_t cap);
/* A target's driver: each file named in argv once, else "1..1" and
   $FUZZ_ITERATIONS (default iterations) mutated inputs through one.
   The number of mutated inputs run; -1 when it ran files. */
long	fuzz_run(int argc, char **argv, const struct fuzz_corpus *,
	    long iterations, int (*one)(const uint8_t *, size_t));

#endif
