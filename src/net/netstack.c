/*
 * netstack: run slirp4netns beside a sandbox.
 *
 * slirp4netns gets two descriptors: it writes "1" on the ready pipe once
 * the TAP device, address, route and loopback are configured, and it
 * exits when the exit pipe becomes readable (we close our end). Its
 * output goes to pipes we drain; the first error line explains a failure.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/nsfs.h>

#include "buf.h"
#include "log.h"
#include "loop.h"
#include "netbackend.h"
#include "netstack.h"
#include "runner.h"
#include "sandbox.h"
#include "xalloc.h"

struct netstack {
	struct runner	 run;
	int		 ready_fd;	/* read end */
	int		 exit_fd;	/* write end: close to stop */
	struct buf	 err;
};

/* Read what the backend printed (non-blocking); keep stderr. */
static void
netstack_drain(struct netstack *ns)
{
	char	chunk[4096];
	ssize_t	n;

	while (ns->run.out_fd >= 0 &&
	    (n = read(ns->run.out_fd, chunk, sizeof chunk)) > 0)
		;
	while (ns->run.err_fd >= 0 &&
	    (n = read(ns->run.err_fd, chunk, sizeof chunk)) > 0) {
		if (ns->err.len < 4096)
			buf_add(&ns->err, chunk, (size_t)n);
	}
}

/*
 * bwrap configures the namespace's loopback itself (address, then link up)
 * and slirp4netns brings lo up too: run at the same time they collide
 * ("loopback: Failed RTM_NEWADDR"). So wait until the namespace's routing
 * table has 127.0.0.1, which happens at the link-up, bwrap's last network
 * step.
 */
int
netstack_wait_loopback(pid_t pid, int timeout_ms, char **cause)
{
	int64_t	deadline = loop_now_ms() + timeout_ms;
	char	path[64], chunk[4096];
	int	fd, delay = 1;
	ssize_t	n;

	snprintf(path, sizeof path, "/proc/%d/net/fib_trie", (int)pid);
	for (;;) {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
			*cause = xasprintf("the sandbox ended before its "
			    "network was set up");
			return -1;
		}
		n = read(fd, chunk, sizeof chunk - 1);
		close(fd);
		if (n > 0) {
			chunk[n] = '\0';
			if (strstr(chunk, "127.0.0.1") != NULL)
				return 0;
		}
		if (loop_now_ms() >= deadline) {
			*cause = xasprintf("bwrap did not set up the sandbox's "
			    "loopback in %d ms", timeout_ms);
			return -1;
		}
		poll(NULL, 0, delay);
		if (delay < 8)
			delay *= 2;
	}
}

