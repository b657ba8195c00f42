/*
 * fuzz-shparse: fuzz the shell parser (shparse.c, shlex.c).
 *
 * Built with -DFUZZ_LIBFUZZER and -fsanitize=fuzzer it is a libFuzzer
 * target (tests/fuzz/run-shparse.sh does that). Built plainly (as 'make
 * check' does) it runs a deterministic mutation loop over seed commands
 * (FUZZ_ITERATIONS, default 20000; FUZZ_SEED picks the sequence), parses
 * the files named on the command line ("-" is stdin), with --write-seeds
 * DIR writes the seeds as a corpus, and with --commands prints the simple
 * commands of stdin for shparse-vs-bash.py; it prints TAP.
 *
 * Besides "no crash, no leak, no sanitizer report" every input checks:
 * errors are one line with an offset and leave the script empty; results
 * are well formed; sh_cmd_string, as shown, is one line; and quote removal
 * round-trips: re-parsing sh_cmd_string of literal words gives them back.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "display.h"
#include "shparse.h"
#include "strv.h"
#include "xalloc.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* The documented entries of script.unknown (shparse.h). */
static const char *const unknowns[] = {
	"control flow 'if'", "control flow 'for'", "control flow 'select'",
	"control flow 'while'", "control flow 'until'", "control flow 'case'",
	"function definition", "conditional '[[ ]]'",
	"arithmetic command '(( ))'", "background job '&'", "coprocess",
	"array assignment", "file descriptor variable '{name}>'", NULL
};

/* Words that would not be an ordinary command name when unquoted. */
static const char *const special_first[] = {
	"if", "then", "elif", "else", "fi", "do", "done", "case", "esac",
	"while", "until", "for", "select", "function", "time", "coproc",
	"in", NULL
};

#define FAIL(...) do {						\
	fprintf(stderr, "fuzz-shparse: " __VA_ARGS__);		\
	fputc('\n', stderr);					\
	abort();						\
} while (0)

/* A word is well formed. */
static void
check_word(const struct sh_word *w)
{
	if (w->text == NULL || w->raw == NULL)
		FAIL("word without text or raw");
	if ((w->flags & ~0xff) != 0)
		FAIL("word flags 0x%x out of range", w->flags);
}

/* Is s in the NULL-terminated list? */
static int
in_list(const char *const *list, const char *s)
{
	for (; *list != NULL; list++)
		if (strcmp(*list, s) == 0)
			return 1;
	return 0;
}

/*
 * Quote removal is consistent: a plain command of literal words, printed
 * by sh_cmd_string and parsed again, comes back as the same words.
 */
static void
check_roundtrip(const struct sh_cmd *c)
{
	struct sh_script	 s = SH_SCRIPT_INIT;
	char			*line, *cause = NULL;
	size_t			 i;

	/* (A first word that looks like an assignment comes back quoted,
	   so it is checked too.) */
	if (c->nwords == 0 || c->nassigns != 0 || c->nredirs != 0 ||
	    in_list(special_first, c->words[0].text))
		return;
	for (i = 0; i < c->nwords; i++)
		if (!SH_WORD_LITERAL(&c->words[i]))
			return;
	line = sh_cmd_string(c);
	if (sh_parse(line, &s, &cause) != 0)
		FAIL("round trip of '%s' failed: %s", line, cause);
	if (s.ncmds != 1 || s.cmds[0].nwords != c->nwords)
		FAIL("round trip of '%s' gave %zu commands", line, s.ncmds);
	for (i = 0; i < c->nwords; i++)
		if (strcmp(s.cmds[0].words[i].text, c->words[i].text) != 0 ||
		    !SH_WORD_LITERAL(&s.cmds[0].words[i]))
			FAIL("round trip of '%s': word %zu differs", line, i);
	sh_script_release(&s);
	free(line);
}

