/*
 * cmd-doctor: `bwgate doctor [--json]`: what this host supports, and the fix
 * for each problem found.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "display.h"
#include "buf.h"
#include "cmd.h"
#include "config.h"
#include "jsonutil.h"
#include "libexec.h"
#include "limiter.h"
#include "mcp.h"
#include "netbackend.h"
#include "probe.h"
#include "rundir.h"
#include "sandbox.h"
#include "spawn.h"
#include "seccomp-deny.h"
#include "strv.h"
#include "testhook.h"
#include "xalloc.h"

#define DOCTOR_CHECKS	32	/* lines in the report, at most */

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
	char		*argv[] = { (char *)bwrap, (char *)"--version", NULL };
	char		*cause = NULL;

	if (spawn_capture(argv, 0, 1, &b, 4096, &cause) == -1) {
		free(cause);
		buf_release(&b);
		return NULL;
	}
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

/* This binary's path into self (the checks run it); false with *detail. */
static bool
doctor_self(char *self, size_t size, char **detail)
{
	ssize_t	n = readlink("/proc/self/exe", self, size - 1);

	if (n <= 0) {
		*detail = xstrdup("cannot find the bwgate binary");
		return false;
	}
	self[n] = '\0';
	return true;
}

/* Does `bwgate mcp` start and answer initialize? Run through spawn.c
   (the one way), the request on its stdin, its stdout and stderr read. */
static bool
doctor_mcp(char **detail)
{
	char		 self[4096], *req, *cause = NULL;
	char		*argv[] = { self, (char *)"mcp", (char *)"--project",
			    (char *)"/", NULL };
	struct buf	 b = BUF_INIT;
	struct spawn	 sp = SPAWN_INIT;
	int		 in[2], out[2], fds[3];
	cJSON		*j;
	const char	*rev;

	if (!doctor_self(self, sizeof self, detail))
		return false;
	if (pipe2(in, O_CLOEXEC) != 0) {
		*detail = xasprintf("cannot make a pipe: %s", strerror(errno));
		return false;
	}
	if (pipe2(out, O_CLOEXEC) != 0) {
		*detail = xasprintf("cannot make a pipe: %s", strerror(errno));
		close(in[0]);
		close(in[1]);
		return false;
	}
	/* One line, far below a pipe's buffer: written before it starts. */
	req = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	    "\"initialize\",\"params\":{\"protocolVersion\":\"%s\","
	    "\"capabilities\":{},\"clientInfo\":{\"name\":\"doctor\","
	    "\"version\":\"1\"}}}\n", MCP_PROTOCOL);
	(void)!write(in[1], req, strlen(req));
	free(req);
	close(in[1]);
	fds[0] = in[0];
	fds[1] = fds[2] = out[1];
	sp.argv = argv;
	sp.fds = fds;
	sp.nfds = 3;
	if (spawn_start(&sp, &cause) != 0) {
		close(in[0]);
		close(out[0]);
		close(out[1]);
		*detail = cause;
		return false;
	}
	close(in[0]);
	close(out[1]);
	(void)buf_read_fd(&b, out[0], 65536);
	close(out[0]);
	spawn_wait(&sp);
	spawn_release(&sp);
	j = b.data != NULL ? cJSON_Parse(b.data) : NULL;
	rev = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(j,
	    "result"), "protocolVersion"));
	if (rev != NULL)
		*detail = xasprintf("bwgate mcp answers initialize (MCP %s)",
		    rev);
	else
		*detail = xasprintf("bwgate mcp did not answer initialize: %s",
		    b.data != NULL ? b.data : "no output");
	cJSON_Delete(j);
	buf_release(&b);
	return rev != NULL;
}

static void
add_check(struct check *c, size_t *n, const char *name, bool ok, char *detail,
    char *fix)
{
	if (*n == DOCTOR_CHECKS) {	/* a table too small is a bug */
		free(detail);
		free(fix);
		return;
	}
	c[*n] = (struct check){ name, ok, detail, fix };
	(*n)++;
}