/* The sandbox's network namespace and the user namespace owning it. */
int
netstack_namespaces(pid_t pid, int *userns, int *netns, char **cause)
{
	char	path[64];

	snprintf(path, sizeof path, "/proc/%d/ns/net", (int)pid);
	if ((*netns = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		*cause = xasprintf("cannot open '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	if ((*userns = ioctl(*netns, NS_GET_USERNS)) < 0) {
		*cause = xasprintf("cannot find the owner of '%s': %s", path,
		    strerror(errno));
		close(*netns);
		return -1;
	}
	fcntl(*userns, F_SETFD, FD_CLOEXEC);
	return 0;
}

struct netstack *
netstack_start(pid_t pid, char **cause)
{
	struct netstack	*ns;
	struct strv	 av = STRV_INIT;
	char		*path = netbackend_find();
	int		 rp[2] = { -1, -1 }, ep[2] = { -1, -1 }, fds[4];
	int		 devnull = -1, userns = -1, netns = -1;

	if (path == NULL) {
		*cause = xstrdup(netbackend_missing());
		return NULL;
	}
	if (netstack_wait_loopback(pid, 30000, cause) != 0 ||
	    netstack_namespaces(pid, &userns, &netns, cause) != 0) {
		free(path);
		return NULL;
	}
	ns = xcalloc(1, sizeof *ns);
	ns->ready_fd = ns->exit_fd = -1;
	if (pipe2(rp, O_CLOEXEC) != 0 || pipe2(ep, O_CLOEXEC) != 0 ||
	    (devnull = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		*cause = xasprintf("cannot set up %s: %s", NETBACKEND_NAME,
		    strerror(errno));
		goto fail;
	}
	ns->ready_fd = rp[0];
	ns->exit_fd = ep[1];
	rp[0] = ep[1] = -1;
	fds[0] = rp[1];
	fds[1] = ep[0];
	fds[2] = userns;
	fds[3] = netns;
	netbackend_argv(&av, path, SANDBOX_FD_BASE + 2, SANDBOX_FD_BASE + 3,
	    SANDBOX_FD_BASE, SANDBOX_FD_BASE + 1);
	if (runner_spawn(&av, fds, 4, devnull, false, NULL, 0, NULL, 0, &ns->run,
	    cause) != 0)
		goto fail;
	LOG("%s started for pid %d", NETBACKEND_NAME, (int)pid);
	goto out;
fail:
	ns->run.pid = 0;
	netstack_stop(ns);
	ns = NULL;
out:
	for (int i = 0; i < 2; i++) {
		if (rp[i] >= 0)
			close(rp[i]);
		if (ep[i] >= 0)
			close(ep[i]);
	}
	if (devnull >= 0)
		close(devnull);
	close(userns);
	close(netns);
	strv_release(&av);
	free(path);
	return ns;
}

int
netstack_wait_ready(struct netstack *ns, int timeout_ms, char **cause)
{
	int64_t		deadline = loop_now_ms() + timeout_ms;
	struct pollfd	pfd;
	char		c;
	ssize_t		n;

	for (;;) {
		int64_t left = deadline - loop_now_ms();

		netstack_drain(ns);
		if (left <= 0) {
			*cause = xasprintf("%s did not set up the network in "
			    "%d ms", NETBACKEND_NAME, timeout_ms);
			return -1;
		}
		/* EOF on the ready pipe means the backend is gone. */
		pfd.fd = ns->ready_fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR)
			break;
		if (pfd.revents == 0)
			continue;
		n = read(ns->ready_fd, &c, 1);
		if (n == 1 && c == '1') {
			LOG("network up");
			return 0;
		}
		break;	/* closed without "1": the backend failed */
	}
	/* Give its error message a moment to arrive. */
	runner_wait(&ns->run);
	netstack_drain(ns);
	if (ns->err.len > 0) {
		char *nl;

		buf_add(&ns->err, "", 1);
		if ((nl = strchr(ns->err.data, '\n')) != NULL)
			*nl = '\0';
		*cause = xasprintf("%s could not set up the network: %s",
		    NETBACKEND_NAME, ns->err.data);
	} else
		*cause = xasprintf("%s could not set up the network",
		    NETBACKEND_NAME);
	return -1;
}

void
netstack_stop(struct netstack *ns)
{
	if (ns == NULL)
		return;
	if (ns->exit_fd >= 0)
		close(ns->exit_fd);
	if (ns->ready_fd >= 0)
		close(ns->ready_fd);
	if (ns->run.pid > 0 && !ns->run.reaped) {
		/* It exits on the closed pipe; make sure. */
		int64_t deadline = loop_now_ms() + 1000;

		while (!ns->run.reaped && loop_now_ms() < deadline) {
			if (waitpid(ns->run.pid, &ns->run.status, WNOHANG) ==
			    ns->run.pid)
				ns->run.reaped = 1;
			else
				poll(NULL, 0, 10);
		}
		if (!ns->run.reaped) {
			kill(ns->run.pid, SIGKILL);
			runner_wait(&ns->run);
		}
	}
	if (ns->run.pid > 0)
		runner_close(&ns->run);
	buf_release(&ns->err);
	free(ns);
}
