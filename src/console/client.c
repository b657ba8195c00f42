/* client: socket paths, the socket directory, and a blocking JSON-lines
   connection for the small clients. */
#include "autoconf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cleanup.h"
#include "client.h"
#include "jsonutil.h"
#include "path.h"
#include "rundir.h"
#include "sha256.h"
#include "xalloc.h"

#define CLIENT_MAX_LINE	(256 * 1024 * 1024)

struct client {
	int			fd;
	struct proto_reader	rd;
	bool			eof;
};

/* How to get a console going. */
const char *
client_start_hint(void)
{
	return "start one with 'bwgate' (or 'bwgate --headless') in the "
	    "project and export the BWGATE_SOCKET it prints";
}

/* The per-project socket name in dir. */
static char *
client_socket_in(const char *dir, const char *project)
{
	char	hex[SHA256_HEX_LEN + 1];
	char	*name, *path;

	sha256_hex(project, strlen(project), hex);
	hex[16] = '\0';
	name = xasprintf("agent-%s.sock", hex);
	path = path_join(dir, name);
	free(name);
	return path;
}

/* A project's own agent socket. */
char *
client_project_socket(const char *project, char **cause)
{
	_cleanup_free_ char	*dir = NULL;

	if ((dir = rundir_get(false, cause)) == NULL)
		return NULL;
	return client_socket_in(dir, project);
}

/* Is there a socket at path? */
static bool
client_is_socket(const char *path)
{
	struct stat	st;

	return lstat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

/* The socket of the project at cur or an ancestor in dir; NULL if none.
   In the default directory a console elsewhere leaves a link to its own
   socket: the socket it leads to is returned (its control socket is
   beside it). Links are followed only in our own private directories. */
static char *
client_socket_above(const char *dir, const char *here)
{
	struct stat	 st;
	char		*cur = xstrdup(here), *p, *real, *slash;

	for (;;) {
		p = client_socket_in(dir, cur);
		if (client_is_socket(p)) {
			free(cur);
			return p;
		}
		if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode) &&
		    stat(p, &st) == 0 && S_ISSOCK(st.st_mode) &&
		    (real = path_real(p)) != NULL) {
			free(p);
			free(cur);
			return real;
		}
		free(p);
		if (strcmp(cur, "/") == 0)
			break;
		slash = strrchr(cur, '/');
		if (slash == cur)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	free(cur);
	return NULL;
}

/* Where the agent socket is. */
char *
client_socket_path(const char *opt, char **cause)
{
	const char		*env = getenv("BWGATE_SOCKET");
	_cleanup_free_ char	*dir = NULL, *here = NULL, *legacy = NULL;
	_cleanup_free_ char	*def = NULL, *why = NULL;
	char			*p;

	if (opt != NULL && *opt != '\0')
		return xstrdup(opt);
	if (env != NULL && *env != '\0')
		return xstrdup(env);
	if ((dir = rundir_get(false, cause)) == NULL)
		return NULL;
	/* The console of this directory's project: the nearest ancestor
	   with a socket, in our runtime directory, else in the one found
	   from the user id alone (a harness may have dropped
	   XDG_RUNTIME_DIR, or passed another). */
	if ((here = path_real(".")) != NULL) {
		if ((p = client_socket_above(dir, here)) != NULL)
			return p;
		def = rundir_default(false, &why);
		if (def != NULL && strcmp(def, dir) != 0 &&
		    (p = client_socket_above(def, here)) != NULL)
			return p;
	}
	legacy = path_join(dir, "agent.sock");
	if (client_is_socket(legacy) || here == NULL)
		return steal_pointer(&legacy);
	return client_socket_in(dir, here);
}

/* The control socket beside an agent socket. */
char *
client_control_path(const char *agent)
{
	const char	*base = strrchr(agent, '/');
	size_t		 dirlen, n;

	base = base == NULL ? agent : base + 1;
	dirlen = (size_t)(base - agent);
	n = strlen(base);
	if (strcmp(base, "agent.sock") == 0)
		return xasprintf("%.*scontrol.sock", (int)dirlen, agent);
	if (n > 5 && strcmp(base + n - 5, ".sock") == 0)
		return xasprintf("%.*s.control.sock", (int)(strlen(agent) - 5),
		    agent);
	return xasprintf("%s.control", agent);
}

/*
 * Is the listener ours? Only a console of our own uid (or root's, which
 * could read our requests anyway) may hear them: another user who puts a
 * socket where ours should be (a directory renamed into /tmp/bwgate-UID,
 * a stale path) must get nothing, not even the first line.
 */
static int
client_check_peer(int fd, const char *path, char **cause)
{
	struct ucred	cred;
	socklen_t	len = sizeof cred;
	uid_t		me = getuid();

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
		*cause = xasprintf("refusing the console at '%s': cannot "
		    "learn who it runs as: %s", path, strerror(errno));
		return -1;
	}
	if (cred.uid != me && cred.uid != 0) {
		*cause = xasprintf("refusing the console at '%s': it runs as "
		    "uid %u, not as you (uid %u); nothing was sent", path,
		    (unsigned)cred.uid, (unsigned)me);
		return -1;
	}
	return 0;
}

