/*
 * mcp-files: the MCP file tools (read_file, write_file, edit_file,
 * list_directory). Paths go through mcp-path.c, so nothing outside the
 * project is reached. Reads and listings are answered here; writes are
 * checked here (path, protected paths with the sandbox's reason, the
 * edit's text) and then sent to the console as requests (mcp-run.c): the
 * console shows the diff, the operator or the rules decide, and the write
 * runs in the sandbox with the change report as its answer.
 */
#include "autoconf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "buf.h"
#include "edge-refusal.h"
#include "filereq.h"
#include "jsonutil.h"
#include "mcp.h"
#include "protocol.h"
#include "strv.h"
#include "xalloc.h"

#define FILE_MAX	(16 * 1024 * 1024)	/* largest file read */
#define READ_MAX	(256 * 1024)		/* largest read_file answer */
#define LIST_MAX	2000			/* entries per listing */
#define DIFF_HUNKS	5			/* hunks shown per edit */

/*
 * Names that are not valid UTF-8 (bytes such as \xff\xfe, which a JSON
 * string cannot carry) travel as base64: list_directory gives such an
 * entry a "name_base64" (its "name" shows U+FFFD where a byte is not
 * UTF-8), and every file tool takes "path_base64", the path's exact
 * bytes, instead of "path".
 */

/* Is s valid UTF-8 (a JSON string can carry it as it is)? */
static bool
files_utf8(const char *s)
{
	return proto_utf8_valid(s, strlen(s), NULL);
}

/* Add name (and name_base64 when it is not UTF-8) to o. */
static void
files_add_name(cJSON *o, const char *key, const char *s)
{
	char	*k, *b64;

	cJSON_AddItemToObject(o, key, json_bytes(s, strlen(s)));
	if (files_utf8(s))
		return;
	k = xasprintf("%s_base64", key);
	b64 = proto_base64_encode(s, strlen(s));
	cJSON_AddStringToObject(o, k, b64);
	free(b64);
	free(k);
}

/* The path argument ("path", or "path_base64" for bytes that are not
   UTF-8), checked and made relative; replies on error. */
static char *
files_path(struct mcp *m, const cJSON *id, const cJSON *args,
    const char *tool, bool required)
{
	const char	*path, *b64;
	char		*cause = NULL, *rel;
	struct buf	 bytes = BUF_INIT;

	if (mcp_arg_string(args, "path", false, &path, &cause) != 0 ||
	    mcp_arg_string(args, "path_base64", false, &b64, &cause) != 0) {
		mcp_error(id, RPC_INVALID_PARAMS, "%s: %s", tool, cause);
		free(cause);
		return NULL;
	}
	if (path != NULL && b64 != NULL) {
		mcp_error(id, RPC_INVALID_PARAMS, "%s: give either 'path' or "
		    "'path_base64', not both", tool);
		return NULL;
	}
	if (b64 != NULL) {
		if (proto_base64_decode(b64, &bytes) != 0 || bytes.len == 0 ||
		    memchr(bytes.data, '\0', bytes.len) != NULL) {
			mcp_error(id, RPC_INVALID_PARAMS, "%s: argument "
			    "'path_base64' must be the base64 of a path (no "
			    "NUL byte)", tool);
			buf_release(&bytes);
			return NULL;
		}
		path = bytes.data;
	}
	if (path == NULL && required) {
		mcp_error(id, RPC_INVALID_PARAMS, "%s: argument 'path' (or "
		    "'path_base64') is required", tool);
		return NULL;
	}
	if ((rel = mcp_path_relative(m, path != NULL ? path : ".", &cause)) ==
	    NULL) {
		mcp_tool_error(id, "%s: %s", tool, cause);
		free(cause);
	}
	buf_release(&bytes);
	return rel;
}

