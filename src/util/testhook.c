/* testhook: the variables that exist only for the tests (testhook.h). */
#include "autoconf.h"

#include <stdlib.h>

#include "testhook.h"

static const char *const testhook_names[] = {
	/* A hosts file ("address name...") the proxy resolves names with
	   instead of the system's resolver: a test never reaches the
	   internet (netproxy-conn.c). */
	[TESTHOOK_NET_HOSTS] = "BWGATE_NET_HOSTS",
	/* The proxy's relay idle timeout in milliseconds, shorter than 15
	   minutes so a test sees it (netproxy.c). */
	[TESTHOOK_NET_IDLE_MS] = "BWGATE_NET_IDLE_MS",
	/* The program that opens the proxy's socket in a sandbox's
	   namespace, for a test that makes it fail (netproxy.c, doctor). */
	[TESTHOOK_NETLISTEN] = "BWGATE_NETLISTEN",
	/* The user-mode network program, or a missing one (netbackend.c). */
	[TESTHOOK_SLIRP4NETNS] = "BWGATE_SLIRP4NETNS",
	/* The live monitor's watch limit, small so a test overflows it
	   (monitor.c). */
	[TESTHOOK_MONITOR_MAX_WATCHES] = "BWGATE_MONITOR_MAX_WATCHES",
	/* 1: the monitor waits before it reads, so a test fills its queue
	   (monitor.c). */
	[TESTHOOK_MONITOR_PAUSE] = "BWGATE_MONITOR_PAUSE",
};

const char *
testhook_name(enum testhook h)
{
	return testhook_names[h];
}

const char *
testhook_get(enum testhook h)
{
	return getenv(testhook_names[h]);
}
