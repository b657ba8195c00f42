/*
 * observe-listener: which process listens on a port the command reached
 * (report "project_services"). A connection to the project's loopback is
 * a service's own access at work (pod.h, sandbox_pod_peer); the report
 * names the service by the command line of the process holding the
 * listening socket. The socket is found by its inode in the command's
 * network namespace (/proc/PID/net/tcp, observe_port_bound), and its
 * holder among the processes of that same namespace only: /proc/N/ns/net
 * compared by device and inode, then /proc/N/fd/ for "socket:[INODE]".
 * Recording only, never a decision: a process we may not read, one gone
 * meanwhile, or a socket passed on leaves the service unnamed ("a project
 * service"). Once per port and run (the caller keeps at most 64 ports).
 */
#include "autoconf.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "observe-int.h"
#include "xalloc.h"

/* Longest command line named (bytes, before the display escapes it). */
#define LISTENER_MAX	120

/* Does process n hold a descriptor for socket:[inode]? */
static bool
listener_holds(int procfd, long n, unsigned long inode)
{
	char		 want[48], got[64], path[64];
	DIR		*d;
	struct dirent	*de;
	int		 fd;
	ssize_t		 len;
	bool		 found = false;

	snprintf(path, sizeof path, "%ld/fd", n);
	if ((fd = openat(procfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return false;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return false;
	}
	snprintf(want, sizeof want, "socket:[%lu]", inode);
	while (!found && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		len = readlinkat(dirfd(d), de->d_name, got, sizeof got - 1);
		if (len <= 0)
			continue;
		got[len] = '\0';
		found = strcmp(got, want) == 0;
	}
	closedir(d);
	return found;
}

/* Process n's command line, NULs as spaces, cut; NULL when unreadable. */
static char *
listener_cmdline(int procfd, long n)
{
	char	 path[64], buf[LISTENER_MAX + 1];
	int	 fd;
	ssize_t	 len;

	snprintf(path, sizeof path, "%ld/cmdline", n);
	if ((fd = openat(procfd, path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	len = read(fd, buf, LISTENER_MAX);
	close(fd);
	if (len <= 0)
		return NULL;
	while (len > 0 && buf[len - 1] == '\0')
		len--;
	for (ssize_t i = 0; i < len; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[len] = '\0';
	return len > 0 ? xstrdup(buf) : NULL;
}

char *
observe_listener(pid_t near, unsigned long inode)
{
	char		 path[64];
	struct stat	 ns, st;
	DIR		*d;
	struct dirent	*de;
	int		 procfd;
	char		*name = NULL, *end;
	long		 n;

	snprintf(path, sizeof path, "/proc/%d/ns/net", (int)near);
	if (inode == 0 || stat(path, &ns) != 0)
		return NULL;
	if ((d = opendir("/proc")) == NULL)
		return NULL;
	procfd = dirfd(d);
	while (name == NULL && (de = readdir(d)) != NULL) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		n = strtol(de->d_name, &end, 10);
		if (*end != '\0' || n <= 0)
			continue;
		snprintf(path, sizeof path, "%ld/ns/net", n);
		if (fstatat(procfd, path, &st, 0) != 0 ||
		    st.st_dev != ns.st_dev || st.st_ino != ns.st_ino)
			continue;
		if (listener_holds(procfd, n, inode))
			name = listener_cmdline(procfd, n);
	}
	closedir(d);
	return name;
}
