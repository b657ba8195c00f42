/*
 * fuzz-roundtrip: the console protocol decoder with an oracle, not only a
 * crash detector. Each round generates a submit whose strings mix plain
 * and escaped characters, surrogate pairs, control characters, C1, DEL,
 * and the hostile ones: \u0000 (cJSON cuts the string there), lone
 * surrogates (cJSON refuses them), raw invalid UTF-8, over-long paths. It
 * knows what each field should decode to, encodes the JSON line itself and
 * checks the decoder: a message with a hostile field is refused with a
 * cause naming one of those fields; any other is decoded to exactly the
 * bytes encoded (length included: a truncation is a failure).
 *
 *	fuzz-roundtrip			FUZZ_ITERATIONS rounds (default 5000)
 *	FUZZ_SEED=N fuzz-roundtrip	another sequence
 *
 * Prints TAP; a failure prints the line and the expectation.
 */
#include "autoconf.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "protocol.h"

static uint64_t	rng = 0x9e3779b97f4a7c15ULL;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static unsigned
pick(unsigned n)
{
	return (unsigned)(rnd() % n);
}

/* One generated string: its JSON text and what it must decode to. */
struct gen {
	struct buf	 json;		/* the JSON string token, quoted */
	struct buf	 want;		/* the bytes it decodes to */
	bool		 hostile;	/* \u0000, lone surrogate, bad UTF-8 */
	bool		 control;	/* C0, DEL or C1 (refused in paths) */
};

