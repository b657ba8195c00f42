#include "autoconf.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libexec.h"
#include "xalloc.h"

#ifndef LIBEXECDIR
#define LIBEXECDIR "/usr/local/libexec/bwgate"
#endif

/* p (taken) when it can be run, else NULL. */
static char *
libexec_try(char *p)
{
	if (access(p, X_OK) == 0)
		return p;
	free(p);
	return NULL;
}

char *
libexec_find(const char *name, const char *env)
{
	const char	*set = env != NULL ? getenv(env) : NULL;
	char		 self[PATH_MAX], *slash, *p;
	ssize_t		 n;

	if (set != NULL && *set != '\0')
		return libexec_try(xstrdup(set));
	n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			*slash = '\0';
			if ((p = libexec_try(xasprintf("%s/%s", self,
			    name))) != NULL ||
			    (p = libexec_try(xasprintf("%s/../libexec/bwgate/%s",
			    self, name))) != NULL)
				return p;
		}
	}
	return libexec_try(xasprintf("%s/%s", LIBEXECDIR, name));
}
