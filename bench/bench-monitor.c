/*
 * bench-monitor: run a command with the live monitor attached to a
 * directory, as the engine does, and time it.
 *
 *	bench-monitor [-n] [-q] DIR COMMAND [ARG...]
 *
 * Starts the monitor on DIR (unless -n), runs COMMAND (not sandboxed: this
 * measures the watcher, nothing else), dispatches events while it runs and
 * writes each as a JSON line to /dev/null (what `bwgate exec --events`
 * costs), then stops the monitor. Prints one line:
 *	cmd_ms N total_ms N events N created N lossy 0|1 cmd_cpu_ms N
 *	    watcher_cpu_ms N
 * cmd_ms is from fork to the command's exit; total_ms adds monitor start
 * and stop; cmd_cpu_ms is the command's user+system time (what the
 * kernel's event queueing adds to the writer, without the noise of other
 * load), watcher_cpu_ms the watcher process's. -q is accepted for
 * compatibility (only the line is printed anyway).
 */
#include "autoconf.h"

#include <sys/resource.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "monitor.h"
#include "xalloc.h"

struct counts {
	int		 devnull;
	unsigned long	 events;
	unsigned long	 created;
};

static double	 now_ms(void);
static double	 cpu_ms(const struct rusage *);
static void	 on_event(const struct fs_event *, void *);
static void	 usage(void) __attribute__((noreturn));

/* Monotonic clock in milliseconds. */
static double
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec * 1e3 + ts.tv_nsec / 1e6);
}

/* User plus system time in milliseconds. */
static double
cpu_ms(const struct rusage *ru)
{
	return (ru->ru_utime.tv_sec * 1e3 + ru->ru_utime.tv_usec / 1e3 +
	    ru->ru_stime.tv_sec * 1e3 + ru->ru_stime.tv_usec / 1e3);
}

/* Count an event and serialise it as the engine would. */
static void
on_event(const struct fs_event *ev, void *arg)
{
	struct counts	*c = arg;
	cJSON		*j = fs_event_json(ev);
	char		*line = cJSON_PrintUnformatted(j);
	size_t		 len = strlen(line);

	line[len] = '\n';
	(void)!write(c->devnull, line, len + 1);
	free(line);
	cJSON_Delete(j);
	c->events++;
	if (ev->kind == FS_CREATED)
		c->created++;
}

static void
usage(void)
{
	fprintf(stderr, "usage: bench-monitor [-n] [-q] DIR COMMAND [ARG...]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	struct counts	 c = { -1, 0, 0 };
	struct monitor	*m = NULL;
	struct pollfd	 pfd;
	struct rusage	 cmd_ru, all_ru;
	double		 t0, t1, t2, t3;
	char		*cause = NULL;
	bool		 off = false, lossy;
	pid_t		 pid;
	int		 ch, status;

	while ((ch = getopt(argc, argv, "+nq")) != -1) {
		switch (ch) {
		case 'n':
			off = true;
			break;
		case 'q':
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 2)
		usage();
	if ((c.devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
		return (1);

	t0 = now_ms();
	if (!off && (m = monitor_start(argv[0], NULL, &cause)) == NULL) {
		fprintf(stderr, "bench-monitor: %s\n", cause);
		return (1);
	}
	t1 = now_ms();
	if ((pid = fork()) < 0)
		return (1);
	if (pid == 0) {
		if (chdir(argv[0]) != 0)
			_exit(126);
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	for (;;) {
		if (m != NULL) {
			pfd.fd = monitor_fd(m);
			pfd.events = POLLIN;
			if (poll(&pfd, 1, 5) > 0)
				monitor_read(m, on_event, &c);
		}
		if (wait4(pid, &status, m != NULL ? WNOHANG : 0,
		    &cmd_ru) == pid)
			break;
	}
	t2 = now_ms();
	if (m != NULL)
		monitor_stop(m, on_event, &c);
	t3 = now_ms();
	lossy = m != NULL && monitor_lossy(m);
	monitor_free(m);		/* reaps the watcher */
	getrusage(RUSAGE_CHILDREN, &all_ru);
	printf("cmd_ms %.1f total_ms %.1f events %lu created %lu lossy %d "
	    "cmd_cpu_ms %.1f watcher_cpu_ms %.1f\n", t2 - t1, t3 - t0,
	    c.events, c.created, lossy,
	    cpu_ms(&cmd_ru), cpu_ms(&all_ru) - cpu_ms(&cmd_ru));
	return (WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}
