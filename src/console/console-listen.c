/*
 * console-listen: where agents reach the console. The agent and control
 * sockets (one console per socket: a lock taken before a stale socket is
 * replaced, as tmux does) and the optional FIFO of one-line submits.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cleanup.h"
#include "console-int.h"
#include "console.h"
#include "jsonutil.h"
#include "file.h"
#include "log.h"
#include "path.h"
#include "shquote.h"
#include "xalloc.h"

/* ---- the FIFO ---- */

/* One line from the FIFO: a JSON submit or a plain command. */
static void
console_fifo_line(struct console *c, const char *line, size_t len)
{
	struct proto_msg	 m = PROTO_MSG_INIT;
	char			*cause = NULL;
	const char		*p = line + strspn(line, " \t");
	cJSON			*rec;

	if (*p == '\0' && (size_t)(p - line) == len)
		return;		/* blank; a NUL byte is refused below */
	if (memchr(line, '\0', len) != NULL)
		cause = xstrdup("line contains a NUL byte");
	else if (*p == '{') {
		if (proto_decode(line, len, &m, &cause) == 0 &&
		    m.type != PROTO_SUBMIT)
			cause = xasprintf("the FIFO takes only submit, not "
			    "'%s'", proto_type_name(m.type));
	} else if (!proto_utf8_valid(line, len, NULL))
		cause = xstrdup("invalid UTF-8");
	else
		m.command = xstrdup(line);
	if (cause == NULL)
		console_submit_msg(c, NULL, &m, "fifo", &cause);
	if (cause != NULL) {
		console_message(c, "FIFO: %s", cause);
		rec = audit_record("fifo-error", NULL);
		cJSON_AddStringToObject(rec, "error", cause);
		console_audit(c, rec);
		free(cause);
	}
	proto_msg_release(&m);
}

/* The FIFO is readable. */
static void
console_fifo_read(int fd, short revents, void *arg)
{
	struct console	*c = arg;
	char		 buf[65536], *line;
	size_t		 len;
	ssize_t		 n;
	enum proto_line	 rc;

	n = read(fd, buf, sizeof buf);
	if (n <= 0)
		return;
	proto_reader_feed(&c->fiford, buf, (size_t)n);
	while ((rc = proto_reader_next(&c->fiford, &line, &len)) !=
	    PROTO_LINE_NONE) {
		if (rc == PROTO_LINE_TOO_LONG)
			console_message(c, "FIFO: line longer than %d bytes "
			    "ignored", PROTO_MAX_LINE);
		else
			console_fifo_line(c, line, len);
	}
}

/* Create (or reuse) and open the FIFO. */
int
console_open_fifo(struct console *c, char **cause)
{
	struct stat	st;

	if (lstat(c->fifo_path, &st) == 0) {
		if (!S_ISFIFO(st.st_mode) || st.st_uid != c->uid) {
			*cause = xasprintf("'%s' exists and is not a FIFO of "
			    "ours", c->fifo_path);
			return -1;
		}
	} else if (mkfifo(c->fifo_path, 0600) != 0) {
		*cause = xasprintf("cannot create '%s': %s", c->fifo_path,
		    strerror(errno));
		return -1;
	} else
		c->fifo_created = true;
	/* Read-write, so the FIFO never reports end of file. */
	c->fifo_fd = open(c->fifo_path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (c->fifo_fd < 0) {
		*cause = xasprintf("cannot open '%s': %s", c->fifo_path,
		    strerror(errno));
		return -1;
	}
	c->fiford = (struct proto_reader)PROTO_READER_INIT;
	loop_add(c->loop, c->fifo_fd, POLLIN, console_fifo_read, c);
	return 0;
}

/* ---- sockets ---- */

/* Who listens on path: its pid and how to reach it, as a message (lock:
   the lock file it holds, named when the pid cannot be learnt). */
static char *
console_holder(const char *path, const char *lock)
{
	struct sockaddr_un	sun;
	struct ucred		cred;
	socklen_t		len = sizeof cred;
	int			fd;
	long			pid = 0;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	if (strlen(path) < sizeof sun.sun_path &&
	    (fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) >= 0) {
		strcpy(sun.sun_path, path);
		if (connect(fd, (struct sockaddr *)&sun, sizeof sun) == 0 &&
		    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred,
		    &len) == 0 && cred.pid > 0)
			pid = (long)cred.pid;
		close(fd);
	}
	if (pid > 0) {
		_cleanup_free_ char *q = shell_quote(path);

		return xasprintf("a console is already listening on '%s' "
		    "(pid %ld); reach it with BWGATE_SOCKET=%s (bwgate "
		    "consoles lists them)", path, pid, q);
	}
	if (lock != NULL)
		return xasprintf("a console is already listening on '%s' "
		    "(it holds '%s')", path, lock);
	return xasprintf("a console is already listening on '%s'", path);
}

