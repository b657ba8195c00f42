/* jsonutil: conversions between cJSON and bwgate's own types. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "cleanup.h"
#include "jsoncheck.h"
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
	char		*flaw = NULL;
	cJSON		*j;
	int		 line = 1;

	/* What cJSON would cut short (\u0000), refuse unnamed (a lone
	   surrogate) or take though JSON forbids it, named (jsoncheck.h). */
	if (jsoncheck_text(text, strlen(text), NULL, &flaw) != 0) {
		*cause = xasprintf("%s: %s", what, flaw);
		free(flaw);
		return NULL;
	}
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

/* Files of more are refused (json_load_file, json_load_fd). */
#define JSON_FILE_MAX	(16 << 20)

cJSON *
json_load_fd(int fd, const char *path, char **cause)
{
	struct buf	b = BUF_INIT;
	struct stat	st;
	cJSON		*j;

	if (fstat(fd, &st) != 0)
		st.st_mode = 0;
	if (!S_ISREG(st.st_mode)) {
		*cause = xasprintf("'%s' is not a regular file", path);
		return NULL;
	}
	if (st.st_size > JSON_FILE_MAX) {
		*cause = xasprintf("'%s' is larger than %d bytes", path,
		    JSON_FILE_MAX);
		return NULL;
	}
	if (buf_read_fd(&b, fd, JSON_FILE_MAX) < 0) {
		*cause = xasprintf("cannot read '%s': %s", path,
		    strerror(errno));
		buf_release(&b);
		return NULL;
	}
	if (b.data == NULL)
		buf_puts(&b, "");
	if (memchr(b.data, '\0', b.len) != NULL) {
		*cause = xasprintf("%s: holds a NUL byte (not JSON text)",
		    path);
		buf_release(&b);
		return NULL;
	}
	j = json_parse_text(b.data, path, cause);
	buf_release(&b);
	return j;
}

cJSON *
json_load_file(const char *path, char **cause)
{
	_cleanup_close_ int	fd = -1;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		*cause = xasprintf("cannot read '%s': %s", path,
		    strerror(errno));
		return NULL;
	}
	return json_load_fd(fd, path, cause);
}

char *
json_line(const cJSON *j)
{
	char	*s = cJSON_PrintUnformatted(j);

	if (s == NULL)
		return xstrdup("null");
	return json_mend_utf8(s, NULL);
}

char *
json_text(const cJSON *j)
{
	char	*s = cJSON_Print(j);

	if (s == NULL)
		return xstrdup("null");
	return json_mend_utf8(s, NULL);
}

/* Every invalid UTF-8 byte as U+FFFD: what bwgate prints as JSON is
   always UTF-8 JSON, whatever a string held. */
char *
json_mend_utf8(char *s, size_t *replaced)
{
	const unsigned char	*u = (const unsigned char *)s;
	size_t			 n = strlen(s), i = 0, l, bad = 0;
	struct buf		 b = BUF_INIT;

	while (i < n && (l = utf8_seq(u + i, n - i)) != 0)
		i += l;
	if (i == n) {
		if (replaced != NULL)
			*replaced = 0;
		return s;
	}
	buf_add(&b, s, i);
	while (i < n) {
		if ((l = utf8_seq(u + i, n - i)) == 0) {
			buf_puts(&b, "\xef\xbf\xbd");
			bad++;
			i++;
			continue;
		}
		buf_add(&b, s + i, l);
		i += l;
	}
	free(s);
	if (replaced != NULL)
		*replaced = bad;
	return buf_detach(&b);
}

/*
 * Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid:
 * no overlong forms, no surrogates, nothing above U+10FFFF.
 */
size_t
utf8_seq(const unsigned char *s, size_t n)
{
	size_t		len, i;
	uint32_t	c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		c = s[0] & 0x07;
	} else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	return len;
}

cJSON *
json_path(const char *path, bool *escaped)
{
	const unsigned char	*s = (const unsigned char *)path;
	size_t			 n = strlen(path), i = 0, len;
	struct buf		 b = BUF_INIT;
	cJSON			*j;

	while (i < n && (len = utf8_seq(s + i, n - i)) != 0)
		i += len;
	if (i == n)
		return cJSON_CreateString(path);
	for (i = 0; i < n; i += len) {
		if ((len = utf8_seq(s + i, n - i)) == 0) {
			buf_printf(&b, "\\x%02x", s[i]);
			len = 1;
		} else if (s[i] == '\\')
			buf_puts(&b, "\\\\");
		else
			buf_add(&b, s + i, len);
	}
	j = cJSON_CreateString(b.data);
	buf_release(&b);
	*escaped = true;
	return j;
}

cJSON *
json_bytes(const char *data, size_t n)
{
	const unsigned char	*p = (const unsigned char *)data;
	struct buf		 o = BUF_INIT;
	size_t			 i = 0, len;
	cJSON			*j;

	while (i < n) {
		if (p[i] != 0 && (len = utf8_seq(p + i, n - i)) != 0) {
			buf_add(&o, p + i, len);
			i += len;
		} else {
			buf_puts(&o, "\xef\xbf\xbd");	/* U+FFFD */
			i++;
		}
	}
	j = cJSON_CreateString(o.data != NULL ? o.data : "");
	buf_release(&o);
	return j;
}

bool
utf8_valid(const char *s)
{
	const unsigned char	*u = (const unsigned char *)s;
	size_t			 n = strlen(s), i = 0, l;

	while (i < n && (l = utf8_seq(u + i, n - i)) != 0)
		i += l;
	return i == n;
}
