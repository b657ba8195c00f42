/*
 * shquote-vs-shell: the quoting functions (src/util/shquote.c) against
 * the real shells. For random byte strings (every byte but NUL, weighted
 * to what shells treat specially: quotes, $, `, \, !, globs, braces, ~,
 * #, =, newlines, controls, invalid UTF-8), what the shell parses back
 * from the quoted form must be the input, byte for byte:
 *
 *	shell_squote	bash and dash (any POSIX shell), C and UTF-8 locales
 *	shell_quote	bash, C and UTF-8 locales
 *
 * One shell per batch: a script of lines `printf '%s\0' QUOTED`, its
 * output split at NUL and compared. Prints TAP; SHQUOTE_COUNT sets the
 * number of strings per form (default 20000). A shell that is missing is
 * skipped with the reason (bash is required).
 */
#include "autoconf.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "shquote.h"
#include "spawn.h"
#include "strv.h"
#include "xalloc.h"

static uint64_t	rnd_state = 0x2545f4914f6cdd1dULL;
static int	tests;

/* xorshift64: reproducible strings. */
static uint64_t
rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* A random string without NUL, weighted to shell syntax. */
static char *
random_word(void)
{
	static const char	special[] = "'\"$`\\!*?[]{}~#=;&|<>() \t\n\r"
	    "%^-@:,./+";
	static const char *const seqs[] = { "'\\''", "$'", "\\x41", "${x}",
	    "$(id)", "`id`", "!!", "~root", "\xff\xfe", "\xc3\xa9",
	    "\xe2\x80\xae", "\x1b[2J", "A=1", "=ls", "--opt=val", "\\\n" };
	struct buf	b = BUF_INIT;
	size_t		n = rnd() % 16, k;

	for (k = 0; k < n; k++) {
		switch (rnd() % 6) {
		case 0:
			buf_putc(&b, (char)(1 + rnd() % 255));
			break;
		case 1:
		case 2:
			buf_putc(&b, special[rnd() % (sizeof special - 1)]);
			break;
		case 3:
			buf_puts(&b, seqs[rnd() % (sizeof seqs /
			    sizeof *seqs)]);
			break;
		default:
			buf_putc(&b, (char)('a' + rnd() % 26));
			break;
		}
	}
	if (b.data == NULL)
		return xstrdup("");
	return buf_detach(&b);
}

/* Run shell on a script printing each quoted word; compare. */
static void
check(const char *shell, const char *locale, char *(*quote)(const char *),
    const char *qname, const struct strv *words)
{
	const char	*tmp = getenv("TMPDIR");
	char		*path = xasprintf("%s/bwgate-shquote.XXXXXX",
			    tmp != NULL && *tmp == '/' ? tmp : "/tmp");
	struct buf	 script = BUF_INIT, out = BUF_INIT;
	char		*q, *cause = NULL;
	const char	*p, *end;
	size_t		 i;
	int		 fd, status;
	bool		 ok = true;

	for (i = 0; i < words->n; i++) {
		q = quote(words->v[i]);
		buf_printf(&script, "printf '%%s\\0' %s\n", q);
		free(q);
	}
	if ((fd = mkstemp(path)) < 0 ||
	    write(fd, script.data, script.len) != (ssize_t)script.len) {
		printf("not ok %d - %s in %s (%s): cannot write the script\n",
		    ++tests, qname, shell, locale);
		free(path);
		return;
	}
	close(fd);
	setenv("LC_ALL", locale, 1);
	{
		char *const argv[] = { (char *)shell, path, NULL };

		status = spawn_capture(argv, SPAWN_SEARCH, 1, &out, 0, &cause);
	}
	unlink(path);
	free(path);
	if (status != 0) {
		printf("not ok %d - %s in %s (%s): the shell failed (%d%s%s)\n",
		    ++tests, qname, shell, locale, status,
		    cause != NULL ? ": " : "", cause != NULL ? cause : "");
		free(cause);
		buf_release(&script);
		buf_release(&out);
		return;
	}
	p = out.data != NULL ? out.data : "";
	end = p + out.len;
	for (i = 0; i < words->n; i++) {
		const char *nul = memchr(p, '\0', (size_t)(end - p));

		if (nul == NULL || strcmp(p, words->v[i]) != 0) {
			q = quote(words->v[i]);
			printf("# %s in %s (%s): word %zu, quoted as [%s], "
			    "parsed back as [%.*s]\n", qname, shell, locale,
			    i, q, nul != NULL ? (int)(nul - p) : 0, p);
			free(q);
			ok = false;
			break;
		}
		p = nul + 1;
	}
	if (ok && p != end) {
		printf("# %s in %s (%s): extra output\n", qname, shell,
		    locale);
		ok = false;
	}
	printf("%sok %d - %s in %s (%s): %zu random strings parse back "
	    "exactly\n", ok ? "" : "not ", ++tests, qname, shell, locale,
	    words->n);
	buf_release(&script);
	buf_release(&out);
}

/* Is a shell there? */
static bool
have(const char *shell)
{
	char	*p = spawn_which(shell);
	bool	 yes = p != NULL;

	free(p);
	return yes;
}

int
main(void)
{
	struct strv	 words = STRV_INIT;
	const char	*env = getenv("SHQUOTE_COUNT");
	long		 n = env != NULL ? atol(env) : 20000;
	static const char *const fixed[] = { "", "'", "A=1", "=ls", "a b",
	    "$'x'", "\n", "~", "#", "-", "\\", "\x01" "a", "\xff" };

	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
		strv_push(&words, fixed[i]);
	for (long i = 0; i < n; i++)
		strv_push_owned(&words, random_word());
	printf("1..7\n");
	if (!have("bash")) {
		printf("Bail out! bash is not installed\n");
		return 1;
	}
	check("bash", "C", shell_squote, "shell_squote", &words);
	check("bash", "C.UTF-8", shell_squote, "shell_squote", &words);
	check("bash", "C", shell_quote, "shell_quote", &words);
	check("bash", "C.UTF-8", shell_quote, "shell_quote", &words);
	if (have("dash")) {
		check("dash", "C", shell_squote, "shell_squote", &words);
		check("dash", "C.UTF-8", shell_squote, "shell_squote", &words);
	} else {
		printf("ok %d # SKIP dash is not installed\n", ++tests);
		printf("ok %d # SKIP dash is not installed\n", ++tests);
	}
	/* A first word is never left to be an assignment, no word is
	   zsh's =cmd; arguments and options with values stay readable. */
	{
		char	*a = shell_quote_first("A=1"), *b = shell_quote("=ls");
		char	*c = shell_quote("CC=gcc"), *d = shell_quote_first("1=x");
		char	*e = shell_quote_first("a+=1");

		printf("%sok %d - bare only where no shell reads more: "
		    "%s %s %s %s %s\n", strcmp(a, "'A=1'") == 0 &&
		    strcmp(b, "'=ls'") == 0 && strcmp(c, "CC=gcc") == 0 &&
		    strcmp(d, "1=x") == 0 && strcmp(e, "'a+=1'") == 0 ? "" :
		    "not ", ++tests, a, b, c, d, e);
		free(e);
		free(a);
		free(b);
		free(c);
		free(d);
	}
	strv_release(&words);
	return 0;
}
