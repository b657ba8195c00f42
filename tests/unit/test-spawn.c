/* test-spawn: the one spawner (spawn.c) and its users' failure paths:
   descriptor map, default signal dispositions and an empty mask in the
   child, exec failure told apart, cgroup joining, process groups, no descriptor leaked
   when fork or pipe2 fails (runner.c, probe.c). fork and pipe2 are wrapped
   (-Wl,--wrap) so a test can make them fail. */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <seccomp.h>
#include <sys/syscall.h>

#include "buf.h"
#include "probe.h"
#include "proctree.h"
#include "runner.h"
#include "spawn.h"
#include "strv.h"

pid_t	__real_fork(void);
pid_t	__wrap_fork(void);
int	__real_clone(int (*)(void *), void *, int, void *, ...);
int	__wrap_clone(int (*)(void *), void *, int, void *, ...);
int	__wrap_pipe2(int[2], int);
int	__real_pipe2(int[2], int);

static int	fail_fork;		/* fork and clone fail with EAGAIN */
static int	pipe2_ok = -1;		/* pipe2 calls that succeed; -1: all */
static int	forks, clones;		/* calls that went through */

pid_t
__wrap_fork(void)
{
	if (fail_fork) {
		errno = EAGAIN;
		return -1;
	}
	forks++;
	return __real_fork();
}

/* spawn.c starts a child that only execs with clone (CLONE_VFORK). */
int
__wrap_clone(int (*fn)(void *), void *stack, int flags, void *arg, ...)
{
	if (fail_fork) {
		errno = EAGAIN;
		return -1;
	}
	clones++;
	return __real_clone(fn, stack, flags, arg);
}

int
__wrap_pipe2(int p[2], int flags)
{
	if (pipe2_ok == 0) {
		errno = EMFILE;
		return -1;
	}
	if (pipe2_ok > 0)
		pipe2_ok--;
	return __real_pipe2(p, flags);
}

/* How many descriptors this process has open. */
static int
count_fds(void)
{
	DIR		*d = opendir("/proc/self/fd");
	struct dirent	*de;
	int		 n = 0;

	assert_non_null(d);
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* the directory's own */
}

/* Run sh -c script, stdout captured. */
static char *
sh_out(const char *script, int *status)
{
	char	*argv[] = { (char *)"/bin/sh", (char *)"-c", (char *)script,
		    NULL };
	char	*cause = NULL;
	struct buf b = BUF_INIT;

	*status = spawn_capture(argv, 0, 1, &b, 0, &cause);
	assert_null(cause);
	buf_putc(&b, '\0');
	return buf_detach(&b);
}

/* A parent that ignores SIGPIPE and blocks signals hands neither on. */
static void
test_signals_reset(void **state)
{
	sigset_t	 set, old;
	char		*out;
	int		 status;

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, &old);
	out = sh_out("grep -E '^Sig(Ign|Blk)' /proc/self/status", &status);
	assert_int_equal(status, 0);
	assert_string_equal(out, "SigBlk:\t0000000000000000\n"
	    "SigIgn:\t0000000000000000\n");
	free(out);
	/* The symptom: no "Broken pipe" from yes, and head still works. */
	out = sh_out("yes 2>&1 | head -1", &status);
	assert_string_equal(out, "y\n");
	free(out);
	sigprocmask(SIG_SETMASK, &old, NULL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}

/* Sources that sit on each other's target numbers are not clobbered, and
   nothing outside the map reaches the child. */