/* Parse one input and check everything that must hold. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sh_script	 s = SH_SCRIPT_INIT;
	const struct sh_cmd	*c;
	char			*cause = NULL, *str, *shown;
	size_t			 i, j;

	if (sh_parse_mem((const char *)data, size, &s, &cause) != 0) {
		if (cause == NULL || strchr(cause, '\n') != NULL ||
		    strstr(cause, " at ") == NULL)
			FAIL("bad cause '%s'", cause ? cause : "(null)");
		if (s.ncmds != 0 || s.cmds != NULL || s.unknown.n != 0)
			FAIL("script not empty after an error");
		free(cause);
		return 0;
	}
	if (cause != NULL)
		FAIL("cause set on success");
	for (i = 0; i < s.ncmds; i++) {
		c = &s.cmds[i];
		if ((c->flags & ~0x7f) != 0)
			FAIL("command flags 0x%x out of range", c->flags);
		for (j = 0; j < c->nassigns; j++)
			check_word(&c->assigns[j]);
		for (j = 0; j < c->nwords; j++)
			check_word(&c->words[j]);
		for (j = 0; j < c->nredirs; j++) {
			if (c->redirs[j].fd < -1 ||
			    c->redirs[j].op > SH_R_HERESTRING)
				FAIL("bad redirection");
			check_word(&c->redirs[j].target);
		}
		if (c->nwords == 0 && c->nassigns == 0 && c->nredirs == 0)
			FAIL("empty command %zu", i);
		/* Shown (display.c, as every caller does), one line. */
		str = sh_cmd_string(c);
		shown = display_escape(str);
		for (j = 0; shown[j] != '\0'; j++)
			if ((unsigned char)shown[j] < 0x20)
				FAIL("control character in '%s'", shown);
		free(shown);
		free(str);
		check_roundtrip(c);
	}
	for (i = 0; i < s.unknown.n; i++)
		if (!in_list(unknowns, s.unknown.v[i]))
			FAIL("undocumented unknown '%s'", s.unknown.v[i]);
	sh_script_release(&s);
	return 0;
}

#ifndef FUZZ_LIBFUZZER
#include "mutate.h"

static const char *const seeds[] = {
	"ls -la /tmp",
	"git status; curl http://x | sh",
	"find . -e''xec rm {} \\; -name \"*.c\"",
	"\"r\"m -rf / && \\rm x || fi\\\nnd .",
	"echo $'a\\n\\x41\\101\\u263a\\cA' $\"loc\" 'q' \"$x ${y:-z}\"",
	"cat <<EOF | sh\n$(id) `pwd` $((1+2))\nEOF\nls",
	"cat <<-'E'\n\tbody $x\n\tE\ncat <<<\"$x\" 2>&1 >out &>all 3<>f",
	"x=$(cat <<EOF\nhi\nEOF\n) y=(a b $(c)) z+=1 env",
	"if a; then b; elif c; then d; else e; fi | while read l; do f; done",
	"for x in *.c {a,b} ~/x; do echo \"$x\"; done; for ((i=0;i<3;i++)); "
	    "do :; done",
	"case $x in (a|b) ls;; *) rm x;& c) ;;& esac",
	"f() { g; }; function h { (i; j) > k; }",
	"[[ -f x && $y =~ ^(a|b)$ ]] && (( z++ )) || echo $[1+2]",
	"diff <(ls a) >(wc) 2>/dev/null |& tee f",
	"echo `echo \\`id\\`` $(echo $(echo $(id)))",
	"echo $(case x in x) echo hi;; esac) ${x#'}'}",
	"coproc ls; exec {fd}>file; time -p ! ls",
	"ls\r\nrm x \xc2\xa0 \xe2\x80\xae # comment $(x)",
	"echo $((echo a);(echo b)) $( (ls) ) ((ls) )",
	"a=(1\n2 # c\n) select x in a; do :; done",
};

static const char *const tokens[] = {
		"'", "\"", "`", "\\", "\\\n", "$", "$(", "$((", "${", "$'",
		"$\"", "$[", "(", ")", "((", "))", "{", "}", "[[", "]]", "<(",
		">(", "<<", "<<-", "<<<", "<", ">", ">>", "&>", ">&", "2>&1",
		"|", "|&", "&", "&&", "||", ";", ";;", ";&", "\n", "#", " ",
		"if ", "then ", "fi", "for ", "in ", "do ", "done", "case ",
		"esac", "while ", "function ", "=(", "x=", "EOF", "\nEOF\n",
		"*", "?", "[", "]", "~", ",", "..", "\\x41", "\\u263a", "\\c",
		"\r", "\xc2\xa0", "\xff", "\x01", "{fd}>",
	};

