/*
 * fdpass: descriptors over a unix socket (fdpass.h).
 */
#include "autoconf.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fdpass.h"

/* Room for FDPASS_MAX descriptors, aligned for a cmsghdr. */
union fdpass_control {
	struct cmsghdr	h;
	char		buf[CMSG_SPACE(FDPASS_MAX * sizeof(int))];
};

int
fdpass_send(int sock, const void *buf, size_t len, const int *fds,
    size_t nfds)
{
	struct iovec		 iov = { (void *)(uintptr_t)buf, len };
	struct msghdr		 mh;
	union fdpass_control	 u;
	struct cmsghdr		*c;

	if (nfds > FDPASS_MAX || len == 0) {
		errno = EINVAL;
		return -1;
	}
	memset(&mh, 0, sizeof mh);
	memset(&u, 0, sizeof u);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (nfds > 0) {
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, nfds * sizeof(int));
	}
	while (sendmsg(sock, &mh, MSG_NOSIGNAL) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

ssize_t
fdpass_recv(int sock, void *buf, size_t len, int *fds, size_t nfds,
    int flags)
{
	struct iovec		 iov = { buf, len };
	struct msghdr		 mh;
	union fdpass_control	 u;
	struct cmsghdr		*c;
	size_t			 got = 0, k;
	ssize_t			 n;
	int			 fd;

	for (k = 0; k < nfds; k++)
		fds[k] = -1;
	memset(&mh, 0, sizeof mh);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = u.buf;
	mh.msg_controllen = sizeof u.buf;
	while ((n = recvmsg(sock, &mh, flags | MSG_CMSG_CLOEXEC)) < 0 &&
	    errno == EINTR)
		;
	for (c = n >= 0 ? CMSG_FIRSTHDR(&mh) : NULL; c != NULL;
	    c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		for (k = 0; k < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		    k++) {
			memcpy(&fd, CMSG_DATA(c) + k * sizeof(int), sizeof fd);
			if (got < nfds)
				fds[got++] = fd;
			else
				close(fd);
		}
	}
	return n;
}