static void
test_fd_map(void **state)
{
	struct spawn	 sp = SPAWN_INIT;
	char		*argv[] = { (char *)"/bin/sh", (char *)"-c",
		    (char *)"echo one; echo two >&2; echo three >&3; "
		    "ls /proc/self/fd >&3", NULL };
	char		*cause = NULL;
	int		 a[2], b[2], stray, fds[4];
	struct buf	 ba = BUF_INIT, bb = BUF_INIT;

	(void)state;
	assert_int_equal(pipe2(a, O_CLOEXEC), 0);
	assert_int_equal(pipe2(b, O_CLOEXEC), 0);
	stray = open("/dev/null", O_RDONLY);	/* no CLOEXEC: must not leak */
	assert_true(stray >= 0);
	/* Child 1 and 3 get a's write end, child 2 gets b's. */
	fds[0] = SPAWN_DEVNULL;
	fds[1] = a[1];
	fds[2] = b[1];
	fds[3] = a[1];
	sp.argv = argv;
	sp.fds = fds;
	sp.nfds = 4;
	assert_int_equal(spawn_start(&sp, &cause), 0);
	close(a[1]);
	close(b[1]);
	buf_read_fd(&ba, a[0], 0);
	buf_read_fd(&bb, b[0], 0);
	assert_int_equal(spawn_wait(&sp), 0);
	spawn_release(&sp);
	/* ls sees 0-3 and its own directory descriptor: nothing else. */
	assert_string_equal(ba.data, "one\nthree\n0\n1\n2\n3\n4\n");
	assert_string_equal(bb.data, "two\n");
	close(a[0]);
	close(b[0]);
	close(stray);
	buf_release(&ba);
	buf_release(&bb);
}

/* An exec failure is an error of its own, not an exit status. */
static void
test_exec_failure(void **state)
{
	struct spawn	 sp = SPAWN_INIT;
	char		*argv[] = { (char *)"/nonexistent/prog", NULL };
	char		*argv2[] = { (char *)"no-such-program-bwgate", NULL };
	char		*cause = NULL;
	int		 before = count_fds();

	(void)state;
	sp.argv = argv;
	assert_int_equal(spawn_start(&sp, &cause), -1);
	assert_non_null(strstr(cause, "cannot run '/nonexistent/prog': "
	    "No such file or directory"));
	free(cause);
	cause = NULL;
	sp.argv = argv2;
	sp.flags = SPAWN_SEARCH;
	assert_int_equal(spawn_start(&sp, &cause), -1);
	assert_non_null(strstr(cause, "not found"));
	free(cause);
	assert_int_equal(count_fds(), before);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);	/* reaped */
}

/* fn: the child runs a function of ours with its descriptors in place
   and every other one closed, and exits with what it returns. */
