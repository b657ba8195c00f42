/*
 * bwgate-netlisten: open the proxy's listening socket inside a sandbox's
 * network namespace and hand it back to bwgate.
 *
 *	bwgate-netlisten USERNS_FD NETNS_FD SOCK_FD PORT
 *
 * It enters the user namespace owning the sandbox's network namespace and
 * then that network namespace (as slirp4netns does; setns needs a single
 * threaded process, hence a program of its own), binds 127.0.0.1:PORT
 * there, and sends the listening socket over SOCK_FD (SCM_RIGHTS). A
 * socket stays in the namespace it was made in: bwgate, outside, accepts
 * connections that can only come from inside that one sandbox, and its
 * own connections out are made in the host's namespace. Nothing runs in
 * the sandbox and no path is bound into it.
 *
 * Exit status 0 when the socket was sent; otherwise one line on stderr.
 */
#include "autoconf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fdpass.h"

/* A descriptor argument, or -1. */
static int
netlisten_fd(const char *s)
{
	char	*end;
	long	 v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < 0 || v > INT_MAX)
		return -1;
	return (int)v;
}

int
main(int argc, char **argv)
{
	struct sockaddr_in	sin;
	int			userns, netns, sock, port, fd, one = 1;

	if (argc != 5 || (userns = netlisten_fd(argv[1])) < 0 ||
	    (netns = netlisten_fd(argv[2])) < 0 ||
	    (sock = netlisten_fd(argv[3])) < 0 ||
	    (port = netlisten_fd(argv[4])) < 1 || port > 65535) {
		fprintf(stderr, "usage: bwgate-netlisten USERNS_FD NETNS_FD "
		    "SOCK_FD PORT\n");
		return 2;
	}
	/* As root outside any user namespace of ours, entering the owner
	   is allowed and harmless; an ordinary user needs it. */
	if (setns(userns, CLONE_NEWUSER) != 0 && errno != EINVAL) {
		fprintf(stderr, "cannot enter the sandbox's user namespace: "
		    "%s\n", strerror(errno));
		return 1;
	}
	if (setns(netns, CLONE_NEWNET) != 0) {
		fprintf(stderr, "cannot enter the sandbox's network namespace: "
		    "%s\n", strerror(errno));
		return 1;
	}
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) {
		fprintf(stderr, "cannot make the proxy's socket: %s\n",
		    strerror(errno));
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons((unsigned short)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof sin) != 0 ||
	    listen(fd, 128) != 0) {
		fprintf(stderr, "cannot listen on 127.0.0.1:%d in the "
		    "sandbox: %s\n", port, strerror(errno));
		return 1;
	}
	if (fdpass_send(sock, "L", 1, &fd, 1) != 0) {
		fprintf(stderr, "cannot hand the socket to bwgate: %s\n",
		    strerror(errno));
		return 1;
	}
	return 0;
}