/* Connect to a console socket. */
struct client *
client_connect(const char *path, char **cause)
{
	struct sockaddr_un	 sun;
	struct client		*cl;
	_cleanup_free_ char	*dir = NULL;
	_cleanup_close_ int	 dfd = -1;
	const char		*base = strrchr(path, '/');
	int			 fd, n;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof sun.sun_path) {
		*cause = xasprintf("socket path '%s' is too long", path);
		return NULL;
	}
	/* The directory checked is the one connected through. */
	dir = base == NULL ? xstrdup(".") : base == path ? xstrdup("/") :
	    xstrndup(path, (size_t)(base - path));
	base = base == NULL ? path : base + 1;
	if ((dfd = rundir_open_trusted(dir, cause)) < 0) {
		if (errno == ENOENT) {
			free(*cause);
			*cause = xasprintf("no console at '%s': %s; %s", path,
			    strerror(ENOENT), client_start_hint());
		}
		return NULL;
	}
	n = snprintf(sun.sun_path, sizeof sun.sun_path, "/proc/self/fd/%d/%s",
	    dfd, base);
	if (n < 0 || (size_t)n >= sizeof sun.sun_path ||
	    access("/proc/self/fd", X_OK) != 0)
		snprintf(sun.sun_path, sizeof sun.sun_path, "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		*cause = xasprintf("cannot create a socket: %s",
		    strerror(errno));
		return NULL;
	}
	if (connect(fd, (struct sockaddr *)&sun, sizeof sun) != 0) {
		*cause = xasprintf("no console at '%s': %s; %s", path,
		    strerror(errno), client_start_hint());
		close(fd);
		return NULL;
	}
	if (client_check_peer(fd, path, cause) != 0) {
		close(fd);
		return NULL;
	}
	cl = xcalloc(1, sizeof *cl);
	cl->fd = fd;
	cl->rd = (struct proto_reader)PROTO_READER_INIT;
	cl->rd.max = CLIENT_MAX_LINE;
	return cl;
}

/* The connection's descriptor (for poll). */
int
client_fd(const struct client *cl)
{
	return cl->fd;
}

/* Send one message. */
int
client_send(struct client *cl, cJSON *j, char **cause)
{
	_cleanup_free_ char	*line = proto_encode(j);
	size_t			 len = strlen(line), off = 0;
	ssize_t			 n;

	while (off < len) {
		n = send(cl->fd, line + off, len - off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*cause = xasprintf("cannot send to the console: %s",
			    strerror(errno));
			return -1;
		}
		off += (size_t)n;
	}
	return 0;
}

/* Read the next message (blocking). */
cJSON *
client_recv(struct client *cl, char **cause)
{
	char	 buf[65536], *line;
	size_t	 len;
	ssize_t	 n;
	cJSON	*j;

	*cause = NULL;
	for (;;) {
		switch (proto_reader_next(&cl->rd, &line, &len)) {
		case PROTO_LINE_OK:
			j = cJSON_ParseWithLength(line, len);
			if (j == NULL || !cJSON_IsObject(j)) {
				cJSON_Delete(j);
				*cause = xstrdup("the console sent malformed "
				    "JSON");
				return NULL;
			}
			return j;
		case PROTO_LINE_TOO_LONG:
			*cause = xstrdup("the console sent an overlong line");
			return NULL;
		case PROTO_LINE_NONE:
			break;
		}
		if (cl->eof) {
			if (proto_reader_pending(&cl->rd) != 0)
				*cause = xstrdup("the console closed the "
				    "connection mid-message");
			return NULL;
		}
		n = read(cl->fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			*cause = xasprintf("cannot read from the console: %s",
			    strerror(errno));
			return NULL;
		}
		if (n == 0)
			cl->eof = true;
		else
			proto_reader_feed(&cl->rd, buf, (size_t)n);
	}
}

/* Read what the console said before it closed the connection. */
char *
client_refusal(struct client *cl)
{
	char		*cause = NULL, *msg = NULL;
	cJSON		*j;

	while (msg == NULL && (j = client_recv(cl, &cause)) != NULL) {
		if (proto_reply_type(j) == PROTO_R_ERROR)
			msg = xstrdup(cJSON_GetStringValue(
			    cJSON_GetObjectItem(j, "message")));
		cJSON_Delete(j);
	}
	free(cause);
	return msg;
}

/* Unread bytes are buffered. */
bool
client_buffered(const struct client *cl)
{
	return proto_reader_pending(&cl->rd) != 0;
}

/* Close the connection. */
void
client_free(struct client *cl)
{
	if (cl == NULL)
		return;
	close(cl->fd);
	proto_reader_release(&cl->rd);
	free(cl);
}