static int
child_fn(void *arg)
{
	int	open_fds = 0;
	char	line[64];

	for (int fd = 0; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			open_fds++;
	snprintf(line, sizeof line, "%s %d\n", (const char *)arg, open_fds);
	(void)!write(1, line, strlen(line));
	return 7;
}

static void
test_fn(void **state)
{
	struct spawn	 sp = SPAWN_INIT;
	char		*name[] = { (char *)"a function", NULL };
	char		 got[64] = "";
	int		 p[2], stray = open("/dev/null", O_RDONLY), fds[2];
	char		*cause = NULL;
	ssize_t		 n;

	(void)state;
	assert_int_equal(pipe(p), 0);
	fds[0] = SPAWN_DEVNULL;
	fds[1] = p[1];
	sp.argv = name;
	sp.fds = fds;
	sp.nfds = 2;
	sp.fn = child_fn;
	sp.fn_arg = (void *)"hello";
	assert_int_equal(spawn_start(&sp, &cause), 0);
	close(p[1]);
	n = read(p[0], got, sizeof got - 1);
	assert_true(n > 0);
	/* Only 0 and 1: the stray descriptor and the pipe's other end
	   were closed, though no exec came. */
	assert_string_equal(got, "hello 2\n");
	spawn_wait(&sp);
	assert_true(WIFEXITED(sp.status));
	assert_int_equal(WEXITSTATUS(sp.status), 7);
	spawn_release(&sp);
	close(p[0]);
	close(stray);
}

/* SPAWN_DETACH: the program runs in a new session, in a grandchild (not
   ours to reap, and no session leader: it cannot take a terminal); the
   child in between exits at once; an exec failure is still told. */
static void
test_detach(void **state)
{
	struct spawn	 sp = SPAWN_INIT;
	char		*argv[] = { (char *)"/bin/sh", (char *)"-c",
			    (char *)"echo $$ $(ps -o sid= -p $$)", NULL };
	char		*bad[] = { (char *)"/nonexistent/daemon", NULL };
	char		 got[128] = "";
	int		 p[2], fds[2];
	long		 pid = 0, sid = 0;
	char		*cause = NULL;
	ssize_t		 n, k = 0;

	(void)state;
	assert_int_equal(pipe(p), 0);
	fds[0] = SPAWN_DEVNULL;
	fds[1] = p[1];
	sp.argv = argv;
	sp.fds = fds;
	sp.nfds = 2;
	sp.flags = SPAWN_DETACH;
	assert_int_equal(spawn_start(&sp, &cause), 0);
	close(p[1]);
	spawn_wait(&sp);
	assert_true(WIFEXITED(sp.status) && WEXITSTATUS(sp.status) == 0);
	while ((n = read(p[0], got + k, sizeof got - 1 - (size_t)k)) > 0)
		k += n;
	close(p[0]);
	assert_int_equal(sscanf(got, "%ld %ld", &pid, &sid), 2);
	assert_int_not_equal(pid, sp.pid);	/* a grandchild */
	assert_int_equal(sid, (long)sp.pid);	/* the session the child in
						   between made */
	assert_int_not_equal(sid, (long)getsid(0));
	spawn_release(&sp);

	sp = (struct spawn)SPAWN_INIT;
	sp.argv = bad;
	sp.flags = SPAWN_DETACH;
	assert_int_equal(spawn_start(&sp, &cause), -1);
	assert_non_null(strstr(cause, "No such file or directory"));
	free(cause);
}

/*
 * join: the child writes "0" into each file before exec (a cgroup's
 * membership file moves the writer); a failed write is a failed start,
 * and the program never runs. A pipe and /dev/full stand in for the
 * cgroup files (contain-limits.sh checks real cgroups).
 */
static void
test_join(void **state)
{
	struct spawn	 sp = SPAWN_INIT;
	char		 dir[] = "/tmp/bwgate-test-join.XXXXXX", path[64];
	char		*argv[] = { (char *)"/bin/sh", (char *)"-c",
			    (char *)"echo ran > \"$0\"", path, NULL };
	char		*cause = NULL, got[8] = "";
	int		 p[2], join[2], full, before = count_fds();

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/ran", dir);
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	join[0] = join[1] = p[1];
	sp.argv = argv;
	sp.join = join;
	sp.njoin = 2;
	assert_int_equal(spawn_start(&sp, &cause), 0);
	assert_int_equal(spawn_wait(&sp), 0);
	spawn_release(&sp);
	close(p[1]);
	assert_int_equal(read(p[0], got, sizeof got - 1), 2);
	assert_string_equal(got, "00");
	close(p[0]);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(unlink(path), 0);

	assert_true((full = open("/dev/full", O_WRONLY | O_CLOEXEC)) >= 0);
	sp = (struct spawn)SPAWN_INIT;
	sp.argv = argv;
	sp.join = &full;
	sp.njoin = 1;
	assert_int_equal(spawn_start(&sp, &cause), -1);
	assert_non_null(strstr(cause, "cannot join its cgroup: No space"));
	free(cause);
	close(full);
	assert_int_equal(access(path, F_OK), -1);	/* never ran */
	assert_int_equal(rmdir(dir), 0);
	assert_int_equal(count_fds(), before);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);	/* reaped */
}

