/*
 * netbackend: find slirp4netns and build its command line.
 *
 * slirp4netns (Debian package slirp4netns) is chosen over pasta because
 * it is in every current distribution, has a ready descriptor and an exit
 * descriptor (so the engine knows when the network is up and can stop it
 * without signals) and refuses host loopback with one option.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netbackend.h"
#include "testhook.h"
#include "xalloc.h"

static const char *const netbackend_dirs[] = {
	"/usr/bin", "/usr/local/bin", "/bin", "/usr/sbin", "/sbin", NULL
};

char *
netbackend_find(void)
{
	const char	*env = testhook_get(TESTHOOK_SLIRP4NETNS);
	char		*p;

	if (env != NULL) {
		if (env[0] == '/' && access(env, X_OK) == 0)
			return xstrdup(env);
		return NULL;
	}
	/* Fixed directories, not $PATH: the operator's PATH may hold a
	   directory an agent can write. */
	for (const char *const *d = netbackend_dirs; *d != NULL; d++) {
		p = xasprintf("%s/slirp4netns", *d);
		if (access(p, X_OK) == 0)
			return p;
		free(p);
	}
	return NULL;
}

const char *
netbackend_missing(void)
{
	return "network on needs slirp4netns, which is not installed "
	    "(install the 'slirp4netns' package); bwgate never shares the "
	    "host's network";
}

void
netbackend_argv(struct strv *av, const char *path, int userns_fd,
    int netns_fd, int ready_fd, int exit_fd)
{
	strv_push(av, path);
	strv_push(av, "--configure");
	strv_push(av, "--mtu=65520");
	/* 10.0.2.2 would otherwise be the host's 127.0.0.1. */
	strv_push(av, "--disable-host-loopback");
	strv_pushf(av, "--ready-fd=%d", ready_fd);
	strv_pushf(av, "--exit-fd=%d", exit_fd);
	/* An ordinary user may enter the network namespace only from the
	   user namespace that owns it (bwrap's outer one: with
	   --disable-userns the command sits in a nested one). Both are
	   passed as descriptors, so a recycled pid cannot redirect them. */
	strv_push(av, "--netns-type=path");
	strv_pushf(av, "--userns-path=/proc/self/fd/%d", userns_fd);
	strv_pushf(av, "/proc/self/fd/%d", netns_fd);
	strv_push(av, "tap0");
}