/*
 * Hold the lock beside the socket (<path>.lock, as tmux does) for the
 * console's life: the check for a stale socket, its removal and the bind
 * are one step for whoever holds it, so two consoles starting at once
 * cannot both remove and bind. The lock file stays: removing it would let
 * a console lock an unlinked file while another locks a new one.
 */
int
console_lock(const char *path, char **cause)
{
	char	*lock = xasprintf("%s.lock", path);
	int	 fd;

	fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		*cause = xasprintf("cannot open '%s': %s", lock,
		    strerror(errno));
		free(lock);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		*cause = errno == EWOULDBLOCK ? console_holder(path, lock) :
		    xasprintf("cannot lock '%s': %s", lock, strerror(errno));
		close(fd);
		free(lock);
		return -1;
	}
	free(lock);
	return fd;
}

/* Bind a listening socket, replacing a stale one, never a live one. */
int
console_listen(const char *path, struct stat *stp, char **cause)
{
	struct sockaddr_un	sun;
	struct stat		st;
	mode_t			old;
	int			fd, probe;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof sun.sun_path) {
		*cause = xasprintf("socket path '%s' is too long", path);
		return -1;
	}
	strcpy(sun.sun_path, path);
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			*cause = xasprintf("'%s' exists and is not a socket",
			    path);
			return -1;
		}
		probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (probe >= 0 && connect(probe, (struct sockaddr *)&sun,
		    sizeof sun) == 0) {
			close(probe);
			*cause = console_holder(path, NULL);
			return -1;
		}
		if (probe >= 0)
			close(probe);
		if (errno != ECONNREFUSED) {
			*cause = xasprintf("cannot check '%s': %s", path,
			    strerror(errno));
			return -1;
		}
		if (unlink(path) != 0) {
			*cause = xasprintf("cannot remove stale '%s': %s",
			    path, strerror(errno));
			return -1;
		}
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		*cause = xasprintf("cannot create a socket: %s",
		    strerror(errno));
		return -1;
	}
	old = umask(0177);
	if (bind(fd, (struct sockaddr *)&sun, sizeof sun) != 0) {
		umask(old);
		*cause = xasprintf("cannot bind '%s': %s", path,
		    strerror(errno));
		close(fd);
		return -1;
	}
	umask(old);
	if (chmod(path, 0600) != 0 || listen(fd, SOMAXCONN) != 0 ||
	    stat(path, stp) != 0) {
		*cause = xasprintf("cannot listen on '%s': %s", path,
		    strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	return fd;
}

/* Remove a socket file if it is still the one we made. */
static void
console_unlink(const char *path, const struct stat *mine)
{
	if (file_is_still(path, mine))
		unlink(path);
}

/* Stop listening and remove the socket files and the FIFO. */
void
console_close_listeners(struct console *c)
{
	if (c->agent_fd != -1) {
		loop_remove(c->loop, c->agent_fd);
		close(c->agent_fd);
		c->agent_fd = -1;
		console_unlink_default(c);
		console_unlink(c->socket_path, &c->agent_st);
	}
	if (c->control_fd != -1) {
		loop_remove(c->loop, c->control_fd);
		close(c->control_fd);
		c->control_fd = -1;
		console_unlink(c->control_path, &c->control_st);
	}
	if (c->lock_fd != -1) {
		close(c->lock_fd);	/* after the sockets are gone */
		c->lock_fd = -1;
	}
	if (c->fifo_fd != -1) {
		loop_remove(c->loop, c->fifo_fd);
		close(c->fifo_fd);
		c->fifo_fd = -1;
		if (c->fifo_created)
			unlink(c->fifo_path);
		proto_reader_release(&c->fiford);
	}
}
