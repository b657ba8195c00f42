/*
 * cmd-doctor: `bwgate doctor [--json]`: what this host supports, and the fix
 * for each problem found.
 */
#include "autoconf.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "cmd.h"
#include "config.h"
#include "jsonutil.h"
#include "limiter.h"
#include "netbackend.h"
#include "probe.h"
#include "seccomp-deny.h"
#include "xalloc.h"

struct check {
	const char	*name;
	bool		 ok;
	char		*detail;
	char		*fix;
};

/* First line of `bwrap --version`. */
static char *
bwrap_version(const char *bwrap)
{
	struct buf	 b = BUF_INIT;
	int		 p[2];
	pid_t		 pid;

	if (pipe2(p, O_CLOEXEC) != 0)
		return NULL;
	if ((pid = fork()) == 0) {
		dup2(p[1], 1);
		execl(bwrap, bwrap, "--version", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	buf_read_fd(&b, p[0], 4096);
	close(p[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	if (b.len > 0 && b.data[b.len - 1] == '\n')
		b.data[--b.len] = '\0';
	if (b.len == 0) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}

static long
read_long(const char *path)
{
	FILE	*f = fopen(path, "re");
	long	 v = -1;

	if (f != NULL) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static void
add_check(struct check *c, size_t *n, const char *name, bool ok, char *detail,
    char *fix)
{
	c[*n] = (struct check){ name, ok, detail, fix };
	(*n)++;
}

/* Issue 9, sections 3 and 5: network backend, resource-limit backend. */
static void
doctor_contain_b(struct check *checks, size_t *n)
{
	char			*net = netbackend_find(), *lim;
	enum limits_backend	 b = limits_probe();
	struct config		 cfg;
	struct limits		 l = { 0, 0, 0 };
	char			*cause = NULL;
	size_t			 mem;

	if (net == NULL)
		add_check(checks, n, "network", false,
		    xstrdup(netbackend_missing()),
		    xstrdup("apt-get install slirp4netns"));
	else if (access("/dev/net/tun", R_OK | W_OK) != 0)
		add_check(checks, n, "network", false, xasprintf("%s cannot "
		    "open /dev/net/tun here: network on is refused",
		    NETBACKEND_NAME), xstrdup("chmod 0666 /dev/net/tun (its "
		    "usual mode), or run as root"));
	else
		add_check(checks, n, "network", true, xasprintf("network on: "
		    "own namespace with %s (%s); host loopback and abstract "
		    "sockets unreachable", NETBACKEND_NAME, net), NULL);
	free(net);
	config_init(&cfg);
	if (config_load(&cfg, NULL, &cause) != 0)
		free(cause);
	config_limits(&cfg, NULL, &mem, &l.pids, &l.cpu_s);
	l.memory = mem;
	lim = limits_describe(&l);
	add_check(checks, n, "resource limits", true, xasprintf("%s by %s%s",
	    lim, limits_backend_name(b), b == LIMITS_RLIMIT ? " (memory as "
	    "address space, processes per user: coarser than a cgroup)" :
	    ""), NULL);
	free(lim);
	config_release(&cfg);
}

int
cmd_doctor(int argc, char **argv)
{
	struct probe	 p;
	struct check	 checks[16];
	size_t		 n = 0;
	bool		 json = false, all_ok = true;
	char		*cause = NULL;
	int		 fd;
	long		 watches;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = true;
		else {
			fprintf(stderr, "usage: bwgate doctor [--json]\n");
			return EXIT_BWGATE_FAILED;
		}
	}
	probe_init(&p);
	probe_host(&p, false);
	if (p.bwrap_ok)
		p.bwrap_version = bwrap_version(p.bwrap);
	add_check(checks, &n, "bwrap", p.bwrap_ok, xasprintf("%s (%s)",
	    p.bwrap, p.bwrap_version ? p.bwrap_version : "missing"),
	    p.bwrap_ok ? NULL : xstrdup("apt-get install bubblewrap"));
	add_check(checks, &n, "user namespaces", p.userns_ok,
	    xstrdup(p.userns_ok ? "a sandbox can be built" : (p.error ?
	    p.error : "unavailable")), p.fix ? xstrdup(p.fix) : NULL);
	add_check(checks, &n, "nesting", true, p.nested ?
	    xasprintf("running inside %s", p.nested_in) :
	    xstrdup("not nested"), NULL);
	add_check(checks, &n, "/proc", p.userns_ok, xstrdup(p.proc_fresh ?
	    "fresh /proc in each sandbox" : "existing /proc bound read-only "
	    "(a fresh one cannot be mounted here)"), NULL);
	add_check(checks, &n, "nested user namespaces", true,
	    xstrdup(p.disable_userns ? "disabled inside with "
	    "--disable-userns" : "--disable-userns unsupported: the seccomp "
	    "filter refuses them"), NULL);
	fd = seccomp_deny_fd(false, false, &cause);
	add_check(checks, &n, "seccomp", fd >= 0, fd >= 0 ?
	    xasprintf("deny filter builds; violation notifications %s",
	    p.seccomp_notify ? "available" : "unavailable (violations are "
	    "inferred from error output)") : cause, fd >= 0 ? NULL :
	    xstrdup("install libseccomp2 >= 2.5"));
	if (fd >= 0)
		close(fd);
	cause = NULL;
	watches = read_long("/proc/sys/fs/inotify/max_user_watches");
	add_check(checks, &n, "inotify", watches >= 8192,
	    xasprintf("max_user_watches=%ld", watches), watches >= 8192 ?
	    NULL : xstrdup("sysctl -w fs.inotify.max_user_watches=524288 "
	    "(live events degrade to the change report without it)"));
	doctor_contain_b(checks, &n);

	for (size_t i = 0; i < n; i++)
		if (!checks[i].ok && strcmp(checks[i].name, "inotify") != 0 &&
		    strcmp(checks[i].name, "network") != 0)
			all_ok = false;
	if (json) {
		cJSON	*j = cJSON_CreateObject(), *a = cJSON_CreateArray();
		char	*s;

		cJSON_AddBoolToObject(j, "ok", all_ok);
		cJSON_AddItemToObject(j, "probe", probe_json(&p));
		for (size_t i = 0; i < n; i++) {
			cJSON *c = cJSON_CreateObject();

			cJSON_AddStringToObject(c, "name", checks[i].name);
			cJSON_AddBoolToObject(c, "ok", checks[i].ok);
			cJSON_AddStringToObject(c, "detail", checks[i].detail);
			if (checks[i].fix != NULL)
				cJSON_AddStringToObject(c, "fix",
				    checks[i].fix);
			cJSON_AddItemToArray(a, c);
		}
		cJSON_AddItemToObject(j, "checks", a);
		cJSON_AddNumberToObject(j, "max_user_watches", (double)watches);
		s = cJSON_Print(j);
		printf("%s\n", s);
		free(s);
		cJSON_Delete(j);
	} else {
		for (size_t i = 0; i < n; i++) {
			printf("%-4s %-24s %s\n", checks[i].ok ? "ok" : "FAIL",
			    checks[i].name, checks[i].detail);
			if (checks[i].fix != NULL)
				printf("     %-24s fix: %s\n", "",
				    checks[i].fix);
		}
		for (size_t i = 0; i < p.notes.n; i++)
			printf("     note: %s\n", p.notes.v[i]);
	}
	for (size_t i = 0; i < n; i++) {
		free(checks[i].detail);
		free(checks[i].fix);
	}
	probe_release(&p);
	return all_ok ? 0 : 1;
}
