/*
 * testhook: the environment variables that exist only for the tests, in
 * one place. Production code reads none of them but through
 * testhook_get(); the table in testhook.c names each one, what it
 * changes and why a test needs it, and tests/build/testhooks.sh fails
 * when one of their names appears anywhere else in src/ or ui/. An
 * operator never needs them (doc/bwgate.1, ENVIRONMENT: "For tests
 * only").
 *
 *	const char *file = testhook_get(TESTHOOK_NET_HOSTS);
 *	if (file != NULL) ... the test's hosts file ...
 */
#ifndef BWGATE_TESTHOOK_H
#define BWGATE_TESTHOOK_H

enum testhook {
	TESTHOOK_NET_HOSTS,		/* BWGATE_NET_HOSTS */
	TESTHOOK_NET_IDLE_MS,		/* BWGATE_NET_IDLE_MS */
	TESTHOOK_NETLISTEN,		/* BWGATE_NETLISTEN */
	TESTHOOK_SLIRP4NETNS,		/* BWGATE_SLIRP4NETNS */
	TESTHOOK_MONITOR_MAX_WATCHES,	/* BWGATE_MONITOR_MAX_WATCHES */
	TESTHOOK_MONITOR_PAUSE,		/* BWGATE_MONITOR_PAUSE */
};

/* The variable's value, or NULL when it is not set. */
const char	*testhook_get(enum testhook);
/* The variable's name (libexec_find() takes a name). */
const char	*testhook_name(enum testhook);

#endif
