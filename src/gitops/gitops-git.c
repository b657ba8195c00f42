/*
 * gitops-git: run the host's git on an untrusted repository without
 * letting it run anything of the repository (gitops.h). Only gitops.c
 * calls it.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "cleanup.h"
#include "gitops-int.h"
#include "gitops.h"
#include "loop.h"
#include "path.h"
#include "spawn.h"
#include "strv.h"
#include "xalloc.h"

/* Configuration given on the command line wins over the repository's;
   these are the keys a log or merge-base could be made to run a program
   or reach out with. */
static const char *const gitops_config[] = {
	"core.fsmonitor=",
	"core.hooksPath=/dev/null",
	"core.pager=cat",
	"core.sshCommand=false",
	"core.gitProxy=",
	"core.askPass=",
	"core.alternateRefsCommand=",
	"core.untrackedCache=false",
	"credential.helper=",
	"log.showSignature=false",
	"gpg.program=false",
	"gpg.ssh.program=false",
	"gpg.x509.program=false",
	"protocol.allow=never",
	"fetch.recurseSubmodules=false",
	"gc.auto=0",
	"maintenance.auto=false",
	"i18n.logOutputEncoding=UTF-8",
	"log.mailmap=false",
	"color.ui=false",
	NULL
};

int
gitops_git(const char *project, const char *const *args, const char *input,
    size_t inlen, struct buf *out, size_t max, char **cause)
{
	_cleanup_free_ char *gitdir = path_join(project, ".git");
	_cleanup_free_ char *parent = xstrdup(project);
	struct strv	 av = STRV_INIT, env = STRV_INIT;
	struct spawn	 sp = SPAWN_INIT;
	const char	*path = getenv("PATH");
	int		 p[2] = { -1, -1 }, fds[3], in = -1, status = -1;
	int64_t		 deadline;
	bool		 full = false;
	char		*slash = strrchr(parent, '/');

	if (slash != NULL && slash != parent)
		*slash = '\0';

	strv_pushf(&env, "PATH=%s", path != NULL ? path : "/usr/bin:/bin");
	strv_push(&env, "HOME=/nonexistent");
	strv_push(&env, "XDG_CONFIG_HOME=/nonexistent");
	strv_push(&env, "LC_ALL=C");
	strv_push(&env, "GIT_CONFIG_NOSYSTEM=1");
	strv_push(&env, "GIT_CONFIG_SYSTEM=/dev/null");
	strv_push(&env, "GIT_CONFIG_GLOBAL=/dev/null");
	strv_push(&env, "GIT_ATTR_NOSYSTEM=1");
	strv_pushf(&env, "GIT_DIR=%s", gitdir);
	strv_pushf(&env, "GIT_CEILING_DIRECTORIES=%s", parent);
	strv_push(&env, "GIT_NO_REPLACE_OBJECTS=1");
	strv_push(&env, "GIT_NO_LAZY_FETCH=1");
	strv_push(&env, "GIT_TERMINAL_PROMPT=0");
	strv_push(&env, "GIT_OPTIONAL_LOCKS=0");
	strv_push(&env, "GIT_PAGER=cat");
	strv_push(&env, "PAGER=cat");
	strv_push(&env, "GIT_ASKPASS=false");
	strv_push(&env, "SSH_ASKPASS=false");
	strv_push(&env, "GIT_PROTOCOL_FROM_USER=0");

	strv_push(&av, "git");
	strv_push(&av, "--no-pager");
	strv_push(&av, "--no-replace-objects");
	strv_push(&av, "--literal-pathspecs");
	for (const char *const *c = gitops_config; *c != NULL; c++) {
		strv_push(&av, "-c");
		strv_push(&av, *c);
	}
	/* Root running the console for a user's project: this repository
	   only (command-line configuration is protected configuration). */
	strv_push(&av, "-c");
	strv_pushf(&av, "safe.directory=%s", project);
	strv_push(&av, "-c");
	strv_pushf(&av, "safe.directory=%s", gitdir);
	strv_pushf(&av, "--git-dir=%s", gitdir);
	strv_pushv(&av, args);

	/* The input (object ids) from a sealed memory file: no pipe to
	   keep fed while the output is read. */
	if (input != NULL) {
		if ((in = memfd_create("bwgate-gitops", MFD_CLOEXEC)) < 0 ||
		    write_full(in, input, inlen) != 0 ||
		    lseek(in, 0, SEEK_SET) != 0) {
			*cause = xasprintf("git: cannot make its input: %s",
			    strerror(errno));
			goto out;
		}
	}
	if (pipe2(p, O_CLOEXEC) != 0) {
		*cause = xasprintf("git: cannot make a pipe: %s",
		    strerror(errno));
		goto out;
	}
	fds[0] = in >= 0 ? in : SPAWN_DEVNULL;
	fds[1] = p[1];
	fds[2] = SPAWN_DEVNULL;
	sp.argv = av.v;
	sp.envp = env.v;
	sp.fds = fds;
	sp.nfds = 3;
	sp.flags = SPAWN_SEARCH | SPAWN_PGROUP;
	sp.deathsig = SIGKILL;
	if (spawn_start(&sp, cause) != 0)
		goto out;
	close(p[1]);
	p[1] = -1;
	deadline = loop_now_ms() + GITOPS_TIMEOUT_MS;
	for (;;) {
		struct pollfd	pfd = { p[0], POLLIN, 0 };
		int64_t		left = deadline - loop_now_ms();
		char		chunk[8192];
		ssize_t		n;

		if (left <= 0) {
			*cause = xasprintf("git took longer than %d s: "
			    "stopped", GITOPS_TIMEOUT_MS / 1000);
			break;
		}
		if (poll(&pfd, 1, (int)left) < 0) {
			if (errno == EINTR)
				continue;
			*cause = xasprintf("git: poll: %s", strerror(errno));
			break;
		}
		if (pfd.revents == 0)
			continue;
		n = read(p[0], chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (out->len + (size_t)n > max) {
			buf_add(out, chunk, max - out->len);
			full = true;
			break;
		}
		buf_add(out, chunk, (size_t)n);
	}
	if (*cause != NULL || full)
		(void)spawn_kill(&sp, SIGKILL);
	status = spawn_wait(&sp);
	spawn_release(&sp);
	if (*cause != NULL)
		status = -1;
	else if (full)
		status = GITOPS_FULL;
	else if (WIFEXITED(status))
		status = WEXITSTATUS(status);
	else {
		*cause = xstrdup("git was killed by a signal");
		status = -1;
	}
out:
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	if (in >= 0)
		close(in);
	strv_release(&av);
	strv_release(&env);
	return status;
}
