/*
 * memwrite: try to change another process's memory from inside a sandbox
 * (tests/integration/contain-root.sh). A child attacks its parent through
 * /proc/PPID/mem, process_vm_writev and pidfd_getfd, then pid 1 through
 * /proc/1/mem; each line says "blocked" or "WRITTEN"/"GOT", and the parent
 * checks its own buffer afterwards.
 *
 *	memwrite		exit 0 when every attack was blocked
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static char	victim[64] = "untouched";

/* Open path for writing and write at addr; 0 when it was written. */
static int
try_mem(const char *path, void *addr)
{
	int	fd = open(path, O_RDWR | O_CLOEXEC);
	ssize_t	n;

	if (fd < 0) {
		printf("%s: blocked (open: %s)\n", path, strerror(errno));
		return -1;
	}
	n = pwrite(fd, "OVERWRITTEN", 12, (off_t)(unsigned long)addr);
	close(fd);
	if (n != 12) {
		printf("%s: blocked (write: %s)\n", path, strerror(errno));
		return -1;
	}
	printf("%s: WRITTEN\n", path);
	return 0;
}

static int
child(pid_t parent)
{
	char		 path[64], msg[] = "OVERWRITTEN";
	struct iovec	 l = { msg, sizeof msg }, r = { victim, sizeof msg };
	int		 bad = 0, pidfd, fd;

	snprintf(path, sizeof path, "/proc/%d/mem", (int)parent);
	bad |= try_mem(path, victim) == 0;
	if (syscall(SYS_process_vm_writev, parent, &l, 1, &r, 1, 0) > 0) {
		printf("process_vm_writev: WRITTEN\n");
		bad = 1;
	} else
		printf("process_vm_writev: blocked (%s)\n", strerror(errno));
	pidfd = (int)syscall(SYS_pidfd_open, parent, 0);
	fd = pidfd >= 0 ? (int)syscall(SYS_pidfd_getfd, pidfd, 1, 0) : -1;
	if (fd >= 0) {
		printf("pidfd_getfd: GOT\n");
		bad = 1;
	} else
		printf("pidfd_getfd: blocked (%s)\n", strerror(errno));
	/* pid 1 is bwrap's init: where its memory lies is not known here,
	   so opening it for writing is already a failure. */
	if ((fd = open("/proc/1/mem", O_RDWR | O_CLOEXEC)) >= 0) {
		printf("/proc/1/mem: OPENED for writing\n");
		close(fd);
		bad = 1;
	} else
		printf("/proc/1/mem: blocked (open: %s)\n", strerror(errno));
	return bad;
}

int
main(void)
{
	pid_t	pid, parent = getpid();
	int	status;

	setvbuf(stdout, NULL, _IONBF, 0);
	if ((pid = fork()) == 0)
		_exit(child(parent));
	waitpid(pid, &status, 0);
	if (strcmp(victim, "untouched") != 0) {
		printf("parent memory: CHANGED\n");
		return 1;
	}
	printf("parent memory: untouched\n");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
