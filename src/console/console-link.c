/*
 * console-link: a console whose runtime directory is not the one found from
 * the user id alone (XDG_RUNTIME_DIR set) leaves a link to its agent socket
 * there, named by the project like the socket. Clients whose harness passes
 * another XDG_RUNTIME_DIR, or none (Codex filters its MCP servers'
 * environment), find the console through it (client_socket_path).
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "console-int.h"
#include "log.h"
#include "path.h"
#include "rundir.h"
#include "xalloc.h"

/* Does the link at path lead to target? */
static bool
link_leads_to(const char *path, const char *target)
{
	char	buf[4096];
	ssize_t	n = readlink(path, buf, sizeof buf - 1);

	if (n < 0)
		return false;
	buf[n] = '\0';
	return strcmp(buf, target) == 0;
}

void
console_link_default(struct console *c)
{
	struct stat	 st;
	char		*def, *cause = NULL, *dir, *link;
	const char	*base = strrchr(c->socket_path, '/');

	if (base == NULL || (def = rundir_default(true, &cause)) == NULL) {
		free(cause);
		return;
	}
	dir = xstrndup(c->socket_path, (size_t)(base - c->socket_path));
	link = path_join(def, base + 1);
	if (strcmp(dir, def) == 0)
		goto out;
	/* A link left by a console that died, or by one of another runtime
	   directory for the same project: ours now (the lock beside our
	   socket says we are the project's console). A socket there is a
	   console of the default directory: leave it. */
	if (lstat(link, &st) == 0) {
		if (!S_ISLNK(st.st_mode) || unlink(link) != 0)
			goto out;
	}
	if (symlink(c->socket_path, link) != 0) {
		LOG("cannot link '%s' to '%s': %s", link, c->socket_path,
		    strerror(errno));
		goto out;
	}
	c->link_path = link;
	link = NULL;
out:
	free(link);
	free(dir);
	free(def);
}

void
console_unlink_default(struct console *c)
{
	if (c->link_path == NULL)
		return;
	if (link_leads_to(c->link_path, c->socket_path))
		unlink(c->link_path);
	free(c->link_path);
	c->link_path = NULL;
}
