/*
 * auditfault: an LD_PRELOAD shim that makes writes and syncs of the audit
 * log fail on demand, where no small file system can be mounted (an
 * ordinary user, a nested run). The test writes "enospc" or "eio" into the
 * file named by $BWGATE_FAULT_CTL to inject, and removes it to recover.
 * Only descriptors whose file name starts with "audit.jsonl" are touched.
 */
#define _GNU_SOURCE 1

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

/* The error to inject now, or 0. */
static int
fault_now(int fd)
{
	const char	*ctl = getenv("BWGATE_FAULT_CTL");
	char		 link[64], path[4096], what[16];
	const char	*base;
	ssize_t		 n;
	int		 cfd;

	if (ctl == NULL)
		return 0;
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	if ((n = readlink(link, path, sizeof path - 1)) <= 0)
		return 0;
	path[n] = '\0';
	base = strrchr(path, '/');
	base = base != NULL ? base + 1 : path;
	if (strncmp(base, "audit.jsonl", 11) != 0)
		return 0;
	if ((cfd = open(ctl, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(cfd, what, sizeof what - 1);
	close(cfd);
	if (n <= 0)
		return 0;
	what[n] = '\0';
	if (strncmp(what, "enospc", 6) == 0)
		return ENOSPC;
	if (strncmp(what, "eio", 3) == 0)
		return EIO;
	return 0;
}

ssize_t
write(int fd, const void *buf, size_t n)
{
	static ssize_t	(*real)(int, const void *, size_t);
	int		 e;

	if (real == NULL)
		real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT,
		    "write");
	if ((e = fault_now(fd)) != 0) {
		errno = e;
		return -1;
	}
	return real(fd, buf, n);
}

int
fsync(int fd)
{
	static int	(*real)(int);
	int		 e;

	if (real == NULL)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	if ((e = fault_now(fd)) != 0) {
		errno = e;
		return -1;
	}
	return real(fd);
}

int
fdatasync(int fd)
{
	static int	(*real)(int);
	int		 e;

	if (real == NULL)
		real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
	if ((e = fault_now(fd)) != 0) {
		errno = e;
		return -1;
	}
	return real(fd);
}
