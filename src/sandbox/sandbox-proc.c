/*
 * sandbox-proc: the kernel's interfaces in /proc and /sys.
 *
 * A sandbox started by root keeps kernel uid 0 unless it can run as the
 * project's owner (sandbox-user.c), and Linux checks uid 0, not
 * capabilities, for sysctl writes: /proc/sys/kernel/core_pattern written
 * from a sandbox runs code as host root. So /proc is read-only as a whole
 * (a fresh /proc is remounted read-only; a bound one is bound read-only).
 * A read-only mount also refuses opening /proc/PID/mem for writing, which
 * is how processes in the sandbox, bwrap's own pid 1 included, are kept
 * from writing each other's memory. Entries that leak the host's kernel
 * state are masked (Docker's default set).
 *
 * Nested user namespaces (profile option) need a writable /proc (a nested
 * bwrap writes its uid_map there), so then only Docker's read-only set is
 * covered and pid 1's memory file masked, and bwgate says what that costs.
 *
 * /sys is not mounted at all unless the policy names it; then it is
 * read-only (a writable /sys is refused) and /sys/firmware is masked.
 */
#include "autoconf.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "path.h"
#include "probe.h"
#include "sandbox-int.h"
#include "xalloc.h"

/* Read-only when /proc as a whole cannot be (Docker's readonlyPaths). */
static const char *const proc_readonly[] = {
	"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus",
	"/proc/fs", NULL
};

/* Masked in every sandbox (Docker's maskedPaths), those that exist. */
static const char *const proc_masked[] = {
	"/proc/kcore", "/proc/keys", "/proc/timer_list", "/proc/sched_debug",
	"/proc/acpi", "/proc/scsi", "/proc/latency_stats", NULL
};

/* Masked in /sys when the policy asks for /sys. */
static const char *const sys_masked[] = {
	"/sys/firmware", NULL
};

/* Mask what exists of a table; directories get an empty read-only dir. */
static void
proc_mask_table(struct build *b, const char *const *table, const char *why)
{
	struct stat	st;

	for (const char *const *p = table; *p != NULL; p++) {
		if (stat(*p, &st) != 0)
			continue;
		build_mask(b, *p, S_ISDIR(st.st_mode), MOUNT_HIDDEN, why);
		strv_push(&b->sb->proc_masked, *p);
	}
}

/* /proc: fresh or bound, read-only, with the kernel's secrets masked. */
void
build_proc(struct build *b)
{
	struct sandbox	*sb = b->sb;
	struct stat	 st;

	if (b->probe->proc_fresh) {
		build_arg2(b, "--proc", "/proc");
		sb->proc_mode = xstrdup("fresh");
		build_mount(b, MOUNT_PROC, "/proc", "fresh /proc");
		if (!b->pol->allow_userns) {
			build_arg2(b, "--remount-ro", "/proc");
			sb->proc_readonly = true;
		}
	} else {
		build_arg3(b, "--ro-bind", "/proc", "/proc");
		sb->proc_mode = xstrdup("bind");
		sb->proc_readonly = true;
		build_mount(b, MOUNT_PROC, "/proc", "existing /proc (nested)");
		strv_push(&sb->warnings, "a fresh /proc cannot be mounted "
		    "here (nested sandbox): the existing /proc is bound "
		    "read-only, so processes outside the sandbox are visible "
		    "in it");
	}
	/* A nested bwrap mounts its own /proc, which Linux refuses while
	   anything is mounted over this one: nothing is, unless the sandbox
	   holds kernel uid 0 (then sysctls stay read-only; root cannot nest
	   anyway without CAP_SETFCAP). */
	if (b->pol->allow_userns && b->probe->proc_fresh &&
	    sb->kernel_uid != 0) {
		strv_push(&sb->warnings, "nested sandboxes need /proc with "
		    "nothing mounted over it (Linux refuses a fresh /proc "
		    "inside otherwise): /proc is writable and unmasked, so "
		    "processes in this sandbox can write each other's memory "
		    "through /proc/PID/mem");
		return;
	}
	if (!sb->proc_readonly) {
		for (const char *const *p = proc_readonly; *p != NULL; p++) {
			if (stat(*p, &st) != 0)
				continue;
			build_arg3(b, "--ro-bind", *p, *p);
			build_mount(b, MOUNT_RO, *p, "kernel interface, "
			    "read-only");
		}
		/* bwrap's pid 1 runs outside the command's control. Only
		   here: /proc is writable only with nested namespaces, and
		   such a sandbox never shares the project's pid namespace
		   (sandbox-pod.c), whose pid 1 is the pod's init; a
		   read-only /proc refuses every /proc/PID/mem write. */
		build_mask(b, "/proc/1/mem", false, MOUNT_HIDDEN,
		    "memory of bwrap's pid 1");
		strv_push(&sb->warnings, "nested user namespaces need a "
		    "writable /proc: processes in this sandbox can write each "
		    "other's memory through /proc/PID/mem (bwrap's pid 1 "
		    "excepted)");
	}
	proc_mask_table(b, proc_masked, "kernel state, masked");
}

/* Does the policy name /sys or a path in it (ro or rw)? */
static const char *
sys_named(const struct strv *paths)
{
	for (size_t i = 0; i < paths->n; i++)
		if (path_is_under(paths->v[i], "/sys"))
			return paths->v[i];
	return NULL;
}

/* /sys only on request, read-only, firmware masked. */
int
build_sys(struct build *b, char **cause)
{
	const char	*named;

	if ((named = sys_named(&b->pol->rw_paths)) != NULL) {
		*cause = xasprintf("'%s' can only be read-only in a sandbox",
		    named);
		return -1;
	}
	if ((named = sys_named(&b->pol->ro_paths)) == NULL)
		return 0;
	for (const char *const *p = sys_masked; *p != NULL; p++) {
		struct stat	st;
		bool		 inside = false;

		/* Masked below a named /sys, not when named itself. */
		for (size_t i = 0; i < b->pol->ro_paths.n; i++) {
			const char *n = b->pol->ro_paths.v[i];

			if (path_is_under(*p, n) && strcmp(*p, n) != 0 &&
			    path_is_under(n, "/sys"))
				inside = true;
		}
		if (!inside || stat(*p, &st) != 0)
			continue;
		build_mask(b, *p, S_ISDIR(st.st_mode), MOUNT_HIDDEN,
		    "firmware, masked");
	}
	return 0;
}
