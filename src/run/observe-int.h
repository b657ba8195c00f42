/*
 * observe-int: what observe.c, observe-judge.c and observe-infer.c share
 * (the observer's state and the helpers that read a stopped caller).
 */
#ifndef BWGATE_OBSERVE_INT_H
#define BWGATE_OBSERVE_INT_H

#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "observe.h"
#include "strv.h"

struct loop;

/* Tasks whose last file-changing call may still be in flight, kept
   (observe-flight.c; more counts as a possible race). */
#define OBSERVE_FLIGHT_MAX	64

/* Distinct violations kept per run (repeats only bump a count). */
#define OBSERVE_MAX_VIOLATIONS	256

enum observe_state {
	STATE_HELLO,		/* waiting for the helper's answer */
	STATE_LISTEN,		/* serving notifications */
	STATE_DONE,		/* nothing more will come */
};

/* How a notification is answered. */
enum observe_answer {
	ANSWER_CONTINUE,	/* let the kernel make the call */
	ANSWER_ERROR,		/* fail it with answer_error */
	ANSWER_DONE,		/* the delegate made it: return 0 */
	ANSWER_FD,		/* the delegate opened it: inject answer_fd */
	ANSWER_LATER,		/* a FIFO's open waits for a reader: answered
				   when answer_fd (a socket) brings it */
};

/* FIFO opens waiting for a reader at once (observe-act.c); more fail
   with ENXIO. */
#define OBSERVE_WAITS_MAX	32

struct observe_wait {
	struct observer	*obs;
	uint64_t	 id;		/* the notification to answer */
	int		 sock;		/* the waiting child's, or -1 */
	bool		 cloexec;
};

struct protect;

struct observer {
	enum observe_state	 state;
	int			 sock;
	int			 listener;
	bool			 exact;
	bool			 network;	/* network on: no net checks */
	bool			 userns;	/* nested namespaces possible */
	char			*status;
	ino_t			 mntns;		/* the sandbox's mount ns */
	int			 rootfd;	/* its root, O_PATH */
	bool			 mounts_checked; /* sandbox_verify done */
	char			*raced;		/* why the mounts are not what
						   was opened: nothing runs */
	unsigned long		 count;
	struct seccomp_notif	*req;
	struct seccomp_notif_resp *resp;
	size_t			 req_size;
	size_t			 resp_size;
	uint32_t		 arch;
	bool			 sync_ok;	/* the kernel has sync wake-up */
	bool			 sync_on;	/* and it is on now */
	uint32_t		 last_pid;	/* the last call's task */
	unsigned		 same_run;	/* its calls before, in a row */
	/* For observe_attach(). */
	struct loop		*loop;
	int			 loop_fd;
	const struct sandbox	*sb;
	struct violations	*out;
	/* OBSERVE_RECORD. */
	bool			 armed;		/* a program went out */
	bool			 wait;		/* the helper waits for go */
	bool			 argv_later;	/* the command comes with go */
	bool			 go_pending;	/* go asked before the answer */
	struct snapshot_paths	*rec;
	char			*rec_root;
	size_t			 rec_len;
	bool			 rec_append;	/* an open to append */
	struct executions	*exec_out;	/* or NULL: not recorded */
	struct strv		*ports_out;	/* or NULL: not recorded */
	struct strv		*names_out;	/* what listens on each, "" when
					   unknown (observe-listener.c) */
	/* The call being judged, and what its resolution met. */
	pid_t			 cur_pid;
	bool			 res_unsound;	/* a /proc name unreadable */
	bool			 res_deleted;	/* a descriptor's file unnamed */
	struct strv		 res_why;
	/* observe-flight.c: calls let through, a link change pending. */
	pid_t			 flight[OBSERVE_FLIGHT_MAX];
	size_t			 nflight;
	bool			 flight_over;
	pid_t			 link_tid;	/* 0: none */
	/* Deciding (observe-act.c). */
	int			 delegate;	/* its socket, or -1 */
	bool			 addfd_ok;	/* the kernel injects with the
						   answer (Linux 5.14) */
	bool			 decides;	/* and the delegate came */
	struct protect		*protect;	/* the one policy */
	char			*project;	/* the project, as inside */
	size_t			 project_len;
	enum observe_answer	 answer;	/* to the call being judged */
	int			 answer_error;	/* ANSWER_ERROR: errno */
	int			 answer_fd;	/* ANSWER_FD: to inject */
	bool			 answer_cloexec;
	unsigned long		 decided;	/* calls made by the delegate */
	unsigned long		 refused;	/* calls refused by the policy */
	struct observe_wait	 waits[OBSERVE_WAITS_MAX];
	/* A call from another mount namespace being judged (obs->rootfd is
	   then the caller's root): observe_act judges it by identity. */
	bool			 foreign;
	dev_t			 project_dev;	/* the project's file system */
	bool			 project_dev_ok;
};

/* Another process's memory: process_vm_readv, else /proc/PID/mem. */
struct observe_mem {
	pid_t	pid;
	int	fd;		/* /proc/PID/mem once needed, else -1 */
	/* The last path argument read, as the caller wrote it, and the
	   descriptor it is relative to (a foreign call resolves it from
	   there: observe-act.c). */
	char	*raw;
	int	 raw_dirfd;
};

