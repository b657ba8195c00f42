/*
 * allowlist-hosts: hosts the operator allowed for a project ("allow for
 * this project" in the console), kept as the top-level "domains" of the
 * operator's own rule files: $XDG_CONFIG_HOME/bwgate/allowlist.json (every
 * project) and the per-project file beside it (allowlist.h). Never the
 * project's .bwgate.json: a project may not grant itself hosts (narrow.h).
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "allowlist.h"
#include "buf.h"
#include "cleanup.h"
#include "domains.h"
#include "file.h"
#include "jsonutil.h"
#include "netgroups.h"
#include "rules.h"
#include "xalloc.h"

#include "allowlist-int.h"

int
allowlist_hosts(const struct allowlist *al, struct strv *out, char **cause)
{
	for (size_t i = 0; i < al->nlayers; i++) {
		const struct layer *l = &al->layers[i];

		if (l->kind != LAYER_USER && l->kind != LAYER_USER_PROJECT)
			continue;
		if (netgroups_expand(&l->rf.domains, out, cause) != 0)
			return -1;
	}
	return 0;
}

int
allowlist_add_project_host(const char *project, const char *pattern,
    char **pathp, char **cause)
{
	_cleanup_free_ char	*path = NULL, *pdir = NULL;
	struct domain_pattern	 dp;
	struct buf		 b = BUF_INIT;
	cJSON			*root = NULL, *doms, *e;
	char			*text;
	int			 fd, rc = -1;

	if (domain_pattern_parse(pattern, &dp, cause) != 0)
		return -1;
	domain_pattern_release(&dp);
	if ((path = allowlist_user_project_file(project, cause)) == NULL)
		return -1;
	pdir = xstrdup(path);
	*strrchr(pdir, '/') = '\0';
	if (mkdir_p(pdir, 0700, cause) != 0)
		return -1;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) >= 0) {
		if (buf_read_fd(&b, fd, 16 << 20) < 0) {
			*cause = xasprintf("cannot read '%s': %s", path,
			    strerror(errno));
			close(fd);
			goto out;
		}
		close(fd);
		buf_add(&b, "", 1);
		if ((root = json_parse_text(b.data, path, cause)) == NULL)
			goto out;
		if (!cJSON_IsObject(root)) {
			*cause = xasprintf("'%s' is not a JSON object", path);
			goto out;
		}
	} else if (errno != ENOENT) {
		*cause = xasprintf("cannot read '%s': %s", path,
		    strerror(errno));
		goto out;
	} else {
		root = cJSON_CreateObject();
		cJSON_AddNumberToObject(root, "version", 1);
		cJSON_AddStringToObject(root, "description", "your own rules "
		    "for one project, kept outside it (bwgate-allowlist(5)); "
		    "the console adds to them");
	}
	doms = cJSON_GetObjectItemCaseSensitive(root, "domains");
	if (doms == NULL)
		doms = cJSON_AddArrayToObject(root, "domains");
	if (!cJSON_IsArray(doms)) {
		*cause = xasprintf("'%s': \"domains\" is not an array", path);
		goto out;
	}
	cJSON_ArrayForEach(e, doms)
		if (cJSON_IsString(e) && strcmp(e->valuestring, pattern) == 0)
			break;
	if (e == NULL)
		cJSON_AddItemToArray(doms, cJSON_CreateString(pattern));
	text = cJSON_Print(root);
	buf_reset(&b);
	buf_puts(&b, text);
	buf_putc(&b, '\n');
	cJSON_free(text);
	if (file_write_atomic(path, b.data, b.len, 0600, cause) != 0)
		goto out;
	if (pathp != NULL)
		*pathp = xstrdup(path);
	rc = 0;
out:
	cJSON_Delete(root);
	buf_release(&b);
	return rc;
}