static const struct fuzz_corpus corpus = {
	seeds, sizeof seeds / sizeof *seeds,
	tokens, sizeof tokens / sizeof *tokens
};
/* Parse a whole file (or stdin for "-"). */
static int
run_file(const char *path)
{
	struct buf	 b = BUF_INIT;
	FILE		*f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	char		 chunk[65536];
	size_t		 n;

	if (f == NULL) {
		fprintf(stderr, "fuzz-shparse: cannot open '%s': %s\n", path,
		    strerror(errno));
		return -1;
	}
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(&b, chunk, n);
	if (f != stdin)
		fclose(f);
	LLVMFuzzerTestOneInput((const uint8_t *)(b.data ? b.data : ""),
	    b.len);
	buf_release(&b);
	return 0;
}

/*
 * --commands: parse stdin and print each simple command that has words as
 * its words, each ending in NUL (a word that is not literal is \002), then
 * \001. Exit 2 with the cause on stderr when the input does not parse.
 * tests/fuzz/shparse-vs-bash.py compares this with what bash runs.
 */
static int
print_commands(void)
{
	struct sh_script	 s = SH_SCRIPT_INIT;
	const struct sh_cmd	*c;
	struct buf		 b = BUF_INIT;
	char			*cause = NULL;
	size_t			 i, j;

	if (buf_read_fd(&b, 0, 0) != 0)
		return 1;
	if (sh_parse_mem(b.data ? b.data : "", b.len, &s, &cause) != 0) {
		fprintf(stderr, "%s\n", cause);
		free(cause);
		buf_release(&b);
		return 2;
	}
	for (i = 0; i < s.ncmds; i++) {
		c = &s.cmds[i];
		if (c->nwords == 0)
			continue;
		for (j = 0; j < c->nwords; j++) {
			if (SH_WORD_LITERAL(&c->words[j]))
				fputs(c->words[j].text, stdout);
			else
				putchar('\002');
			putchar('\0');
		}
		putchar('\001');
	}
	sh_script_release(&s);
	buf_release(&b);
	return 0;
}

/* Write each seed as a file of a corpus directory. */
static int
write_seeds(const char *dir)
{
	size_t	 i;
	char	*path;
	FILE	*f;

	for (i = 0; i < sizeof seeds / sizeof *seeds; i++) {
		path = xasprintf("%s/seed-%02zu", dir, i);
		if ((f = fopen(path, "wb")) == NULL) {
			fprintf(stderr, "fuzz-shparse: cannot write '%s': "
			    "%s\n", path, strerror(errno));
			free(path);
			return 1;
		}
		fwrite(seeds[i], 1, strlen(seeds[i]), f);
		fclose(f);
		free(path);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static uint8_t	 buf[8192];
	const char	*env;
	long		 iterations = 20000, i;
	int		 k, bad = 0;
	size_t		 n;

	if (argc == 3 && strcmp(argv[1], "--write-seeds") == 0)
		return write_seeds(argv[2]);
	if (argc == 2 && strcmp(argv[1], "--commands") == 0)
		return print_commands();
	if (argc > 1) {
		for (k = 1; k < argc; k++)
			if (run_file(argv[k]) != 0)
				bad = 1;
		return bad;
	}
	if ((env = getenv("FUZZ_ITERATIONS")) != NULL)
		iterations = atol(env);
	if ((env = getenv("FUZZ_SEED")) != NULL)
		fuzz_seed((uint64_t)atoll(env));
	printf("1..2\n");
	for (n = 0; n < sizeof seeds / sizeof *seeds; n++)
		LLVMFuzzerTestOneInput((const uint8_t *)seeds[n],
		    strlen(seeds[n]));
	printf("ok 1 - %zu seed commands parsed and checked\n", n);
	for (i = 0; i < iterations; i++) {
		n = fuzz_mutate(&corpus, (size_t)i, buf, sizeof buf);
		LLVMFuzzerTestOneInput(buf, n);
	}
	printf("ok 2 - %ld mutated inputs parsed and checked\n", iterations);
	return 0;
}
#endif
