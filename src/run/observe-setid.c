/*
 * observe-setid: a call that would set a setuid or setgid bit, refused by
 * the observer (EPERM) and named in the report. The deny filter leaves
 * these calls to the observer when it is there (seccomp-deny.c); the
 * mode is a register the kernel copied into the notification, so what
 * is judged is what would run. The path is read from the caller's memory
 * only to name it in the report: the refusal does not depend on it.
 */
#include "autoconf.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "observe-int.h"
#include "report.h"
#include "xalloc.h"

/* The argument naming the file: {call, path argument or -1 for a
   descriptor in argument 0}. */
static const struct {
	const char	*name;
	int		 path;
} setid_paths[] = {
	{ "chmod", 0 }, { "fchmod", -1 }, { "fchmodat", 1 },
	{ "fchmodat2", 1 }, { "mkdir", 0 }, { "mkdirat", 1 },
	{ "mknod", 0 }, { "mknodat", 1 }, { "open", 0 }, { "openat", 1 },
	{ "creat", 0 },
};

/* What the descriptor fd of pid names, or NULL. */
static char *
setid_fd_path(pid_t pid, uint64_t fd)
{
	char	link[64], buf[PATH_MAX];
	ssize_t	n;

	snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)pid, (int)fd);
	if ((n = readlink(link, buf, sizeof buf - 1)) <= 0)
		return NULL;
	buf[n] = '\0';
	return xstrdup(buf);
}

void
observe_setid(struct observer *obs, const struct seccomp_notif *n,
    struct violations *vs)
{
	const struct seccomp_data	*d = &n->data;
	struct observe_mem		 mem
	    __attribute__((cleanup(observe_mem_release))) = { n->pid, -1, NULL, 0 };
	char				*name, *path = NULL;

	(void)obs;
	name = seccomp_syscall_resolve_num_arch(d->arch, d->nr);
	for (size_t i = 0; name != NULL &&
	    i < sizeof setid_paths / sizeof setid_paths[0]; i++) {
		if (strcmp(setid_paths[i].name, name) != 0)
			continue;
		path = setid_paths[i].path < 0 ?
		    setid_fd_path((pid_t)n->pid, d->args[0]) :
		    observe_read_string(&mem, d->args[setid_paths[i].path]);
	}
	LOG("%s %s: refused (setuid or setgid)", name != NULL ? name : "?",
	    path != NULL ? path : "?");
	observe_add(vs, path != NULL ? path : "(a file)", "set-id mode",
	    VIOLATION_SETID, true);
	free(path);
	free(name);
}