/* Can the observer decide (observe_deciding): notification, and the
   kernel's descriptor injection with the answer (Linux 5.14)? */
static bool
doctor_decides(const struct probe *p)
{
	const char	*off = getenv("BWGATE_NO_NOTIFY");
	struct utsname	 u;
	int		 maj = 0, min = 0;

	if (!p->seccomp_notify || (off != NULL && *off != '\0' &&
	    strcmp(off, "0") != 0) || uname(&u) != 0 ||
	    sscanf(u.release, "%d.%d", &maj, &min) != 2)
		return false;
	return maj > 5 || (maj == 5 && min >= 14);
}

/*
 * Who a sandbox started here is to the host kernel, and how /proc is
 * covered: from a dry build for the current directory's project.
 */
static long
doctor_identity(const struct probe *p, struct check *checks, size_t *n)
{
	struct sandbox_policy	 pol;
	struct sandbox		 sb = SANDBOX_INIT;
	char			*cause = NULL, *masked;
	long			 kuid;

	if (!p->userns_ok)
		return -1;
	sandbox_policy_init(&pol);
	if (sandbox_policy_set_dirs(&pol, NULL, NULL, &cause) != 0 ||
	    sandbox_build(&pol, p, SANDBOX_DRY, &sb, &cause) != 0) {
		add_check(checks, n, "sandbox kernel uid", true, xasprintf(
		    "not known for this directory: %s", cause), NULL);
		free(cause);
		sandbox_policy_release(&pol);
		return -1;
	}
	if (sb.run_as != NULL)
		add_check(checks, n, "sandbox kernel uid", true, xasprintf(
		    "%ld: root runs the sandbox as '%s', the owner of '%s'",
		    sb.kernel_uid, sb.run_as, pol.project), NULL);
	else if (sb.kernel_uid == 0)
		add_check(checks, n, "sandbox kernel uid", true, xasprintf(
		    "0 (root; %s): /proc is read-only and %zu root-only "
		    "system files are hidden", getuid() == 0 &&
		    !p->userns_unpriv ? "only root may create user namespaces "
		    "here" : "the project is root's", sb.secrets_hidden),
		    NULL);
	else
		add_check(checks, n, "sandbox kernel uid", true, xasprintf(
		    "%ld (yours)", sb.kernel_uid), NULL);
	masked = strv_join(&sb.proc_masked, " ", false);
	add_check(checks, n, "proc masking", true, xasprintf("%s /proc, %s; "
	    "masked: %s; no /sys unless named", sb.proc_mode, sb.proc_readonly ?
	    "read-only" : "writable (Docker's read-only set)", masked[0] !=
	    '\0' ? masked : "none present"), NULL);
	free(masked);
	kuid = sb.kernel_uid;
	sandbox_release(&sb);
	sandbox_policy_release(&pol);
	return kuid;
}

/* Can a command with named hosts run here? The real thing: `bwgate exec
   --domain` of `true` (its own network namespace, bwgate-netlisten
   entering it to open the proxy's socket), in an empty project in the
   private runtime directory (nothing is written there). The reason is exec's own error,
   the one every command with --domain is refused with here. */
