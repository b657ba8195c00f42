/*
 * optparse-sed: the sed-print script checker (the "script" key of a rule
 * grammar, see optparse.h).
 */
#include "autoconf.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "optparse.h"
#include "xalloc.h"

/*
 * sed print scripts. Accepted: addresses (N, $, first~step, /re/ and
 * \cREc with I/M flags, addr1,addr2, addr,+N, addr,~N, 0,/re/, "!"),
 * blocks { }, and the commands p P = l [N] q [N] Q [N] separated by ';'
 * or newlines. Everything else (s, y, w, W, r, R, e, a, i, c, comments,
 * labels and branches) is refused, so no script can write, read another
 * file or run a program.
 */

/* Skip blanks within a line. */
static const char *
sed_skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* Parse a regex address delimited by delim at *pp (after the opener). */
static int
sed_regex(const char **pp, char delim)
{
	const char	*p = *pp;

	for (; *p != '\0' && *p != delim; p++) {
		if (*p == '\n')
			return -1;
		if (*p == '\\') {
			if (p[1] == '\0' || p[1] == '\n')
				return -1;
			p++;
		}
	}
	if (*p != delim)
		return -1;
	p++;
	while (*p == 'I' || *p == 'M')
		p++;
	*pp = p;
	return 0;
}

/* Parse one address at *pp; 1 if one was found, 0 if none, -1 on error. */
static int
sed_address(const char **pp, bool second)
{
	const char	*p = *pp;

	if (second && (*p == '+' || *p == '~')) {
		p++;
		if (!isdigit((unsigned char)*p))
			return -1;
		while (isdigit((unsigned char)*p))
			p++;
	} else if (isdigit((unsigned char)*p)) {
		while (isdigit((unsigned char)*p))
			p++;
		if (*p == '~') {
			p++;
			if (!isdigit((unsigned char)*p))
				return -1;
			while (isdigit((unsigned char)*p))
				p++;
		}
	} else if (*p == '$')
		p++;
	else if (*p == '/') {
		p++;
		if (sed_regex(&p, '/') != 0)
			return -1;
	} else if (*p == '\\') {
		p++;
		if (*p == '\0' || *p == '\n' || *p == '\\')
			return -1;
		p++;
		if (sed_regex(&p, p[-1]) != 0)
			return -1;
	} else
		return 0;
	*pp = p;
	return 1;
}

/* The sed-print checker: 0 for a print-only script. */
int
opt_sed_print(const char *script, char **why)
{
	const char	*p = script;
	int		 depth = 0, r;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == ';')
			p++;
		if (*p == '\0')
			break;
		if (*p == '}') {
			if (--depth < 0)
				goto bad;
			p++;
			continue;
		}
		if ((r = sed_address(&p, false)) < 0)
			goto bad;
		if (r == 1) {
			p = sed_skip_space(p);
			if (*p == ',') {
				p = sed_skip_space(p + 1);
				if (sed_address(&p, true) != 1)
					goto bad;
			}
		}
		p = sed_skip_space(p);
		while (*p == '!')
			p = sed_skip_space(p + 1);
		switch (*p) {
		case '{':
			depth++;
			p++;
			continue;
		case 'p': case 'P': case '=':
			p++;
			break;
		case 'l': case 'q': case 'Q':
			p = sed_skip_space(p + 1);
			while (isdigit((unsigned char)*p))
				p++;
			break;
		default:
			goto bad;
		}
		p = sed_skip_space(p);
		if (*p != '\0' && *p != ';' && *p != '\n' && *p != '}')
			goto bad;
	}
	if (depth != 0)
		goto bad;
	return 0;
bad:
	*why = xasprintf("sed script '%s' is not a print-only script "
	    "(only addresses with p, P, =, l, q and Q are known to be "
	    "harmless)", script);
	return -1;
}
