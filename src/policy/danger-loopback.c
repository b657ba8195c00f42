/*
 * danger-loopback: does a download command (curl, wget, ...) name only
 * the loopback? A sandbox without network runs in its project's pod
 * (src/sandbox/pod.h), whose loopback holds the project's own servers and
 * nothing of the host's, so `curl localhost:3000` needs no network: the
 * needs entry with "unless_loopback" does not hold for it. Not a security
 * decision (the sandbox can reach nothing else, whatever the words say);
 * a word that may name another host keeps the need (an over-ask at worst).
 */
#include "autoconf.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "danger.h"

/* Options of curl, wget and httpie that take the next word as a value
   (a file, a header, data): never a host. */
static const char *const loopback_values[] = { "-o", "--output", "-w",
    "--write-out", "-H", "--header", "-d", "--data", "--data-raw",
    "--data-binary", "--data-urlencode", "--json", "-X", "--request",
    "-A", "--user-agent", "-m", "--max-time", "--connect-timeout", "-u",
    "--user", "-b", "--cookie", "-c", "--cookie-jar", "-F", "--form",
    "-e", "--referer", "--retry", "--retry-delay", "-O",
    "--output-document", "-T", "--upload-file", "-D", "--dump-header",
    "-r", "--range", NULL };

/* Is the host (up to ':', '/' or the end) a loopback name? */
static bool
loopback_host(const char *h)
{
	size_t	 n;

	if (strncmp(h, "[::1]", 5) == 0)
		return h[5] == '\0' || h[5] == ':' || h[5] == '/';
	n = strcspn(h, ":/?#");
	if ((n == 9 && strncmp(h, "localhost", 9) == 0) ||
	    (n == 7 && strncmp(h, "0.0.0.0", 7) == 0))
		return true;
	if (n < 4 || n > 15 || strncmp(h, "127.", 4) != 0)
		return false;
	for (size_t i = 4; i < n; i++)
		if (strchr("0123456789.", h[i]) == NULL)
			return false;
	return true;
}

/* What a word says: 1 a loopback URL, -1 maybe another host, 0 neither. */
static int
loopback_word(const char *t)
{
	const char	*p = strstr(t, "://");
	const char	*dot;

	if (p != NULL) {
		p += 3;
		if (strchr(p, '@') != NULL &&
		    strchr(p, '@') < p + strcspn(p, "/"))
			return -1;	/* user@host: say maybe */
		return loopback_host(p) ? 1 : -1;
	}
	if (loopback_host(t))
		return 1;
	/* host.tld, host:port: maybe another host. */
	dot = strchr(t, '.');
	if (strchr(t, ':') != NULL || (dot != NULL && dot != t &&
	    strchr(t, '/') == NULL))
		return -1;
	return 0;
}

bool
danger_loopback_only(const struct sh_cmd *c, size_t from)
{
	bool	 loop = false, ended = false;

	for (size_t i = from; i < c->nwords; i++) {
		const char	*t = c->words[i].text;
		size_t		 k;
		int		 w;

		if (!SH_WORD_LITERAL(&c->words[i]))
			return false;
		if (!ended && strcmp(t, "--") == 0) {
			ended = true;
			continue;
		}
		if (!ended && t[0] == '-') {
			for (k = 0; loopback_values[k] != NULL; k++)
				if (strcmp(t, loopback_values[k]) == 0)
					break;
			if (loopback_values[k] != NULL)
				i++;	/* its value */
			else if (strncmp(t, "-x", 2) == 0 ||
			    strncmp(t, "--proxy", 7) == 0 ||
			    strncmp(t, "--url", 5) == 0 ||
			    strncmp(t, "--resolve", 9) == 0 ||
			    strncmp(t, "--connect-to", 12) == 0 ||
			    strncmp(t, "--unix-socket", 13) == 0 ||
			    strncmp(t, "--abstract-unix-socket", 22) == 0)
				return false;
			continue;
		}
		if ((w = loopback_word(t)) < 0)
			return false;
		if (w > 0)
			loop = true;
	}
	return loop;
}