/* Read a whole regular file beneath the project into b. */
int
mcp_file_load(struct mcp *m, const char *rel, struct buf *b, char **cause)
{
	struct stat	st;
	int		fd;

	if ((fd = mcp_path_open(m, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY,
	    0, cause)) < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		*cause = xasprintf("'%s' is not a regular file", rel);
		close(fd);
		return -1;
	}
	if (st.st_size > FILE_MAX || buf_read_fd(b, fd, FILE_MAX + 1) != 0 ||
	    b->len > FILE_MAX) {
		*cause = b->len > FILE_MAX || st.st_size > FILE_MAX ?
		    xasprintf("'%s' is larger than %d MiB", rel,
		    FILE_MAX >> 20) : xasprintf("cannot read '%s': %s", rel,
		    strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	if (b->len > 0 && memchr(b->data, '\0', b->len) != NULL) {
		*cause = xasprintf("'%s' looks binary (it holds NUL bytes); "
		    "inspect it with the run tool", rel);
		return -1;
	}
	if (b->data == NULL)
		buf_puts(b, "");
	return 0;
}

/* read_file: a file, or some of its lines. */
void
mcp_read_file(struct mcp *m, const cJSON *id, const cJSON *args,
    const cJSON *token __attribute__((unused)))
{
	struct buf	 b = BUF_INIT;
	char		*rel, *cause = NULL, *why;
	long		 offset = 1, limit = 0, line = 1, lines = 0;
	size_t		 start = 0, end, i;
	bool		 truncated = false;
	cJSON		*st;

	if ((rel = files_path(m, id, args, "read_file", true)) == NULL)
		return;
	if (mcp_arg_int(args, "offset", 1, 1L << 40, &offset, &cause) != 0 ||
	    mcp_arg_int(args, "limit", 1, 1L << 40, &limit, &cause) != 0) {
		mcp_error(id, RPC_INVALID_PARAMS, "read_file: %s", cause);
		goto out;
	}
	if ((why = mcp_path_hidden(m, rel)) != NULL) {
		mcp_tool_error(id, "read_file: %s", why);
		free(why);
		goto out;
	}
	if (mcp_file_load(m, rel, &b, &cause) != 0) {
		mcp_tool_error(id, "read_file: %s", cause);
		goto out;
	}
	/* Find the first line asked for, then take whole lines. */
	for (i = 0; i < b.len && line < offset; i++)
		if (b.data[i] == '\n')
			line++;
	start = line == offset ? i : b.len;
	for (end = start; end < b.len; end++) {
		if (limit > 0 && lines == limit)
			break;
		if (end - start >= READ_MAX) {
			truncated = true;
			break;
		}
		if (b.data[end] == '\n' || end + 1 == b.len)
			lines++;
	}
	if (truncated) {
		while (end > start && b.data[end - 1] != '\n')
			end--;
		lines = 0;
		for (i = start; i < end; i++)
			lines += b.data[i] == '\n';
	}
	st = cJSON_CreateObject();
	files_add_name(st, "path", rel);
	cJSON_AddItemToObject(st, "content", json_bytes(b.data + start,
	    end - start));
	cJSON_AddNumberToObject(st, "first_line", (double)offset);
	cJSON_AddNumberToObject(st, "lines", (double)lines);
	for (i = 0, line = 0; i < b.len; i++)
		line += b.data[i] == '\n';
	if (b.len > 0 && b.data[b.len - 1] != '\n')
		line++;
	cJSON_AddNumberToObject(st, "total_lines", (double)line);
	cJSON_AddBoolToObject(st, "truncated", truncated || (limit == 0 &&
	    end < b.len));
	mcp_tool_result(id, st, cJSON_GetStringValue(cJSON_GetObjectItem(st,
	    "content")), false);
out:
	buf_release(&b);
	free(cause);
	free(rel);
}

/* Refuse what the console would refuse anyway, with a clearer reason: -1,
   or 1 for a protected path (the console refuses that one itself, on the
   record: mcp_run_refused). */
static int
files_writable(struct mcp *m, const char *rel, size_t len, char **cause)
{
	char	*why;

	if (strcmp(rel, ".") == 0) {
		*cause = xstrdup("'.' is the project directory, not a file");
		return -1;
	}
	if (!files_utf8(rel)) {
		*cause = xstrdup("the path is not valid UTF-8, and file writes "
		    "carry UTF-8 paths only: rename it with the run tool, "
		    "e.g. mv -- \"$(printf '\\377\\376')\" new-name");
		return -1;
	}
	if (len > FILEREQ_MAX) {
		*cause = xasprintf("'%s': %zu bytes is more than a file write "
		    "may carry (%d KiB); write it with the run tool", rel, len,
		    FILEREQ_MAX / 1024);
		return -1;
	}
	if ((why = mcp_path_protected(m, rel)) != NULL) {
		*cause = why;
		return 1;
	}
	return 0;
}

/* write_file: create or replace a file, through the console. */
void
mcp_write_file(struct mcp *m, const cJSON *id, const cJSON *args,
    const cJSON *token)
{
	const char	*content = NULL, *b64 = NULL;
	char		*rel, *cause = NULL;
	struct buf	 bytes = BUF_INIT;
	int		 rc;

	if ((rel = files_path(m, id, args, "write_file", true)) == NULL)
		return;
	/* Bytes that JSON text cannot hold (NUL, not UTF-8) come as
	   content_base64 and are written exactly. */
	if (mcp_arg_string(args, "content", false, &content, &cause) != 0 ||
	    mcp_arg_string(args, "content_base64", false, &b64, &cause) != 0) {
		mcp_error(id, RPC_INVALID_PARAMS, "write_file: %s", cause);
		goto out;
	}
	if ((content == NULL) == (b64 == NULL)) {
		mcp_error(id, RPC_INVALID_PARAMS, "write_file: give either "
		    "'content' or 'content_base64'");
		goto out;
	}
	if (b64 != NULL && proto_base64_decode(b64, &bytes) != 0) {
		mcp_error(id, RPC_INVALID_PARAMS, "write_file: "
		    "'content_base64' is not base64");
		goto out;
	}
	if (b64 != NULL)
		buf_add(&bytes, "", 1);
	else
		buf_add(&bytes, content, strlen(content) + 1);
	if ((rc = files_writable(m, rel, bytes.len - 1, &cause)) < 0) {
		mcp_tool_error(id, "write_file: %s", cause);
		goto out;
	}
	if (rc > 0) {
		mcp_run_refused(m, id, token, "write_file", rel, bytes.data,
		    bytes.len - 1, cause);
		goto out;
	}
	mcp_run_write(m, id, token, "write_file", rel, bytes.data,
	    bytes.len - 1, 0, NULL);
out:
	buf_release(&bytes);
	free(cause);
	free(rel);
}

/* Append the lines of s[0..n) to a diff, each after mark. */
static void
files_diff_lines(struct buf *d, char mark, const char *s, size_t n)
{
	size_t	 i = 0, e;

	while (i < n) {
		for (e = i; e < n && s[e] != '\n'; e++)
			;
		buf_printf(d, "%c%.*s\n", mark, (int)(e - i), s + i);
		i = e + 1;
	}
	if (n == 0)
		buf_printf(d, "%c\n", mark);
}

/* Replace old by new in text (once, or every time when all); out gets the
   result, diff the hunks. -1 with cause when old is missing or ambiguous. */
int
mcp_edit_apply(const char *text, const char *old, const char *new, bool all,
    struct buf *out, struct buf *diff, size_t *count, char **cause)
{
	const char	*p, *q;
	size_t		 olen = strlen(old), line = 1, n = 0;

	*count = 0;
	if (olen == 0) {
		*cause = xstrdup("the text to replace is empty");
		return -1;
	}
	for (p = text; (q = strstr(p, old)) != NULL; p = q + olen)
		n++;
	if (n == 0) {
		*cause = xstrdup("old_text was not found");
		return -1;
	}
	if (n > 1 && !all) {
		*cause = xasprintf("old_text occurs %zu times: add context to "
		    "make it unique or set replace_all", n);
		return -1;
	}
	for (p = text; (q = strstr(p, old)) != NULL; p = q + olen) {
		for (const char *r = p; r < q; r++)
			line += *r == '\n';
		if ((*count)++ < DIFF_HUNKS) {
			buf_printf(diff, "@@ line %zu @@\n", line);
			files_diff_lines(diff, '-', old, olen);
			files_diff_lines(diff, '+', new, strlen(new));
		}
		for (const char *r = q; r < q + olen; r++)
			line += *r == '\n';
		buf_add(out, p, (size_t)(q - p));
		buf_puts(out, new);
	}
	buf_puts(out, p);
	if (*count > DIFF_HUNKS)
		buf_printf(diff, "... and %zu more\n", *count - DIFF_HUNKS);
	if (out->data == NULL)
		buf_puts(out, "");
	return 0;
}

/* edit_file: replace exact text. */
void
mcp_edit_file(struct mcp *m, const cJSON *id, const cJSON *args,
    const cJSON *token)
{
	struct buf	 b = BUF_INIT, out = BUF_INIT, diff = BUF_INIT;
	const char	*old, *new;
	char		*rel, *cause = NULL, *why, *msg = NULL;
	bool		 all = false;
	size_t		 count = 0;
	int		 rc;

	if ((rel = files_path(m, id, args, "edit_file", true)) == NULL)
		return;
	if (mcp_arg_string(args, "old_text", true, &old, &cause) != 0 ||
	    mcp_arg_string(args, "new_text", true, &new, &cause) != 0 ||
	    mcp_arg_bool(args, "replace_all", &all, &cause) != 0) {
		mcp_error(id, RPC_INVALID_PARAMS, "edit_file: %s", cause);
		goto done;
	}
	if (*old == '\0') {
		mcp_error(id, RPC_INVALID_PARAMS, "edit_file: 'old_text' is "
		    "empty");
		goto done;
	}
	/* A protected path is refused on the record: by the console with
	   the edit's result, else (no result to send) in the audit log. */
	why = mcp_path_protected(m, rel);
	if (mcp_file_load(m, rel, &b, &cause) != 0)
		msg = xasprintf("%s", cause);
	else if (mcp_edit_apply(b.data, old, new, all, &out, &diff, &count,
	    &cause) != 0)
		msg = xasprintf("'%s': %s", rel, cause);
	if (msg != NULL) {
		if (why != NULL)
			(void)edge_refusal_audit(&(struct edge_refusal){
			    .project = m->project, .edge = "mcp",
			    .agent = m->agent, .tool = "edit_file",
			    .path = rel, .reason = why });
		mcp_tool_error(id, "edit_file: %s", why != NULL ? why : msg);
		free(msg);
		free(why);
		goto done;
	}
	free(why);
	if ((rc = files_writable(m, rel, out.len, &cause)) < 0) {
		mcp_tool_error(id, "edit_file: %s", cause);
		goto done;
	}
	if (rc > 0) {
		mcp_run_refused(m, id, token, "edit_file", rel, out.data,
		    out.len, cause);
		goto done;
	}
	mcp_run_write(m, id, token, "edit_file", rel, out.data, out.len,
	    (unsigned)count,
	    buf_detach(&diff));
done:
	buf_release(&b);
	buf_release(&out);
	buf_release(&diff);
	free(cause);
	free(rel);
}

/* Order entries by name. */
static int
files_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* list_directory: the entries of a directory. */
void
mcp_list_directory(struct mcp *m, const cJSON *id, const cJSON *args,
    const cJSON *token __attribute__((unused)))
{
	struct strv	 names = STRV_INIT;
	struct buf	 text = BUF_INIT;
	struct dirent	*de;
	struct stat	 sb;
	DIR		*d;
	char		*rel, *cause = NULL, *why, *child;
	const char	*type;
	cJSON		*st, *a, *e, *b64;
	int		 fd;
	bool		 truncated = false;

	if ((rel = files_path(m, id, args, "list_directory", false)) == NULL)
		return;
	if ((why = mcp_path_hidden(m, rel)) != NULL) {
		mcp_tool_error(id, "list_directory: %s", why);
		free(why);
		goto out;
	}
	fd = mcp_path_open(m, rel, O_RDONLY | O_DIRECTORY, 0, &cause);
	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		mcp_tool_error(id, "list_directory: %s", cause != NULL ?
		    cause : strerror(errno));
		goto out;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (names.n == LIST_MAX) {
			truncated = true;
			break;
		}
		strv_push(&names, de->d_name);
	}
	if (names.n > 1)
		qsort(names.v, names.n, sizeof *names.v, files_cmp);
	st = cJSON_CreateObject();
	files_add_name(st, "path", rel);
	a = cJSON_AddArrayToObject(st, "entries");
	for (size_t i = 0; i < names.n; i++) {
		child = strcmp(rel, ".") == 0 ? xstrdup(names.v[i]) :
		    xasprintf("%s/%s", rel, names.v[i]);
		why = mcp_path_hidden(m, child);
		free(child);
		if (why != NULL) {
			free(why);
			continue;
		}
		if (beneath_child_stat(dirfd(d), names.v[i], &sb) != 0)
			continue;
		type = S_ISREG(sb.st_mode) ? "file" : S_ISDIR(sb.st_mode) ?
		    "directory" : S_ISLNK(sb.st_mode) ? "symlink" : "other";
		e = cJSON_CreateObject();
		files_add_name(e, "name", names.v[i]);
		cJSON_AddStringToObject(e, "type", type);
		cJSON_AddNumberToObject(e, "size", (double)sb.st_size);
		cJSON_AddItemToArray(a, e);
		buf_printf(&text, "%s%s", cJSON_GetStringValue(
		    cJSON_GetObjectItem(e, "name")), S_ISDIR(sb.st_mode) ?
		    "/" : S_ISLNK(sb.st_mode) ? "@" : "");
		/* The exact bytes, to name it back with path_base64. */
		if ((b64 = cJSON_GetObjectItem(e, "name_base64")) != NULL)
			buf_printf(&text, "  (not UTF-8: name_base64 %s; "
			    "pass path_base64 to name it)", b64->valuestring);
		buf_putc(&text, '\n');
	}
	closedir(d);
	cJSON_AddBoolToObject(st, "truncated", truncated);
	if (truncated)
		buf_printf(&text, "(only the first %d entries)\n", LIST_MAX);
	mcp_tool_result(id, st, text.data != NULL ? text.data :
	    "(empty directory)\n", false);
out:
	strv_release(&names);
	buf_release(&text);
	free(cause);
	free(rel);
}
