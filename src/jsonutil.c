/* jsonutil: conversions between cJSON and bwgate's own types. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cleanup.h"
#include "jsonutil.h"
#include "xalloc.h"

cJSON *
json_strv(const struct strv *sv)
{
	cJSON	*a = cJSON_CreateArray();

	for (size_t i = 0; i < sv->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(sv->v[i]));
	return a;
}

int
json_get_strv(const cJSON *a, struct strv *sv)
{
	const cJSON	*e;

	if (!cJSON_IsArray(a))
		return -1;
	cJSON_ArrayForEach(e, a) {
		if (!cJSON_IsString(e))
			return -1;
		strv_push(sv, e->valuestring);
	}
	return 0;
}

cJSON *
json_parse_text(const char *text, const char *what, char **cause)
{
	const char	*end = NULL, *p;
	cJSON		*j;
	int		 line = 1;

	j = cJSON_ParseWithOpts(text, &end, 1);
	if (j != NULL)
		return j;
	end = cJSON_GetErrorPtr();
	for (p = text; end != NULL && p < end && *p != '\0'; p++)
		if (*p == '\n')
			line++;
	*cause = xasprintf("%s:%d: invalid JSON", what, line);
	return NULL;
}

cJSON *
json_load_file(const char *path, char **cause)
{
	_cleanup_close_ int	fd = -1;
	struct buf		b = BUF_INIT;
	cJSON			*j;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || buf_read_fd(&b, fd, 16 << 20) < 0) {
		*cause = xasprintf("cannot read '%s': %s", path,
		    strerror(errno));
		buf_release(&b);
		return NULL;
	}
	if (b.data == NULL)
		buf_puts(&b, "");
	j = json_parse_text(b.data, path, cause);
	buf_release(&b);
	return j;
}

char *
json_line(const cJSON *j)
{
	char	*s = cJSON_PrintUnformatted(j);

	if (s == NULL)
		return xstrdup("null");
	return s;
}