/* SPAWN_PGROUP: the child leads its own group; spawn_kill reaches it. */
static void
test_pgroup(void **state)
{
	struct spawn	 sp = SPAWN_INIT;
	char		*argv[] = { (char *)"/bin/sleep", (char *)"30", NULL };
	char		*cause = NULL;
	int		 fds[3] = { SPAWN_DEVNULL, SPAWN_DEVNULL, 2 };

	(void)state;
	sp.argv = argv;
	sp.fds = fds;
	sp.nfds = 3;
	sp.flags = SPAWN_PGROUP;
	assert_int_equal(spawn_start(&sp, &cause), 0);
	assert_true(sp.pidfd >= 0);
	assert_int_equal(getpgid(sp.pid), sp.pid);
	assert_int_equal(spawn_kill(&sp, SIGKILL), 0);
	spawn_wait(&sp);
	assert_true(WIFSIGNALED(sp.status));
	assert_int_equal(WTERMSIG(sp.status), SIGKILL);
	spawn_release(&sp);
}

/* Is pid gone (or a zombie nobody reaped yet)? Polled up to 5 s. */
static bool
pid_dies(pid_t pid)
{
	char	path[64], buf[256], *p;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	for (int i = 0; i < 500; i++) {
		FILE	*f = fopen(path, "r");
		size_t	 n;

		if (f == NULL)
			return true;
		n = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[n] = '\0';
		if ((p = strrchr(buf, ')')) != NULL && p[1] == ' ' &&
		    p[2] == 'Z')
			return true;
		usleep(10000);
	}
	return false;
}

/* proctree_kill reaches a grandchild in a session of its own, which a
   signal to the child's group misses (bwrap's sandbox is one). */
static void
test_proctree(void **state)
{
	struct spawn	 sp = SPAWN_INIT;
	char		*argv[] = { (char *)"/bin/sh", (char *)"-c",
	    (char *)"setsid sh -c 'sleep 31 & echo $! >&3; wait' & wait",
	    NULL };
	char		*cause = NULL, line[32];
	int		 p[2], fds[4];
	ssize_t		 n;
	pid_t		 grandchild;

	(void)state;
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	fds[0] = SPAWN_DEVNULL;
	fds[1] = SPAWN_DEVNULL;
	fds[2] = 2;
	fds[3] = p[1];
	sp.argv = argv;
	sp.fds = fds;
	sp.nfds = 4;
	sp.flags = SPAWN_PGROUP;
	assert_int_equal(spawn_start(&sp, &cause), 0);
	close(p[1]);
	n = read(p[0], line, sizeof line - 1);
	close(p[0]);
	assert_true(n > 0);
	line[n] = '\0';
	grandchild = (pid_t)atoi(line);
	assert_true(grandchild > 0);
	assert_int_not_equal(getsid(grandchild), getsid(sp.pid));
	/* Deepest first: a parent may see its child die and exit on its own
	   before its own signal comes, so only the sleep's is certain. */
	assert_true(proctree_kill(sp.pid, SIGKILL) >= 1);
	spawn_wait(&sp);
	assert_true(pid_dies(grandchild));
	spawn_release(&sp);
}

/* A child that only execs shares our memory until exec (clone with
   CLONE_VFORK: no page tables copied); one that runs a function gets a
   fork. AddressSanitizer builds fork always (spawn.c says why). */
static void
test_exec_by_clone(void **state)
{
	char	*argv[] = { (char *)"/bin/true", NULL }, *cause = NULL;
	char	*name[] = { (char *)"fn", NULL };
	struct buf b = BUF_INIT;
	struct spawn sp = SPAWN_INIT;
	int	 fds[1] = { SPAWN_DEVNULL }, f = forks, c = clones;

	(void)state;
	assert_int_equal(spawn_capture(argv, 0, 1, &b, 0, &cause), 0);
	buf_release(&b);
#if defined(__SANITIZE_ADDRESS__)
	assert_int_equal(forks, f + 1);
#else
	assert_int_equal(clones, c + 1);
	assert_int_equal(forks, f);
#endif
	f = forks;
	c = clones;
	sp.argv = name;
	sp.fds = fds;
	sp.nfds = 1;
	sp.fn = child_fn;
	sp.fn_arg = (void *)"x";
	assert_int_equal(spawn_start(&sp, &cause), 0);
	spawn_wait(&sp);
	spawn_release(&sp);
	assert_int_equal(forks, f + 1);
	assert_int_equal(clones, c);
}