/* Append code point cp to b as UTF-8. */
static void
utf8_put(struct buf *b, uint32_t cp)
{
	char	s[4];
	size_t	n;

	if (cp < 0x80) {
		s[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		s[0] = (char)(0xc0 | cp >> 6);
		s[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		s[0] = (char)(0xe0 | cp >> 12);
		s[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		s[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		s[0] = (char)(0xf0 | cp >> 18);
		s[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		s[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		s[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	buf_add(b, s, n);
}

/* One character cp, written raw or escaped. */
static void
gen_char(struct gen *g, uint32_t cp)
{
	bool	escape = cp < 0x20 || cp == '"' || cp == '\\' || pick(3) == 0;

	if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f))
		g->control = true;
	utf8_put(&g->want, cp);
	if (!escape) {
		utf8_put(&g->json, cp);
		return;
	}
	if (cp == '"' || cp == '\\')
		buf_printf(&g->json, "\\%c", (char)cp);
	else if (cp == '\n' && pick(2))
		buf_puts(&g->json, "\\n");
	else if (cp < 0x10000)
		buf_printf(&g->json, "\\u%04x", cp);
	else {
		uint32_t v = cp - 0x10000;

		buf_printf(&g->json, "\\u%04x\\u%04x", 0xd800 + (v >> 10),
		    0xdc00 + (v & 0x3ff));
	}
}

/* A string of up to max pieces; path: starts with '/'. */
static void
gen_string(struct gen *g, unsigned max, bool path, bool hostile_ok)
{
	static const uint32_t	wide[] = { 0xe9, 0x10da, 0x5b57, 0x1f600,
				    0xfe0f, 0x200b, 0xfffd, 0x10ffff };
	unsigned		n = pick(max + 1);

	buf_reset(&g->json);
	buf_reset(&g->want);
	g->hostile = g->control = false;
	buf_putc(&g->json, '"');
	if (path) {
		buf_putc(&g->json, '/');
		buf_putc(&g->want, '/');
	}
	for (unsigned i = 0; i < n; i++) {
		unsigned k = pick(hostile_ok ? 40 : 34);

		if (k < 20)
			gen_char(g, 0x20 + pick(0x5f));		/* ASCII */
		else if (k < 24)
			gen_char(g, wide[pick(8)]);
		else if (k < 26)
			gen_char(g, 1 + pick(0x1f));		/* C0 */
		else if (k < 27)
			gen_char(g, 0x7f);
		else if (k < 28)
			gen_char(g, 0x80 + pick(0x20));		/* C1 */
		else if (k < 34)
			gen_char(g, pick(2) ? '"' : '\\');
		else if (k < 36) {
			buf_puts(&g->json, "\\u0000");
			g->hostile = true;
		} else if (k < 38) {
			/* a low half alone, or a high half before a plain
			   character: never a pair by accident */
			if (pick(2))
				buf_printf(&g->json, "\\u%04x", 0xdc00 +
				    pick(0x400));
			else
				buf_printf(&g->json, "\\u%04xx", 0xd800 +
				    pick(0x400));
			g->hostile = true;
		} else if (k < 39) {
			static const char *const bad[] = { "\xff", "\xc3",
			    "\xe2\x82", "\xed\xa0\x80", "\xc0\xaf" };

			buf_puts(&g->json, bad[pick(5)]);
			g->hostile = true;
		} else {
			/* over-long: beyond any path limit */
			for (int r = 0; r < 4200; r++)
				gen_char(g, 'a');
		}
	}
	buf_putc(&g->json, '"');
}

/* The fields of one message and what to expect of them. */
struct field {
	const char	*name;		/* as a cause names it */
	struct gen	 g;
	bool		 path;
};

static int	failures;

static void
fail(const char *line, const char *what, const char *cause)
{
	if (failures++ < 5) {
		printf("# FAIL: %s\n# line: ", what);
		for (const char *p = line; *p != '\0'; p++)
			printf((unsigned char)*p < 0x20 || (unsigned char)*p
			    >= 0x7f ? "\\x%02x" : "%c", (unsigned char)*p);
		printf("\n# cause: %s\n", cause != NULL ? cause : "(none)");
	}
}

/* Does decoded text s equal want, length included? */
static bool
same(const char *s, const struct buf *want)
{
	return s != NULL && strlen(s) == want->len && (want->len == 0 ||
	    memcmp(s, want->data, want->len) == 0);
}

static void
round_one(void)
{
	struct field	 f[6];
	struct buf	 line = BUF_INIT, want = BUF_INIT;
	struct proto_msg m = PROTO_MSG_INIT;
	char		*cause = NULL, name[32];
	unsigned	 nf = 0, mode = pick(3), nenv = pick(3);
	bool		 hostile = false, empty = false, ok = true;
	int		 rc;

	memset(f, 0, sizeof f);
	buf_puts(&line, "{\"type\":\"submit\"");
	if (mode == 0) {
		f[nf].name = "command";
		gen_string(&f[nf].g, 12, false, true);
		buf_printf(&line, ",\"command\":%s", f[nf].g.json.data);
		empty = f[nf].g.want.len == 0 ||
		    strspn(f[nf].g.want.data, " \t\n") == f[nf].g.want.len;
		nf++;
	} else if (mode == 1) {
		f[nf].name = "write.path";
		f[nf].path = true;
		gen_string(&f[nf].g, 6, true, true);
		f[nf + 1].name = "write.content";
		gen_string(&f[nf + 1].g, 16, false, true);
		buf_printf(&line, ",\"write\":{\"path\":%s,\"content\":%s}",
		    f[nf].g.json.data, f[nf + 1].g.json.data);
		nf += 2;
	} else {
		f[nf].name = "argv[0]";
		gen_string(&f[nf].g, 6, false, true);
		buf_printf(&line, ",\"argv\":[%s]", f[nf].g.json.data);
		empty = f[nf].g.want.len == 0;
		nf++;
	}
	if (pick(2)) {
		f[nf].name = "cwd";
		f[nf].path = true;
		gen_string(&f[nf].g, 6, true, true);
		buf_printf(&line, ",\"cwd\":%s", f[nf].g.json.data);
		nf++;
	}
	if (nenv > 0) {
		buf_puts(&line, ",\"env\":{");
		for (unsigned i = 0; i < nenv; i++) {
			f[nf].name = i == 0 ? "env.A" : "env.B_1";
			gen_string(&f[nf].g, 8, false, true);
			buf_printf(&line, "%s\"%s\":%s", i > 0 ? "," : "",
			    f[nf].name + 4, f[nf].g.json.data);
			nf++;
		}
		buf_putc(&line, '}');
	}
	buf_putc(&line, '}');
	for (unsigned i = 0; i < nf; i++) {
		if (f[i].g.hostile || (f[i].path && (f[i].g.control ||
		    f[i].g.want.len > 4095)))
			hostile = true;
	}

	rc = proto_decode(line.data, line.len, &m, &cause);
	if (empty) {	/* refused for that, or for a hostile field */
		if (rc == 0)
			fail(line.data, "an empty command was accepted", NULL);
		goto out;
	}
	if (hostile) {
		bool named = false;

		if (rc == 0) {
			fail(line.data, "a hostile field was accepted", NULL);
			goto out;
		}
		for (unsigned i = 0; i < nf; i++) {
			if (!(f[i].g.hostile || (f[i].path &&
			    (f[i].g.control || f[i].g.want.len > 4095))))
				continue;
			snprintf(name, sizeof name, "'%s'", f[i].name);
			named = named || strstr(cause, name) != NULL;
		}
		if (!named)
			fail(line.data, "the refusal names no hostile field",
			    cause);
		goto out;
	}
	if (rc != 0) {
		fail(line.data, "a clean message was refused", cause);
		goto out;
	}
	for (unsigned i = 0; i < nf && ok; i++) {
		const char *got = NULL;

		if (strcmp(f[i].name, "command") == 0)
			got = m.command;
		else if (strcmp(f[i].name, "write.path") == 0)
			got = m.write_path;
		else if (strcmp(f[i].name, "write.content") == 0)
			got = m.write_content;
		else if (strcmp(f[i].name, "argv[0]") == 0)
			got = m.argv.n == 1 ? m.argv.v[0] : NULL;
		else if (strcmp(f[i].name, "cwd") == 0)
			got = m.cwd;
		if (strncmp(f[i].name, "env.", 4) == 0) {
			buf_reset(&want);
			buf_printf(&want, "%s=", f[i].name + 4);
			buf_add(&want, f[i].g.want.data, f[i].g.want.len);
			ok = false;
			for (size_t k = 0; k < m.env.n; k++)
				ok = ok || same(m.env.v[k], &want);
		} else
			ok = same(got, &f[i].g.want);
		if (!ok) {
			snprintf(name, sizeof name, "field %s decoded to "
			    "other bytes", f[i].name);
			fail(line.data, name, got);
		}
	}
out:
	free(cause);
	proto_msg_release(&m);
	buf_release(&line);
	buf_release(&want);
	for (unsigned i = 0; i < 6; i++) {
		buf_release(&f[i].g.json);
		buf_release(&f[i].g.want);
	}
}

int
main(void)
{
	long	 iterations = 5000;
	char	*env;

	if ((env = getenv("FUZZ_ITERATIONS")) != NULL)
		iterations = atol(env);
	if ((env = getenv("FUZZ_SEED")) != NULL && atoll(env) != 0)
		rng = (uint64_t)atoll(env);
	printf("1..1\n");
	for (long i = 0; i < iterations; i++)
		round_one();
	if (failures > 0)
		printf("not ok 1 - %d of %ld generated messages broke the "
		    "round trip\n", failures, iterations);
	else
		printf("ok 1 - %ld generated messages: decoded exactly or "
		    "refused naming a hostile field\n", iterations);
	return failures > 0;
}
