/* pathglob: table entries with glob components against a path (pathglob.h). */
#include "autoconf.h"

#include <fnmatch.h>
#include <locale.h>
#include <pthread.h>
#include <string.h>

#include "pathglob.h"

static locale_t		c_locale = (locale_t)0;
static pthread_once_t	c_once = PTHREAD_ONCE_INIT;

static void
c_locale_make(void)
{
	c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

static bool
ascii(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s >= 0x80)
			return false;
	return true;
}

bool
pathglob_fnmatch(const char *pattern, const char *s)
{
	locale_t	old;
	int		rc;

	if (!ascii(pattern) || !ascii(s))
		return fnmatch(pattern, s, 0) == 0;
	pthread_once(&c_once, c_locale_make);
	if (c_locale == (locale_t)0)
		return fnmatch(pattern, s, 0) == 0;
	old = uselocale(c_locale);
	rc = fnmatch(pattern, s, 0);
	uselocale(old);
	return rc == 0;
}

/* Does the component s (n bytes) match the entry component p (pn)? */
static bool
pathglob_comp(const char *p, size_t pn, const char *s, size_t n)
{
	char	 pb[256], sb[256];

	if (strcspn(p, "*?[") >= pn)
		return pn == n && strncmp(p, s, n) == 0;
	if (pn >= sizeof pb || n >= sizeof sb)
		return false;
	memcpy(pb, p, pn);
	pb[pn] = '\0';
	memcpy(sb, s, n);
	sb[n] = '\0';
	return pathglob_fnmatch(pb, sb);
}

/* The entry against the path from s on. */
static enum pathglob_match
pathglob_at(const char *p, const char *s)
{
	while (*p != '\0') {
		size_t	 pn = strcspn(p, "/"), n;

		if (*s == '\0')
			return PATHGLOB_ANCESTOR;
		n = strcspn(s, "/");
		if (!pathglob_comp(p, pn, s, n))
			return PATHGLOB_NONE;
		p += pn + (p[pn] == '/');
		s += n + (s[n] == '/');
	}
	return PATHGLOB_WITHIN;
}

enum pathglob_match
pathglob_match(const char *entry, bool any, const char *rel)
{
	enum pathglob_match	 m, best = PATHGLOB_NONE;

	if (*entry == '\0')
		return PATHGLOB_NONE;
	if (*rel == '\0')
		return PATHGLOB_ANCESTOR;
	for (const char *s = rel; s != NULL;) {
		if ((m = pathglob_at(entry, s)) == PATHGLOB_WITHIN)
			return m;
		if (m == PATHGLOB_ANCESTOR)
			best = m;
		if (!any)
			break;
		if ((s = strchr(s, '/')) != NULL)
			s++;
	}
	return best;
}