/* A fork failure in the runner leaves no descriptor behind. */
static void
test_runner_fork_fails(void **state)
{
	struct strv	 argv = STRV_INIT;
	struct runner	 r;
	char		*cause = NULL;
	int		 before = count_fds();

	(void)state;
	strv_push(&argv, "/bin/true");
	fail_fork = 1;
	assert_int_equal(runner_spawn(&argv, NULL, 0, 0, false, NULL, 0, NULL, 0, &r,
	    &cause), -1);
	fail_fork = 0;
	assert_non_null(strstr(cause, "cannot fork"));
	free(cause);
	assert_int_equal(count_fds(), before);
	/* And the runner's success path still works. */
	assert_int_equal(runner_spawn(&argv, NULL, 0, 0, false, NULL, 0, NULL, 0, &r,
	    &cause), 0);
	assert_int_equal(runner_wait(&r), 0);
	runner_close(&r);
	assert_int_equal(count_fds(), before);
	strv_release(&argv);
}

/* pipe2 failing (EMFILE) in the middle of the probe: an error, no double
   free. A failing "bwrap" makes the probe try every variant. */
static void
test_probe_pipe_fails(void **state)
{
	struct probe	p;

	(void)state;
	setenv("container", "test", 1);	/* nested: the probe runs bwrap */
	setenv("BWGATE_BWRAP", "/bin/false", 1);
	probe_init(&p);
	pipe2_ok = 1;		/* the first variant runs, the rest cannot */
	assert_int_equal(probe_host(&p, false), 0);
	pipe2_ok = -1;
	assert_false(p.userns_ok);
	assert_non_null(p.error);
	assert_non_null(strstr(p.error, "Too many open files"));
	probe_release(&p);
	unsetenv("container");
	unsetenv("BWGATE_BWRAP");
}

/* Without close_range (old kernels, or a seccomp filter that refuses it)
   the loop still keeps every other descriptor from the child. */
static void
test_no_close_range(void **state)
{
	pid_t	pid;
	int	status;

	(void)state;
	if ((pid = fork()) == 0) {
		scmp_filter_ctx	 ctx = seccomp_init(SCMP_ACT_ALLOW);
		char		*argv[] = { (char *)"/bin/ls",
				    (char *)"/proc/self/fd", NULL };
		char		*cause = NULL;
		struct buf	 b = BUF_INIT;

		if (ctx == NULL || seccomp_rule_add(ctx,
		    SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(close_range), 0) != 0 ||
		    seccomp_load(ctx) != 0)
			_exit(2);
		if (syscall(SYS_close_range, 100U, 200U, 0) == 0 ||
		    errno != ENOSYS)
			_exit(3);	/* the filter did not take */
		for (int i = 0; i < 5; i++)
			(void)open("/dev/null", O_RDONLY);	/* no CLOEXEC */
		if (spawn_capture(argv, 0, 1, &b, 0, &cause) != 0)
			_exit(4);
		/* 0-2 and ls's own directory descriptor. */
		_exit(b.data != NULL && strcmp(b.data, "0\n1\n2\n3\n") == 0 ?
		    0 : 5);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signals_reset),
		cmocka_unit_test(test_fd_map),
		cmocka_unit_test(test_exec_failure),
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_fn),
		cmocka_unit_test(test_detach),
		cmocka_unit_test(test_pgroup),
		cmocka_unit_test(test_proctree),
		cmocka_unit_test(test_exec_by_clone),
		cmocka_unit_test(test_runner_fork_fails),
		cmocka_unit_test(test_probe_pipe_fails),
		cmocka_unit_test(test_no_close_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
