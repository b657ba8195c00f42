/* test-sandbox: the exact bwrap argv for each policy (sandbox.c). */
#include "autoconf.h"

#include <errno.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "bpfcache.h"
#include "path.h"
#include "probe.h"
#include "sandbox.h"
#include "xalloc.h"

struct fixture {
	char			 dir[64];
	char			*project;
	struct sandbox_policy	 pol;
	struct probe		 probe;
	struct sandbox		 sb;
};

static int
setup(void **state)
{
	struct fixture	*f = xcalloc(1, sizeof *f);
	char		*cause = NULL, *p;

	strcpy(f->dir, "/tmp/test-sandbox.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->project = path_join(f->dir, "proj");
	mkdir(f->project, 0755);
	p = path_join(f->project, ".git");
	mkdir(p, 0755);
	free(p);
	p = path_join(f->project, ".git/hooks");
	mkdir(p, 0755);
	free(p);
	p = path_join(f->dir, "home");
	mkdir(p, 0755);
	setenv("HOME", p, 1);
	free(p);
	/* The build's caches (seccomp programs, secret files) stay here. */
	p = path_join(f->dir, "run");
	mkdir(p, 0700);
	setenv("XDG_RUNTIME_DIR", p, 1);
	free(p);
	/* The shape of one sandbox alone; the pod's in test_pod_shape. */
	setenv("BWGATE_POD", "0", 1);
	sandbox_policy_init(&f->pol);
	assert_int_equal(sandbox_policy_set_dirs(&f->pol, f->project, NULL,
	    &cause), 0);
	probe_init(&f->probe);
	probe_assume_ok(&f->probe);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture	*f = *state;
	char		*cmd = xasprintf("rm -rf '%s'", f->dir);

	sandbox_release(&f->sb);
	sandbox_policy_release(&f->pol);
	probe_release(&f->probe);
	if (system(cmd) != 0)
		fprintf(stderr, "# cannot remove %s\n", f->dir);
	free(cmd);
	free(f->project);
	free(f);
	return 0;
}

/* Index of a sequence of arguments in the argv, or -1. */
static int
find_seq(const struct sandbox *sb, ...)
{
	const char	*want[8];
	size_t		 n = 0;
	va_list		 ap;

	va_start(ap, sb);
	while (n < 8 && (want[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	for (size_t i = 0; i + n <= sb->argv.n; i++) {
		size_t k;

		for (k = 0; k < n; k++)
			if (strcmp(sb->argv.v[i + k], want[k]) != 0)
				break;
		if (k == n)
			return (int)i;
	}
	return -1;
}

static void
build_ok(struct fixture *f, int flags)
{
	char	*cause = NULL;
	int	 rc = sandbox_build(&f->pol, &f->probe, flags, &f->sb, &cause);

	if (rc != 0)
		fail_msg("sandbox_build: %s", cause);
}

static void
test_default_shape(void **state)
{
	struct fixture	*f = *state;
	char		*git = path_join(f->project, ".git");
	int		 proj, prot;

	build_ok(f, SANDBOX_DRY);
	assert_string_equal(f->sb.argv.v[0], f->probe.bwrap);
	assert_string_equal(f->sb.argv.v[f->sb.argv.n - 1], "--");
	assert_int_equal(find_seq(&f->sb, f->probe.bwrap, "--unshare-all",
	    "--unshare-user", "--die-with-parent", "--new-session",
	    "--disable-userns", "--cap-drop", NULL), 0);
	assert_true(find_seq(&f->sb, "--share-net", NULL) < 0);
	assert_true(find_seq(&f->sb, "--clearenv", NULL) > 0);
	assert_true(find_seq(&f->sb, "--ro-bind", "/usr", "/usr", NULL) > 0);
	assert_true(find_seq(&f->sb, "--ro-bind", "/etc", "/etc", NULL) > 0);
	assert_true(find_seq(&f->sb, "--dev", "/dev", NULL) > 0);
	assert_true(find_seq(&f->sb, "--proc", "/proc", NULL) > 0);
	assert_true(find_seq(&f->sb, "--tmpfs", "/tmp", NULL) > 0);
	assert_true(find_seq(&f->sb, "--tmpfs", "/var/tmp", NULL) > 0);
	assert_true(find_seq(&f->sb, "--tmpfs", "/run", NULL) > 0);
	assert_true(find_seq(&f->sb, "--tmpfs", getenv("HOME"), NULL) > 0);
	/* Descriptors are numbered from 3 in order. */
	proj = find_seq(&f->sb, "--bind-fd", "3", f->project, NULL);
	prot = find_seq(&f->sb, "--ro-bind-fd", "4", git, NULL);
	assert_true(proj > 0);
	assert_true(prot > proj);	/* protected after the project */
	assert_true(find_seq(&f->sb, "--chdir", f->project, "--", NULL) > 0);
	assert_true(find_seq(&f->sb, "--seccomp", NULL) > 0);
	assert_true(find_seq(&f->sb, "--json-status-fd", NULL) > 0);
	assert_int_equal(sandbox_status_slot(&f->sb), (int)f->sb.nfds - 1);
	/* .git covers .git/hooks and .git/config: one mount, not three. */
	assert_int_equal(f->sb.nfds, 5);	/* project .git seccomp block
						   status; an absent
						   .bwgate.json: no mount */
	assert_int_equal(sandbox_fd_slot(&f->sb, "--block-fd"),
	    (int)f->sb.nfds - 2);
	assert_int_equal(sandbox_fd_slot(&f->sb, "--bogus"), -1);
	assert_string_equal(f->sb.proc_mode, "fresh");
	assert_int_equal(f->sb.warnings.n, 0);
	free(git);
}

static void
test_usr_merge_symlinks(void **state)
{
	struct fixture	*f = *state;
	struct stat	 st;
	char		 target[256];
	ssize_t		 n;

	if (lstat("/bin", &st) != 0 || !S_ISLNK(st.st_mode))
		skip();
	n = readlink("/bin", target, sizeof target - 1);
	assert_true(n > 0);
	target[n] = '\0';
	build_ok(f, SANDBOX_DRY);
	assert_true(find_seq(&f->sb, "--symlink", target, "/bin", NULL) > 0);
	assert_true(find_seq(&f->sb, "--ro-bind", "/bin", "/bin", NULL) < 0);
}

static void
test_network_on(void **state)
{
	struct fixture	*f = *state;

	char		*cause = NULL;

	/* Its own namespace (slirp4netns attaches later), never the host's. */
	f->pol.network = true;
	setenv("BWGATE_SLIRP4NETNS", "/bin/true", 1);
	build_ok(f, SANDBOX_DRY);
	assert_true(find_seq(&f->sb, "--unshare-all", "--unshare-user",
	    NULL) > 0);
	assert_true(find_seq(&f->sb, "--share-net", NULL) < 0);
	sandbox_release(&f->sb);
	f->sb = (struct sandbox)SANDBOX_INIT;

	/* No backend: a dry run warns, a real one refuses. */
	setenv("BWGATE_SLIRP4NETNS", "/nonexistent", 1);
	build_ok(f, SANDBOX_DRY);
	assert_true(f->sb.warnings.n > 0);
	sandbox_release(&f->sb);
	f->sb = (struct sandbox)SANDBOX_INIT;
	assert_int_equal(sandbox_build(&f->pol, &f->probe, 0, &f->sb, &cause),
	    -1);
	assert_non_null(strstr(cause, "needs slirp4netns"));
	free(cause);
	unsetenv("BWGATE_SLIRP4NETNS");
}

static void
test_readonly_profile(void **state)
{
	struct fixture	*f = *state;

	f->pol.project_readonly = true;
	build_ok(f, SANDBOX_DRY);
	assert_true(find_seq(&f->sb, "--ro-bind-fd", "3", f->project, NULL) >
	    0);
	assert_true(find_seq(&f->sb, "--bind-fd", NULL) < 0);
	assert_int_equal(f->sb.nfds, 4);	/* project seccomp block status */
}

static void
test_git_write_profile(void **state)
{
	struct fixture	*f = *state;
	char		*hooks = path_join(f->project, ".git/hooks");
	char		*config = path_join(f->project, ".git/config");
	char		*git = path_join(f->project, ".git");

	f->pol.git_writable = true;
	build_ok(f, SANDBOX_DRY);
	assert_true(find_seq(&f->sb, "--ro-bind-fd", "4", git, NULL) < 0);
	assert_true(find_seq(&f->sb, "--ro-bind-fd", "4", hooks, NULL) > 0);
	/* .git/config is absent: nothing is mounted there (the observer
	   refuses to create it at the call). */
	assert_true(find_seq(&f->sb, "--ro-bind-fd", "5", config, NULL) < 0);
	free(hooks);
	free(config);
	free(git);
}

static void
test_nested_variants(void **state)
{
	struct fixture	*f = *state;

	f->probe.proc_fresh = false;
	f->probe.disable_userns = false;
	build_ok(f, SANDBOX_DRY);
	assert_true(find_seq(&f->sb, "--ro-bind", "/proc", "/proc", NULL) > 0);
	assert_true(find_seq(&f->sb, "--proc", NULL) < 0);
	assert_true(find_seq(&f->sb, "--disable-userns", NULL) < 0);
	assert_string_equal(f->sb.proc_mode, "bind");
	assert_int_equal(f->sb.warnings.n, 2);
}

static void
test_allow_nested_sandboxes(void **state)
{
	struct fixture	*f = *state;

	f->pol.allow_userns = true;
	build_ok(f, SANDBOX_DRY);
	assert_true(find_seq(&f->sb, "--disable-userns", NULL) < 0);
	/* A nested bwrap writes its uid_map: /proc stays writable, said. */
	assert_int_equal(f->sb.warnings.n, 1);
	assert_false(f->sb.proc_readonly);
	assert_true(find_seq(&f->sb, "--remount-ro", "/proc", NULL) < 0);
	if (f->sb.kernel_uid != 0 && f->probe.proc_fresh) {
		/* It mounts its own /proc: nothing may cover this one. */
		assert_true(find_seq(&f->sb, "--ro-bind", "/dev/null",
		    "/proc/1/mem", NULL) < 0);
		return;
	}
	if (access("/proc/sys", F_OK) == 0)
		assert_true(find_seq(&f->sb, "--ro-bind", "/proc/sys",
		    "/proc/sys", NULL) > 0);
	assert_true(find_seq(&f->sb, "--ro-bind", "/dev/null", "/proc/1/mem",
	    NULL) > 0);
}

/* /proc read-only as a whole, Docker's masked set, no /sys. */
static void
test_proc_masking(void **state)
{
	struct fixture	*f = *state;
	const char	*masked[] = { "/proc/kcore", "/proc/keys",
			    "/proc/timer_list", "/proc/sched_debug",
			    "/proc/latency_stats", NULL };
	const char	*dirs[] = { "/proc/acpi", "/proc/scsi", NULL };
	int		 proc;

	build_ok(f, SANDBOX_DRY);
	proc = find_seq(&f->sb, "--proc", "/proc", NULL);
	assert_true(proc > 0);
	assert_int_equal(find_seq(&f->sb, "--remount-ro", "/proc", NULL),
	    proc + 2);
	assert_true(f->sb.proc_readonly);
	for (size_t i = 0; masked[i] != NULL; i++)
		assert_true((find_seq(&f->sb, "--ro-bind", "/dev/null",
		    masked[i], NULL) > proc) == (access(masked[i], F_OK) == 0));
	for (size_t i = 0; dirs[i] != NULL; i++)
		assert_true((find_seq(&f->sb, "--tmpfs", dirs[i],
		    "--remount-ro", dirs[i], NULL) > proc) ==
		    (access(dirs[i], F_OK) == 0));
	assert_true(find_seq(&f->sb, "/sys", NULL) < 0);
	/* Nested: the bound /proc is read-only, masked the same way. */
	sandbox_release(&f->sb);
	f->probe.proc_fresh = false;
	build_ok(f, SANDBOX_DRY);
	proc = find_seq(&f->sb, "--ro-bind", "/proc", "/proc", NULL);
	assert_true(proc > 0);
	assert_true(f->sb.proc_readonly);
	if (access("/proc/keys", F_OK) == 0)
		assert_true(find_seq(&f->sb, "--ro-bind", "/dev/null",
		    "/proc/keys", NULL) > proc);
}

/* /sys only when named: read-only, firmware masked; never writable. */
static void
test_sys_on_request(void **state)
{
	struct fixture	*f = *state;
	char		*cause = NULL;

	if (access("/sys/firmware", F_OK) != 0)
		skip();
	strv_push(&f->pol.ro_paths, "/sys");
	build_ok(f, SANDBOX_DRY);
	assert_true(find_seq(&f->sb, "--ro-bind-fd", "3", "/sys", NULL) > 0);
	assert_true(find_seq(&f->sb, "--tmpfs", "/sys/firmware",
	    "--remount-ro", "/sys/firmware", NULL) > 0);
	sandbox_release(&f->sb);
	strv_push(&f->pol.rw_paths, "/sys/kernel");
	assert_int_equal(sandbox_build(&f->pol, &f->probe, SANDBOX_DRY,
	    &f->sb, &cause), -1);
	assert_non_null(strstr(cause, "only be read-only"));
	free(cause);
}

/* Kernel uid 0: what only root can read in /etc is hidden. */
static void
test_secrets_hidden(void **state)
{
	struct fixture	*f = *state;
	struct stat	 st;

	if (stat("/etc/shadow", &st) != 0 || (st.st_mode & S_IROTH))
		skip();
	build_ok(f, SANDBOX_DRY);
	assert_int_equal(f->sb.kernel_uid, (long)getuid());
	if (getuid() != 0) {
		/* An ordinary user cannot read it anyway. */
		assert_int_equal(f->sb.secrets_hidden, 0);
		assert_true(find_seq(&f->sb, "--ro-bind", "/dev/null",
		    "/etc/shadow", NULL) < 0);
		return;
	}
	assert_true(f->sb.secrets_hidden > 0);
	assert_true(find_seq(&f->sb, "--ro-bind", "/dev/null", "/etc/shadow",
	    NULL) > find_seq(&f->sb, "--ro-bind", "/etc", "/etc", NULL));
	/* Unless the policy names it. */
	sandbox_release(&f->sb);
	strv_push(&f->pol.ro_paths, "/etc/shadow");
	build_ok(f, SANDBOX_DRY);
	assert_true(find_seq(&f->sb, "--ro-bind", "/dev/null", "/etc/shadow",
	    NULL) < 0);
}

/* Root running for a user's project runs the sandbox as that user. */
static void
test_root_runs_as_owner(void **state)
{
	struct fixture	*f = *state;
	char		*cause, *want;

	/* Only root can chown the project (cmocka's skip() reads as a
	   failure in TAP); the root pass runs it. */
	if (getuid() != 0)
		return;
	if (chown(f->project, 12345, 12345) != 0) {
		/* Nested: the outer namespace maps no uid 12345. */
		assert_true(errno == EINVAL || errno == EPERM);
		return;
	}
	/* The fixture's directory is root's and 0700 (mkdtemp): the owner
	   cannot reach the project, and is refused before any argv. */
	cause = NULL;
	assert_int_equal(sandbox_build(&f->pol, &f->probe, SANDBOX_DRY,
	    &f->sb, &cause), -1);
	want = xasprintf("the sandbox runs as uid 12345 (the project's "
	    "owner), who cannot search '%s' on the way to the project '%s': "
	    "chmod o+x %s, or move the project where that user can reach it",
	    f->dir, f->project, f->dir);
	assert_string_equal(cause, want);
	free(want);
	free(cause);
	assert_int_equal(f->sb.argv.n, 0);
	sandbox_release(&f->sb);
	/* Its group may search it: the narrowest fix says so. */
	assert_int_equal(chown(f->dir, 0, 12345), 0);
	cause = NULL;
	assert_int_equal(sandbox_build(&f->pol, &f->probe, SANDBOX_DRY,
	    &f->sb, &cause), -1);
	assert_non_null(strstr(cause, ": chmod g+x "));
	free(cause);
	sandbox_release(&f->sb);
	assert_int_equal(chmod(f->dir, 0710), 0);
	build_ok(f, SANDBOX_DRY);
	sandbox_release(&f->sb);
	assert_int_equal(chown(f->dir, 0, 0), 0);
	assert_int_equal(chmod(f->dir, 0701), 0);
	build_ok(f, SANDBOX_DRY);
	assert_int_equal(find_seq(&f->sb, "/usr/bin/setpriv", "--reuid=12345",
	    "--regid=12345", "--clear-groups", "--pdeathsig=KILL", "--",
	    f->probe.bwrap, "--unshare-all", NULL), 0);
	assert_int_equal(f->sb.kernel_uid, 12345);
	assert_string_equal(f->sb.run_as, "12345");
	assert_int_equal(f->sb.secrets_hidden, 0);
	/* Where only root may create namespaces: uid 0, said. */
	sandbox_release(&f->sb);
	f->probe.userns_unpriv = false;
	build_ok(f, SANDBOX_DRY);
	assert_string_equal(f->sb.argv.v[0], f->probe.bwrap);
	assert_int_equal(f->sb.kernel_uid, 0);
	assert_int_equal(f->sb.warnings.n, 1);
}

/* Every .git at any depth is read-only; git-write keeps its metadata. */
static void
test_nested_git(void **state)
{
	struct fixture	*f = *state;
	const char	*mk[] = { "sub", "lib", "lib/x", "lib/x/.git",
			    "lib/x/.git/hooks", "lib/x/.git/modules",
			    "lib/x/.git/modules/m", NULL };
	char		*p;
	FILE		*fp;

	for (size_t i = 0; mk[i] != NULL; i++) {
		p = path_join(f->project, mk[i]);
		assert_int_equal(mkdir(p, 0755), 0);
		free(p);
	}
	p = path_join(f->project, "sub/.git");
	assert_non_null(fp = fopen(p, "w"));
	fputs("gitdir: ../.git/modules/sub\n", fp);
	fclose(fp);
	free(p);
	build_ok(f, SANDBOX_DRY);
	assert_int_equal(f->sb.git_nested, 2);
	p = path_join(f->project, "sub/.git");
	assert_true(find_seq(&f->sb, "--ro-bind-fd", NULL) > 0);
	assert_non_null(sandbox_mount_for(&f->sb, p));
	assert_int_equal(sandbox_mount_for(&f->sb, p)->kind, MOUNT_PROTECTED);
	free(p);
	p = path_join(f->project, "lib/x/.git/HEAD");
	assert_int_equal(sandbox_mount_for(&f->sb, p)->kind, MOUNT_PROTECTED);
	free(p);

	/* git-write: data writable, the metadata table not, at any depth. */
	sandbox_release(&f->sb);
	f->pol.git_writable = true;
	build_ok(f, SANDBOX_DRY);
	p = path_join(f->project, "sub/.git");
	assert_int_equal(sandbox_mount_for(&f->sb, p)->kind, MOUNT_PROTECTED);
	free(p);
	p = path_join(f->project, "lib/x/.git/HEAD");
	assert_int_equal(sandbox_mount_for(&f->sb, p)->kind, MOUNT_RW);
	free(p);
	p = path_join(f->project, "lib/x/.git/hooks/pre-commit");
	assert_int_equal(sandbox_mount_for(&f->sb, p)->kind, MOUNT_PROTECTED);
	free(p);
	/* An absent one gets no mount: the observer refuses to make it. */
	p = path_join(f->project, "lib/x/.git/modules/m/hooks");
	assert_int_equal(sandbox_mount_for(&f->sb, p)->kind, MOUNT_RW);
	free(p);
}

static void
test_no_userns_refuses(void **state)
{
	struct fixture	*f = *state;
	char		*cause = NULL;

	f->probe.userns_ok = false;
	f->probe.error = xstrdup("user namespaces are disabled");
	assert_int_equal(sandbox_build(&f->pol, &f->probe, SANDBOX_DRY,
	    &f->sb, &cause), -1);
	assert_string_equal(cause, "user namespaces are disabled");
	free(cause);
}

static void
test_environment(void **state)
{
	struct fixture	*f = *state;

	setenv("TERM", "xterm-test", 1);
	setenv("MY_API_TOKEN", "secret1", 1);
	setenv("AWS_REGION", "secret2", 1);
	setenv("SSH_AUTH_SOCK", "/x", 1);
	setenv("RANDOM_THING", "nope", 1);
	setenv("LC_TIME", "C", 1);
	strv_push(&f->pol.env_pass, "AWS_REGION");
	strv_push(&f->pol.env_set, "FOO=bar");
	build_ok(f, SANDBOX_DRY);
	assert_true(find_seq(&f->sb, "--setenv", "TERM", "xterm-test", NULL)
	    > 0);
	assert_true(find_seq(&f->sb, "--setenv", "LC_TIME", "C", NULL) > 0);
	assert_true(find_seq(&f->sb, "--setenv", "AWS_REGION", "secret2",
	    NULL) > 0);
	assert_true(find_seq(&f->sb, "--setenv", "FOO", "bar", NULL) > 0);
	assert_true(find_seq(&f->sb, "--setenv", "HOME", getenv("HOME"),
	    NULL) > 0);
	assert_true(find_seq(&f->sb, "secret1", NULL) < 0);
	assert_true(find_seq(&f->sb, "SSH_AUTH_SOCK", NULL) < 0);
	assert_true(find_seq(&f->sb, "RANDOM_THING", NULL) < 0);
	assert_true(sandbox_env_is_secret("GITHUB_TOKEN"));
	assert_true(sandbox_env_is_secret("DB_PASSWORD"));
	assert_true(sandbox_env_is_secret("OPENAI_API_KEY"));
	assert_true(sandbox_env_is_secret("DBUS_SESSION_BUS_ADDRESS"));
	assert_false(sandbox_env_is_secret("PATH"));
	assert_false(sandbox_env_is_secret("LANG"));
}

static void
test_extra_paths(void **state)
{
	struct fixture	*f = *state;
	char		*rw = path_join(f->dir, "cache"), *ro = path_join(f->dir,
			    "ref"), *cause = NULL;

	mkdir(rw, 0755);
	mkdir(ro, 0755);
	strv_push(&f->pol.rw_paths, rw);
	strv_push(&f->pol.ro_paths, ro);
	strv_push(&f->pol.hide_paths, ro);
	build_ok(f, SANDBOX_DRY);
	assert_true(find_seq(&f->sb, "--ro-bind-fd", "3", ro, NULL) > 0);
	assert_true(find_seq(&f->sb, "--bind-fd", "4", rw, NULL) > 0);
	assert_true(find_seq(&f->sb, "--tmpfs", ro, NULL) > 0);
	assert_int_equal(sandbox_mount_for(&f->sb, ro)->kind, MOUNT_HIDDEN);
	sandbox_release(&f->sb);
	strv_push(&f->pol.rw_paths, "/nonexistent/bwgate");
	assert_int_equal(sandbox_build(&f->pol, &f->probe, SANDBOX_DRY,
	    &f->sb, &cause), -1);
	assert_non_null(strstr(cause, "/nonexistent/bwgate"));
	free(cause);
	free(rw);
	free(ro);
}

/*
 * The argv shown (a dry build without the helper, as a console makes it)
 * is the argv that starts minus the helper's parts (sandbox_shown_argv):
 * exec compares what it starts with what was shown by that, not by a
 * second build. Placeholders, the seccomp program and the helper's mount
 * are all real here.
 */
static void
test_shown_argv(void **state)
{
	struct fixture	*f = *state;
	struct strv	 dry = STRV_INIT, shown = STRV_INIT;

	strv_push(&f->pol.protected, "absent/");
	build_ok(f, SANDBOX_DRY);
	strv_append_all(&dry, &f->sb.argv);
	assert_int_equal(f->sb.helper_mount_at, 0);
	sandbox_release(&f->sb);
	f->sb = (struct sandbox)SANDBOX_INIT;

	f->pol.helper = xstrdup("/bin/true");
	f->pol.helper_fd = 0;
	build_ok(f, 0);
	assert_true(find_seq(&f->sb, "--", SANDBOX_HELPER_PATH, NULL) > 0);
	sandbox_shown_argv(&f->sb, &shown);
	assert_int_equal(shown.n, dry.n);
	for (size_t i = 0; i < dry.n; i++)
		assert_string_equal(shown.v[i], dry.v[i]);
	assert_int_equal(f->sb.argv.n, dry.n + 6);
	strv_release(&dry);
	strv_release(&shown);
}

static void
test_mount_table(void **state)
{
	struct fixture	*f = *state;
	char		*hook = path_join(f->project, ".git/hooks/pre-commit");
	char		*src = path_join(f->project, "src/x.c");

	build_ok(f, SANDBOX_DRY);
	assert_int_equal(sandbox_mount_for(&f->sb, "/etc/passwd")->kind,
	    MOUNT_RO);
	assert_int_equal(sandbox_mount_for(&f->sb, "/tmp/x")->kind,
	    MOUNT_TMPFS);
	assert_int_equal(sandbox_mount_for(&f->sb, src)->kind, MOUNT_RW);
	assert_int_equal(sandbox_mount_for(&f->sb, hook)->kind,
	    MOUNT_PROTECTED);
	assert_null(sandbox_mount_for(&f->sb, "/srv/data"));
	free(hook);
	free(src);
}

/* An absent protected path makes nothing in the project and no mount
   (issue 36: the observer refuses to create it at the call). */
static void
test_absent_makes_nothing(void **state)
{
	struct fixture	*f = *state;
	char		*policy = path_join(f->project, ".bwgate.json");
	char		*absent = path_join(f->project, "absent");
	struct stat	 st;

	strv_push(&f->pol.protected, "absent/");
	build_ok(f, 0);
	assert_int_equal(lstat(absent, &st), -1);
	assert_int_equal(lstat(policy, &st), -1);
	assert_true(find_seq(&f->sb, absent, NULL) < 0);
	sandbox_finish(&f->sb);
	free(policy);
	free(absent);
}

static void
test_dry_creates_nothing(void **state)
{
	struct fixture	*f = *state;
	char		*policy = path_join(f->project, ".bwgate.json");
	struct stat	 st;

	build_ok(f, SANDBOX_DRY);
	assert_int_equal(lstat(policy, &st), -1);
	free(policy);
}

static void
test_symlinked_protected_refused(void **state)
{
	struct fixture	*f = *state;
	char		*policy = path_join(f->project, ".bwgate.json");
	char		*cause = NULL;

	assert_int_equal(symlink("/etc/passwd", policy), 0);
	assert_int_equal(sandbox_build(&f->pol, &f->probe, 0, &f->sb, &cause),
	    -1);
	assert_non_null(strstr(cause, "symbolic link"));
	free(cause);
	free(policy);
}

static void
test_configured_protected(void **state)
{
	struct fixture	*f = *state;
	char		*secrets = path_join(f->project, "secrets");

	char		*cause = NULL;
	const char	*bad[] = { "../escape", "a/../../b", "a/..", "..", "/",
			    NULL };

	strv_push(&f->pol.protected, "secrets/");
	strv_push(&f->pol.protected, "a..b");	/* a name, not a climb */
	assert_int_equal(mkdir(secrets, 0755), 0);	/* bound when present */
	build_ok(f, SANDBOX_DRY);
	assert_true(find_seq(&f->sb, "--ro-bind-fd", "5", secrets, NULL) > 0);
	assert_true(find_seq(&f->sb, "escape", NULL) < 0);
	/* "!path" lifts an entry (a shipped default) again. */
	sandbox_release(&f->sb);
	strv_push(&f->pol.protected, "!secrets/");
	build_ok(f, SANDBOX_DRY);
	assert_null(sandbox_mount_for(&f->sb, secrets) == NULL ? NULL :
	    (sandbox_mount_for(&f->sb, secrets)->kind == MOUNT_PROTECTED ?
	    "protected" : NULL));
	free(secrets);
	/* A path that leaves the project is refused, not dropped. */
	for (const char **b = bad; *b != NULL; b++) {
		sandbox_release(&f->sb);
		strv_release(&f->pol.protected);
		strv_push(&f->pol.protected, *b);
		assert_int_equal(sandbox_build(&f->pol, &f->probe, SANDBOX_DRY,
		    &f->sb, &cause), -1);
		assert_non_null(strstr(cause, "protected path '"));
		free(cause);
		cause = NULL;
	}
}

static void
test_policy_dirs(void **state)
{
	struct fixture		*f = *state;
	struct sandbox_policy	 pol;
	char			*cause = NULL, *sub = path_join(f->project,
				    "sub");

	mkdir(sub, 0755);
	sandbox_policy_init(&pol);
	assert_int_equal(sandbox_policy_set_dirs(&pol, f->project, sub,
	    &cause), 0);
	assert_string_equal(pol.cwd, sub);
	assert_int_equal(sandbox_policy_set_dirs(&pol, f->project, "/",
	    &cause), -1);
	assert_non_null(strstr(cause, "outside the project"));
	free(cause);
	assert_int_equal(sandbox_policy_set_dirs(&pol, "/", NULL, &cause), -1);
	free(cause);
	assert_int_equal(sandbox_policy_set_dirs(&pol, "/nonexistent/x", NULL,
	    &cause), -1);
	free(cause);
	sandbox_policy_release(&pol);
	free(sub);
}

/* The seccomp cache name changes with bwgate's version and with the code
   that builds the filters; the running binary has a code identity. */
static void
test_bpf_cache_key(void **state)
{
	char	*a = bpf_cache_path("/d", "deny-00", "1.0", "abc");
	char	*b = bpf_cache_path("/d", "deny-00", "1.1", "abc");
	char	*c = bpf_cache_path("/d", "deny-00", "1.0", "abd");
	char	*d = bpf_cache_path("/d", "deny-00", "1.0", "abc");

	(void)state;
	assert_string_not_equal(a, b);
	assert_string_not_equal(a, c);
	assert_string_equal(a, d);
	assert_int_equal(strncmp(a, "/d/bpf-deny-00-", 15), 0);
	assert_true(strlen(bpf_code_id()) >= 16);
	assert_string_equal(bpf_code_id(), bpf_code_id());
	free(a);
	free(b);
	free(c);
	free(d);
}

/* The value of NAME in an environment list, or NULL. */
static const char *
env_value(const struct strv *env, const char *name)
{
	size_t	n = strlen(name);

	for (size_t i = 0; i < env->n; i++)
		if (strncmp(env->v[i], name, n) == 0 && env->v[i][n] == '=')
			return env->v[i] + n + 1;
	return NULL;
}

/* An agent's environment: secrets out unless named, HOME the sandbox's,
   PATH only visible absolute entries, the project's last. */
/* With pods on (pod.h): the pod's network for a sandbox without network
   of its own, the pod's /tmp for every sandbox; a dry build joins none. */
static void
test_pod_shape(void **state)
{
	struct fixture	*f = *state;
	int		 tmp;
	bool		 fresh = f->probe.proc_fresh;

	unsetenv("BWGATE_POD");
	/* A pid namespace of its own first (no fresh /proc: not the pod's);
	   the pod's is last. */
	f->probe.proc_fresh = false;
	build_ok(f, SANDBOX_DRY);
	assert_int_equal(find_seq(&f->sb, f->probe.bwrap, "--unshare-all",
	    "--share-net", "--unshare-user", NULL), 0);
	assert_true((tmp = find_seq(&f->sb, "--bind-fd", "3", "/tmp",
	    NULL)) > 0);
	assert_true(find_seq(&f->sb, "--tmpfs", "/tmp", NULL) < 0);
	assert_true(find_seq(&f->sb, "--tmpfs", "/var/tmp", NULL) > 0);
	/* Before the project, which may lie under /tmp. */
	assert_true(find_seq(&f->sb, "--bind-fd", "4", f->project, NULL) >
	    tmp);
	assert_false(f->sb.pod.held);
	sandbox_release(&f->sb);
	f->sb = (struct sandbox)SANDBOX_INIT;
	/* Network of its own: not the pod's loopback, still its /tmp. */
	f->pol.network = true;
	setenv("BWGATE_SLIRP4NETNS", "/bin/true", 1);
	build_ok(f, SANDBOX_DRY);
	unsetenv("BWGATE_SLIRP4NETNS");
	assert_true(find_seq(&f->sb, "--share-net", NULL) < 0);
	assert_true(find_seq(&f->sb, "--bind-fd", "3", "/tmp", NULL) > 0);
	sandbox_release(&f->sb);
	f->sb = (struct sandbox)SANDBOX_INIT;
	/* More than the project profile: a loopback of its own. */
	f->pol.network = false;
	f->pol.git_writable = true;
	build_ok(f, SANDBOX_DRY);
	assert_true(find_seq(&f->sb, "--share-net", NULL) < 0);
	assert_true(find_seq(&f->sb, "--bind-fd", "3", "/tmp", NULL) > 0);
	sandbox_release(&f->sb);
	f->sb = (struct sandbox)SANDBOX_INIT;
	/* With a fresh /proc, the pod's pid namespace, cgroup or not (the
	   run is told apart by its own IPC namespace where it has none). */
	f->pol.git_writable = false;
	f->probe.proc_fresh = true;
	build_ok(f, SANDBOX_DRY);
	assert_true(f->sb.pod_pid);
	assert_true(find_seq(&f->sb, "--unshare-ipc", "--unshare-uts", NULL) >
	    0);
	assert_true(find_seq(&f->sb, "--unshare-all", NULL) < 0);
	f->probe.proc_fresh = fresh;
	setenv("BWGATE_POD", "0", 1);
}

static void
test_agent_env(void **state)
{
	struct fixture	*f = *state;
	struct strv	 env = STRV_INIT;
	char		*bin = path_join(f->project, "node_modules/.bin");
	char		*path = xasprintf("PATH=%s:rel:/usr/bin:%s/x:/nonexistent",
			    bin, getenv("HOME"));
	char		*want = xasprintf("/usr/bin:%s", bin);

	f->pol.env_agent = true;
	strv_push(&f->pol.env_in, "MYVAR=1");
	strv_push(&f->pol.env_in, "MY_TOKEN=secret");
	strv_push(&f->pol.env_in, "NAMED_TOKEN=ok");
	strv_push(&f->pol.env_in, "HOME=/elsewhere");
	strv_push(&f->pol.env_in, path);
	strv_push(&f->pol.env_pass, "NAMED_TOKEN");
	strv_push(&f->pol.env_set, "FROM_CONFIG=2");
	build_ok(f, SANDBOX_DRY);
	sandbox_env_list(&f->pol, &f->sb, &env);
	assert_string_equal(env_value(&env, "MYVAR"), "1");
	assert_null(env_value(&env, "MY_TOKEN"));
	assert_string_equal(env_value(&env, "NAMED_TOKEN"), "ok");
	assert_string_equal(env_value(&env, "HOME"), getenv("HOME"));
	assert_string_equal(env_value(&env, "PATH"), want);
	assert_string_equal(env_value(&env, "FROM_CONFIG"), "2");
	assert_null(env_value(&env, "GIT_OPTIONAL_LOCKS"));
	/* The argv carries the same, right after the namespaces. */
	assert_true(find_seq(&f->sb, "--setenv", "MYVAR", "1", NULL) > 0);
	assert_true(find_seq(&f->sb, "--clearenv", NULL) <
	    find_seq(&f->sb, "--ro-bind", "/usr", "/usr", NULL));
	strv_release(&env);
	free(bin);
	free(path);
	free(want);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn)	cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_default_shape),
		T(test_pod_shape),
		T(test_agent_env),
		T(test_usr_merge_symlinks),
		T(test_network_on),
		T(test_readonly_profile),
		T(test_git_write_profile),
		T(test_nested_variants),
		T(test_allow_nested_sandboxes),
		T(test_proc_masking),
		T(test_sys_on_request),
		T(test_secrets_hidden),
		T(test_root_runs_as_owner),
		T(test_nested_git),
		T(test_no_userns_refuses),
		T(test_environment),
		T(test_extra_paths),
		T(test_shown_argv),
		T(test_mount_table),
		T(test_absent_makes_nothing),
		T(test_dry_creates_nothing),
		T(test_symlinked_protected_refused),
		T(test_configured_protected),
		T(test_policy_dirs),
		T(test_bpf_cache_key),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
