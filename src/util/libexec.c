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

char *
libexec_find(const char *name, const char *env)
{
	const char	*set = env != NULL ? getenv(env) : NULL;
	char		 self[PATH_MAX], *slash, *p;
	ssize_t		 n;

	if (set != NULL && *set != '\0')
		return access(set, X_OK) == 0 ? xstrdup(set) : NULL;
	n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			*slash = '\0';
			p = xasprintf("%s/%s", self, name);
			if (access(p, X_OK) == 0)
				return p;
			free(p);
			p = xasprintf("%s/../libexec/bwgate/%s", self, name);
			if (access(p, X_OK) == 0)
				return p;
			free(p);
		}
	}
	p = xasprintf("%s/%s", LIBEXECDIR, name);
	if (access(p, X_OK) == 0)
		return p;
	free(p);
	return NULL;
}
