/*
 * hook-perms: the permission rules of Claude Code's own settings for the
 * Bash tool, read where Claude Code reads them (managed settings, the
 * user's, the project's shared and local ones), so the hook can refuse
 * what the user denied and leave to Claude Code's prompt what the user
 * wants asked, before it rewrites the command (policy/ccperms.h says
 * why). A settings file that exists but cannot be read is a refusal.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "ccperms.h"
#include "cleanup.h"
#include "hook-perms.h"
#include "jsonutil.h"
#include "path.h"
#include "xalloc.h"

#define MANAGED_SETTINGS	"/etc/claude-code/managed-settings.json"

/* Settings files of more are refused. */
#define HOOK_PERMS_MAX	(16 << 20)

/* Add the permissions.deny and permissions.ask Bash rules of j; frees j. */
static void
hook_perms_json(cJSON *j, struct strv *deny, struct strv *ask)
{
	const cJSON	*perms = cJSON_GetObjectItemCaseSensitive(j,
	    "permissions");

	json_get_strv(cJSON_GetObjectItemCaseSensitive(perms, "deny"), deny);
	json_get_strv(cJSON_GetObjectItemCaseSensitive(perms, "ask"), ask);
	cJSON_Delete(j);
}

/* Add one file's permissions.deny and permissions.ask Bash rules. */
static int
hook_perms_file(const char *path, struct strv *deny, struct strv *ask,
    char **cause)
{
	struct stat	 st;
	cJSON		*j;

	if (stat(path, &st) != 0 && errno == ENOENT)
		return 0;
	if ((j = json_load_file(path, cause)) == NULL)
		return -1;
	hook_perms_json(j, deny, ask);
	return 0;
}

/* The settings of one project directory, read through the door
   (beneath.h): no link followed, non-blocking, regular and bounded. */
static int
hook_perms_project(const char *dir, struct strv *deny, struct strv *ask,
    char **cause)
{
	static const char *const names[] = { ".claude/settings.json",
		".claude/settings.local.json", NULL };
	_cleanup_close_ int	 root = -1;
	struct stat		 st;
	char			*why = NULL;

	if ((root = beneath_root(dir, &st, cause)) < 0) {
		if (errno != ENOENT)
			return -1;
		free(*cause);
		*cause = NULL;
		return 0;
	}
	for (const char *const *n = names; *n != NULL; n++) {
		int	 fd = beneath_open_regular(root, *n, HOOK_PERMS_MAX,
		    &st, &why);
		char	*p;
		cJSON	*j;

		if (fd < 0 && errno == ENOENT) {
			free(why);
			continue;
		}
		if (fd < 0) {
			*cause = xasprintf("in '%s': %s", dir, why);
			free(why);
			return -1;
		}
		p = path_join(dir, *n);
		j = json_load_fd(fd, p, cause);
		close(fd);
		free(p);
		if (j == NULL)
			return -1;
		hook_perms_json(j, deny, ask);
	}
	return 0;
}

enum hook_perm
hook_perms_check(const char *command, const char *cwd, char **why)
{
	struct strv	 deny = STRV_INIT, ask = STRV_INIT;
	const char	*dir = getenv("CLAUDE_CONFIG_DIR"), *hit;
	const char	*project = getenv("CLAUDE_PROJECT_DIR");
	char		*user, *cause = NULL;
	enum hook_perm	 r = HOOK_PERM_NONE;
	int		 rc;

	user = dir != NULL && dir[0] == '/' ? path_join(dir, "settings.json") :
	    path_expand_home("~/.claude/settings.json");
	rc = hook_perms_file(MANAGED_SETTINGS, &deny, &ask, &cause);
	if (rc == 0 && user != NULL)
		rc = hook_perms_file(user, &deny, &ask, &cause);
	if (rc == 0 && project != NULL && project[0] == '/')
		rc = hook_perms_project(project, &deny, &ask, &cause);
	if (rc == 0 && cwd != NULL && cwd[0] == '/' && (project == NULL ||
	    strcmp(project, cwd) != 0))
		rc = hook_perms_project(cwd, &deny, &ask, &cause);
	free(user);
	if (rc != 0) {
		*why = xasprintf("bwgate: cannot read Claude Code's permission "
		    "rules, so none can be kept: %s", cause);
		r = HOOK_PERM_DENY;
	} else if ((hit = ccperms_match(&deny, command)) != NULL) {
		*why = xasprintf("bwgate: Claude Code's permission rule '%s' "
		    "(permissions.deny in your settings) refuses this command",
		    hit);
		r = HOOK_PERM_DENY;
	} else if ((hit = ccperms_match(&ask, command)) != NULL) {
		*why = xasprintf("bwgate: Claude Code's permission rule '%s' "
		    "(permissions.ask) asks you first; it then runs through "
		    "the bwgate console", hit);
		r = HOOK_PERM_ASK;
	}
	free(cause);
	strv_release(&deny);
	strv_release(&ask);
	return r;
}
