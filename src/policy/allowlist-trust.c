/*
 * allowlist-trust: the trust table that makes a project's rule file count
 * (bwgate trust): canonical file path -> sha256 of the trusted content.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "allowlist.h"
#include "buf.h"
#include "cleanup.h"
#include "config.h"
#include "file.h"
#include "jsonutil.h"
#include "path.h"
#include "rules.h"
#include "sha256.h"
#include "shparse.h"
#include "xalloc.h"

#include "allowlist-int.h"

/* Path of the trust table (caller frees). */
static char *
allowlist_trust_path(void)
{
	char	*dir = config_user_dir(), *p;

	p = path_join(dir, "trusted.json");
	free(dir);
	return p;
}

/* The trust table: { "/abs/.bwgate.json": "sha256", ... }. */
cJSON *
allowlist_trusted(char **cause)
{
	_cleanup_free_ char	*path = allowlist_trust_path();
	cJSON			*j, *e;
	struct stat		 st;

	if (stat(path, &st) != 0) {
		if (errno == ENOENT)
			return cJSON_CreateObject();
		*cause = xasprintf("cannot read '%s': %s", path,
		    strerror(errno));
		return NULL;
	}
	if (rulefile_mode_problem(&st) != NULL) {
		*cause = xasprintf("'%s' is %s: refused (chmod go-w '%s')",
		    path, rulefile_mode_problem(&st), path);
		return NULL;
	}
	if ((j = json_load_file(path, cause)) == NULL)
		return NULL;
	if (!cJSON_IsObject(j))
		goto bad;
	cJSON_ArrayForEach(e, j) {
		if (!cJSON_IsString(e) || strlen(e->valuestring) != 64)
			goto bad;
	}
	return j;
bad:
	cJSON_Delete(j);
	*cause = xasprintf("'%s': expected an object mapping rule files to "
	    "sha256 digests", path);
	return NULL;
}

/* Canonical path of a project's rule file (it may not exist). */
char *
allowlist_project_file(const char *project, char **cause)
{
	char	*dir, *p;

	if ((dir = path_canonical(project, cause)) == NULL)
		return NULL;
	p = path_join(dir, ".bwgate.json");
	free(dir);
	return p;
}

/* The user's own rules for one project:
   $XDG_CONFIG_HOME/bwgate/projects/NAME-HASH.json, NAME the project
   directory's name, HASH the first 16 hex digits of the sha256 of its
   canonical path. */
char *
allowlist_user_project_file(const char *project, char **cause)
{
	_cleanup_free_ char	*dir = NULL, *canon = NULL, *user = NULL;
	char			 hex[SHA256_HEX_LEN + 1];
	const char		*name;

	if ((canon = path_canonical(project, cause)) == NULL)
		return NULL;
	if ((user = config_user_dir()) == NULL) {
		*cause = xstrdup("no configuration directory (set HOME or "
		    "XDG_CONFIG_HOME)");
		return NULL;
	}
	sha256_hex(canon, strlen(canon), hex);
	hex[16] = '\0';
	name = strrchr(canon, '/');
	name = name != NULL && name[1] != '\0' ? name + 1 : "root";
	return xasprintf("%s/projects/%s-%s.json", user, name, hex);
}

/* Write the trust table atomically (mode 0600). */
static int
allowlist_trust_write(cJSON *j, char **cause)
{
	_cleanup_free_ char	*dir = config_user_dir();
	_cleanup_free_ char	*path = allowlist_trust_path();
	_cleanup_free_ char	*text = cJSON_Print(j);
	_cleanup_free_ char	*line = xasprintf("%s\n", text);

	if (mkdir_p(dir, 0700, cause) != 0)
		return -1;
	return file_write_atomic(path, line, strlen(line), 0600, cause);
}

/* Trust (or, with sha NULL, stop trusting) a project's rule file. */
int
allowlist_trust_record(const char *file, const char *sha, char **cause)
{
	cJSON	*j;
	int	 rc;

	if ((j = allowlist_trusted(cause)) == NULL)
		return -1;
	cJSON_DeleteItemFromObjectCaseSensitive(j, file);
	if (sha != NULL)
		cJSON_AddStringToObject(j, file, sha);
	rc = allowlist_trust_write(j, cause);
	cJSON_Delete(j);
	return rc;
}

/* Is this content of file trusted? */
bool
allowlist_is_trusted(const char *file, const char *sha, char **cause)
{
	cJSON		*j;
	const cJSON	*e;
	bool		 ok;

	if ((j = allowlist_trusted(cause)) == NULL)
		return false;
	e = cJSON_GetObjectItemCaseSensitive(j, file);
	ok = cJSON_IsString(e) && strcmp(e->valuestring, sha) == 0;
	cJSON_Delete(j);
	return ok;
}