static bool
doctor_named_hosts(char **detail)
{
	char		 self[4096], *cause = NULL, *dir;
	char		*argv[] = { self, (char *)"exec", (char *)"--json",
			    (char *)"--quiet", (char *)"--no-monitor",
			    (char *)"--memory", (char *)"0", (char *)"--project",
			    NULL, (char *)"--domain",
			    (char *)"private:doctor.invalid:1", (char *)"--",
			    (char *)"true", NULL };
	struct buf	 b = BUF_INIT;
	struct spawn	 sp = SPAWN_INIT;
	int		 out[2], fds[3];
	cJSON		*j;
	const char	*err;
	bool		 ok;

	if (!doctor_self(self, sizeof self, detail))
		return false;
	if ((dir = rundir_get(true, &cause)) == NULL) {
		*detail = cause;
		return false;
	}
	/* An empty project of its own, in the private runtime directory
	   (not that directory itself: it holds the sockets). */
	{
		char *proj = xasprintf("%s/doctor-project", dir);

		free(dir);
		dir = proj;
		if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
			*detail = xasprintf("cannot make '%s': %s", dir,
			    strerror(errno));
			free(dir);
			return false;
		}
	}
	argv[8] = dir;
	if (pipe2(out, O_CLOEXEC) != 0) {
		*detail = xasprintf("cannot make a pipe: %s", strerror(errno));
		free(dir);
		return false;
	}
	fds[0] = SPAWN_DEVNULL;
	fds[1] = out[1];
	fds[2] = SPAWN_DEVNULL;
	sp.argv = argv;
	sp.fds = fds;
	sp.nfds = 3;
	if (spawn_start(&sp, &cause) != 0) {
		close(out[0]);
		close(out[1]);
		free(dir);
		*detail = cause;
		return false;
	}
	close(out[1]);
	(void)buf_read_fd(&b, out[0], 1 << 20);
	close(out[0]);
	spawn_wait(&sp);
	spawn_release(&sp);
	free(dir);
	j = b.data != NULL ? cJSON_Parse(b.data) : NULL;
	err = cJSON_GetStringValue(cJSON_GetObjectItem(j, "error"));
	ok = err == NULL && cJSON_GetNumberValue(cJSON_GetObjectItem(j,
	    "exit_code")) == 0;
	if (ok)
		*detail = NULL;
	else if (err != NULL)
		*detail = xstrdup(err);
	else
		*detail = xasprintf("a command with --domain did not run: %s",
		    b.data != NULL ? b.data : "no report");
	cJSON_Delete(j);
	buf_release(&b);
	return ok;
}

/* Issue 9, sections 3 and 5: network backend, resource-limit backend. */
static void
doctor_contain_b(struct check *checks, size_t *n, long kuid)
{
	char			*net = netbackend_find(), *lim, *caveat;
	bool			 root;
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
	/* Named hosts: the proxy is bwgate's own; its socket is opened in
	   the sandbox's namespace by bwgate-netlisten. */
	if ((net = libexec_find("bwgate-netlisten",
	    testhook_name(TESTHOOK_NETLISTEN))) == NULL)
		add_check(checks, n, "named hosts", false, xstrdup("bwgate-"
		    "netlisten is not installed: commands with --domain are "
		    "refused"), xstrdup("reinstall bwgate (make install)"));
	else if (!doctor_named_hosts(&cause))
		add_check(checks, n, "named hosts", false, xasprintf("%s: "
		    "commands with --domain are refused here (never run with "
		    "an open network)", cause), xstrdup("let bwgate make "
		    "network namespaces and enter them (a container: allow "
		    "setns and unshare, e.g. Docker's --security-opt "
		    "seccomp=unconfined, or CAP_SYS_ADMIN); --network (any "
		    "host) or no network still work"));
	else
		add_check(checks, n, "named hosts", true, xasprintf("--domain: "
		    "own namespace whose one way out is bwgate's proxy "
		    "(HTTP CONNECT, SOCKS5), socket opened by %s (a command "
		    "with a named host ran)", net), NULL);
	free(cause);
	cause = NULL;
	free(net);
	config_init(&cfg);
	if (config_load(&cfg, NULL, &cause) != 0)
		free(cause);
	config_limits(&cfg, NULL, &mem, &l.pids, &l.cpu_s);
	l.memory = mem;
	/* The truth for a sandbox of this directory's project (its kernel
	   uid, doctor_identity; else bwgate's own): root's processes are not
	   counted by RLIMIT_NPROC. */
	root = limits_nproc_exempt(kuid >= 0 ? (uid_t)kuid : geteuid());
	caveat = limits_caveat(b, &l, root);
	if (b == LIMITS_RLIMIT && root)
		l.pids = 0;
	lim = limits_describe(&l);
	add_check(checks, n, "resource limits", true, xasprintf("%s by %s%s%s",
	    lim, limits_backend_name(b), caveat != NULL ? ": " : "",
	    caveat != NULL ? caveat : ""), NULL);
	free(caveat);
	free(lim);
	config_release(&cfg);
}