void	 observe_mem_release(struct observe_mem *);
/* Read len bytes at addr; the count read or -1. */
ssize_t	 observe_peek(struct observe_mem *, void *, size_t, uint64_t);
/* Read a NUL-terminated string from another process; NULL on failure. */
char	*observe_read_string(struct observe_mem *, uint64_t);
/* Up to max (at most EXECUTION_MAX_ARGS) strings of the NULL-ended array
   at addr (an argv) into out, each "?" where it cannot be read. */
void	 observe_read_strv(struct observe_mem *, uint64_t, size_t,
	    struct strv *);
/* The path a descriptor or the cwd of pid refers to, if it is a path
   (NULL: errno 0 when it is none, else why it could not be read);
   *deleted, when not NULL: its file has no name any more. */
char	*observe_base(pid_t, int dirfd, bool *deleted);
/* A file-changing call whose path could not be read: widen the change
   report to the whole project (observe-judge.c). */
void	 observe_widen_lost(struct observer *, const char *op, int error);
/* Does path exist on the host (our own view)? */
/* Record one refusal (bounded, repeats merged). */
void	 observe_add(struct violations *, const char *path, const char *op,
	    enum violation_reason, bool exact);
/* Judge one path of one call; true when a violation was recorded. */
bool	 observe_judge_path(struct observer *, const struct sandbox *,
	    const char *named, enum observe_kind, bool follow, bool writes,
	    const char *op, struct violations *);
/* A rename about to happen: record both names and the trees below. */
/* A call on a descriptor that may change its file's content anywhere:
   undo is told (snapshot_paths_content), nothing is judged. */
void	 observe_record_content(struct observer *, const struct sandbox *,
	    pid_t, int fd, const char *named, bool unnamed);
void	 observe_record_rename(struct observer *, const struct sandbox *,
	    const char *from, const char *to);
/* A hard link whose old name is on another mount. */
void	 observe_judge_link(struct observer *, const struct sandbox *,
	    const char *old, const char *new, bool follow,
	    struct violations *);
/* observe-setid.c. A call that would set a setuid or setgid bit: record
   the refusal (the caller answers EPERM). */
void	 observe_setid(struct observer *, const struct seccomp_notif *,
	    struct violations *);
/* A network call while the network is off: judge its address. */
void	 observe_judge_net(struct observer *, struct observe_mem *,
	    uint64_t addr, uint64_t len, const char *op, struct violations *);

/* observe-flight.c. A file-changing call of tid is about to be judged:
   true when a link change may not have happened yet (a race). */
bool	 observe_flight_begin(struct observer *, pid_t tid);
/* It was judged (and will be let through). */
void	 observe_flight_end(struct observer *, pid_t tid);
/* tid is about to change a symbolic link: true when another task's call
   may still be in flight (a race). */
bool	 observe_flight_link(struct observer *, pid_t tid);
/* Is nr one of the calls the helper notifies (observe-call.c)? */
bool	 observe_notified_nr(int nr);

/* Resolve a path inside the sandbox root (observe-judge.c). */
char	*observe_resolve(struct observer *, const char *named, bool follow,
	    bool *missing);

/* observe-act.c: what a deciding call asks for, read by observe-call.c. */
struct observe_req {
	int		 op;		/* enum observe_act_op */
	const char	*name;		/* for the report: create, mkdir, ... */
	uint32_t	 flags;		/* the call's own */
	uint64_t	 mode;
	uint64_t	 arg;
	const char	*path1;		/* joined, in the sandbox's view */
	const char	*raw1;		/* as written (a foreign call,
					   openat2's resolve flags) */
	uint64_t	 resolve;	/* openat2's RESOLVE_* */
	int		 rawfd1;	/* its base: AT_FDCWD or a fd */
	const char	*raw2;
	int		 rawfd2;
	bool		 follow1;
	int		 fd1;		/* or the caller's descriptor (-1) */
	const char	*path2;		/* rename: to; link: the old name;
					   symlink: the target text */
	bool		 follow2;
	int		 fd2;
	bool		 writes;	/* an open that writes or truncates */
	enum observe_kind kind;		/* an open's, for the recorder */
	bool		 noted;		/* the mounts' judgement recorded a
					   refusal of it already */
};
/* Judge the call against the policy and, where the delegate is there,
   make it through the delegate: sets obs->answer. */
void	 observe_act(struct observer *, const struct seccomp_notif *,
	    const struct observe_req *, struct violations *);
/* ANSWER_LATER: keep the notification id to answer when the FIFO opens;
   false when it cannot wait (the call then fails with ENXIO). */
bool	 observe_act_later(struct observer *, uint64_t id);
/* Learn the project's device (as the sandbox sees it) once. */
void	 observe_act_project_dev(struct observer *);
/* Drop every wait (the run ends). */
void	 observe_act_waits_end(struct observer *);

/* observe-call.c: read and judge one notification (the caller is
   stopped meanwhile); violations go to vs. */
struct seccomp_notif;
void	 observe_judge(struct observer *, const struct sandbox *,
	    const struct seccomp_notif *, struct violations *);

/* The command line of the process of pid's network namespace holding
   the socket of this inode (a listener), or NULL (observe-listener.c). */
char	*observe_listener(pid_t pid, unsigned long inode);

#endif