int
cmd_doctor(int argc, char **argv)
{
	struct probe	 p;
	struct check	 checks[DOCTOR_CHECKS];
	size_t		 n = 0;
	bool		 json = false, all_ok = true, ok;
	char		*cause = NULL;
	int		 fd;
	long		 watches, kuid;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0)
			json = true;
		else {
			fprintf(stderr, "usage: bwgate doctor [--json]\n");
			return EXIT_BWGATE_FAILED;
		}
	}
	/* A diagnosis leaves nothing running: its dry build of this
	   directory's project must not start that project's watcher (a
	   daemon that outlives it; gitwatch.h). */
	setenv("BWGATE_GITWATCH", "0", 1);
	/* Nor a project's pod (pod.h): its named-hosts run is in a probe
	   project of its own, and a pod would outlive it. */
	setenv("BWGATE_POD", "0", 1);
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
	fd = seccomp_deny_fd(false, false, false, &cause);
	add_check(checks, &n, "seccomp", fd >= 0, fd >= 0 ?
	    xasprintf("deny filter builds; violation notifications %s",
	    p.seccomp_notify ? "available" : "unavailable (violations are "
	    "inferred from error output)") : cause, fd >= 0 ? NULL :
	    xstrdup("install libseccomp2 >= 2.5"));
	if (fd >= 0)
		close(fd);
	cause = NULL;
	ok = doctor_decides(&p);
	add_check(checks, &n, "decide", ok, xstrdup(ok ? "the observer "
	    "decides every creating, renaming, linking and mode call before "
	    "it runs (protected names refused at the call)" : "fallback: "
	    "the observer cannot decide here, so profiles that write the "
	    "project are refused and only read-only profiles run"), ok ?
	    NULL : xstrdup("Linux 5.14 or newer with seccomp user "
	    "notification (and BWGATE_NO_NOTIFY unset)"));
	/* Containment of section 1 (issue 9): uid, /proc. */
	kuid = doctor_identity(&p, checks, &n);
	ok = doctor_mcp(&cause);
	add_check(checks, &n, "mcp server", ok, cause, ok ? NULL :
	    xstrdup("run: bwgate mcp < /dev/null; see doc/agents.md"));
	cause = NULL;
	watches = read_long("/proc/sys/fs/inotify/max_user_watches");
	add_check(checks, &n, "inotify", watches >= 8192,
	    xasprintf("max_user_watches=%ld", watches), watches >= 8192 ?
	    NULL : xstrdup("sysctl -w fs.inotify.max_user_watches=524288 "
	    "(live events degrade to the change report without it)"));
	doctor_contain_b(checks, &n, kuid);

	for (size_t i = 0; i < n; i++)
		if (!checks[i].ok && strcmp(checks[i].name, "inotify") != 0 &&
		    strcmp(checks[i].name, "network") != 0 &&
		    strcmp(checks[i].name, "named hosts") != 0)
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
		s = json_text(j);
		printf("%s\n", s);
		free(s);
		cJSON_Delete(j);
	} else {
		for (size_t i = 0; i < n; i++) {
			printf("%-4s %-24s %s\n", checks[i].ok ? "ok" : "FAIL",
			    checks[i].name, display_str(checks[i].detail));
			if (checks[i].fix != NULL)
				printf("     %-24s fix: %s\n", "",
				    display_str(checks[i].fix));
		}
		for (size_t i = 0; i < p.notes.n; i++)
			printf("     note: %s\n", display_str(p.notes.v[i]));
	}
	for (size_t i = 0; i < n; i++) {
		free(checks[i].detail);
		free(checks[i].fix);
	}
	probe_release(&p);
	return all_ok ? 0 : 1;
}
