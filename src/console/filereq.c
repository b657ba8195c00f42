/* filereq: an agent's file write as a console request: classified like a
   command, shown as a diff, carried to the sandbox's helper as data
   (filereq.h). */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attention.h"
#include "beneath.h"
#include "buf.h"
#include "filereq.h"
#include "libexec.h"
#include "sha256.h"
#include "strv.h"
#include "xalloc.h"

#define FILEREQ_READ_MAX	(16 * 1024 * 1024)
#define FILEREQ_DIFF_LINES	400	/* per side */

/* Split text into lines (without their '\n'); a last line without one
   counts too. */
static void
filereq_lines(const char *text, struct strv *sv)
{
	const char	*p = text, *e;

	while (*p != '\0') {
		e = strchr(p, '\n');
		if (e == NULL) {
			strv_push(sv, p);
			break;
		}
		char *line = xstrndup(p, (size_t)(e - p));

		strv_push(sv, line);
		free(line);
		p = e + 1;
	}
}

/* Append lines [from, to) of sv, each after mark. */
static void
filereq_side(struct buf *b, const struct strv *sv, size_t from, size_t to,
    char mark, size_t max)
{
	for (size_t i = from; i < to; i++) {
		if (i - from == max) {
			buf_printf(b, "%c... %zu more lines\n", mark, to - i);
			break;
		}
		buf_printf(b, "%c%s\n", mark, sv->v[i]);
	}
}

/* One hunk between the common head and tail. */
char *
filereq_diff(const char *old, const char *new, size_t max)
{
	struct strv	 a = STRV_INIT, b = STRV_INIT;
	struct buf	 d = BUF_INIT;
	size_t		 head = 0, tail = 0;

	filereq_lines(old, &a);
	filereq_lines(new, &b);
	while (head < a.n && head < b.n && strcmp(a.v[head], b.v[head]) == 0)
		head++;
	while (tail < a.n - head && tail < b.n - head &&
	    strcmp(a.v[a.n - 1 - tail], b.v[b.n - 1 - tail]) == 0)
		tail++;
	if (head == a.n && head == b.n)
		buf_puts(&d, strcmp(old, new) == 0 ? "(no change)\n" :
		    "(only the final newline changes)\n");
	else {
		buf_printf(&d, "@@ -%zu,%zu +%zu,%zu @@\n", head + 1,
		    a.n - head - tail, head + 1, b.n - head - tail);
		filereq_side(&d, &a, head, a.n - tail, '-', max);
		filereq_side(&d, &b, head, b.n - tail, '+', max);
	}
	strv_release(&a);
	strv_release(&b);
	return buf_detach(&d);
}

/* The file as it is now (old->data NULL when it does not exist). */
static int
filereq_read(const char *project, const char *rel, struct buf *old,
    bool *exists, bool *executable, char **cause)
{
	struct stat	 st;
	int		 dfd, fd;

	*exists = *executable = false;
	if ((dfd = beneath_root(project, &st, cause)) < 0)
		return -1;
	fd = beneath_open(dfd, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0,
	    cause);
	close(dfd);
	if (fd < 0 && errno == ENOENT) {
		free(*cause);
		*cause = NULL;
		return 0;
	}
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > FILEREQ_READ_MAX ||
	    buf_read_fd(old, fd, FILEREQ_READ_MAX) != 0) {
		*cause = xasprintf("'%s' is not a regular file of at most "
		    "%d MiB", rel, FILEREQ_READ_MAX >> 20);
		close(fd);
		return -1;
	}
	close(fd);
	*exists = true;
	*executable = (st.st_mode & 0111) != 0;
	return 0;
}

/* Text the line diff can show (no NUL). */
static bool
filereq_text(const char *s, size_t n)
{
	return n == 0 || memchr(s, '\0', n) == NULL;
}

/* The message for the helper (filereq.h). */
void
filereq_encode(const char *rel, const char *was, const char *content,
    size_t len, struct buf *b)
{
	buf_puts(b, WRITE_PROTO_MAGIC);
	buf_printf(b, "path %zu\n", strlen(rel));
	buf_puts(b, rel);
	buf_puts(b, "\n");
	if (was == NULL)
		buf_puts(b, "was new\n");
	else
		buf_printf(b, "was sha256 %s\n", was);
	buf_printf(b, "content %zu\n", len);
	buf_add(b, content, len);
}

/* The request's message: the digest of what the diff was made from. */
static void
filereq_message(struct filereq *fr, const struct buf *old, bool exists,
    const char *content, size_t len)
{
	struct buf	 b = BUF_INIT;
	char		 hex[SHA256_HEX_LEN + 1];

	if (exists)
		sha256_hex(old->data != NULL ? old->data : "", old->len, hex);
	filereq_encode(fr->rel, exists ? hex : NULL, content, len, &b);
	fr->message_len = b.len;
	fr->message = buf_detach(&b);
}

/* Build the request. */
int
filereq_build(const char *project, const char *path, const char *content,
    size_t len, struct filereq *fr, char **cause)
{
	struct buf	 old = BUF_INIT;
	bool		 exists;
	char		*d, *helper;

	/* The helper makes the write; without it, none can be made. */
	if ((helper = libexec_find("bwgate-helper", "BWGATE_HELPER")) ==
	    NULL) {
		*cause = xstrdup("file writes need bwgate-helper, which "
		    "cannot be found (set BWGATE_HELPER)");
		return -1;
	}
	free(helper);
	if (len > FILEREQ_MAX) {
		*cause = xasprintf("file writes through the console carry at "
		    "most %d KiB (this one has %zu bytes); write larger "
		    "files with a command", FILEREQ_MAX / 1024, len);
		return -1;
	}
	for (const unsigned char *p = (const unsigned char *)path; *p != '\0';
	    p++) {
		if (*p < 0x20 || *p == 0x7f) {
			*cause = xasprintf("the write path holds a control "
			    "character (byte 0x%02x): such names are refused",
			    *p);
			return -1;
		}
	}
	if ((fr->rel = beneath_relative(project, path, cause)) == NULL)
		return -1;
	if (strcmp(fr->rel, ".") == 0) {
		*cause = xstrdup("the write path names the project directory");
		return -1;
	}
	if (strlen(fr->rel) > WRITE_PROTO_MAX_PATH) {
		*cause = xasprintf("the write path is longer than %d bytes",
		    WRITE_PROTO_MAX_PATH);
		return -1;
	}
	if (filereq_read(project, fr->rel, &old, &exists, &fr->executable,
	    cause) != 0)
		return -1;
	fr->created = !exists;
	fr->len = len;
	fr->title = xasprintf("write %zu byte%s to %s", len, len == 1 ? "" :
	    "s", fr->rel);
	if (!filereq_text(old.data, old.len) || !filereq_text(content, len))
		fr->diff = xasprintf("%s\nbinary content: %zu bytes before, "
		    "%zu after\n", exists ? "modified" : "new file", old.len,
		    len);
	else if (!exists) {
		d = filereq_diff("", content, FILEREQ_DIFF_LINES);
		fr->diff = xasprintf("new file\n%s", d);
		free(d);
	} else {
		buf_puts(&old, "");	/* NUL-ended, also when empty */
		fr->diff = filereq_diff(old.data, content,
		    FILEREQ_DIFF_LINES);
	}
	filereq_message(fr, &old, exists, content, len);
	buf_release(&old);
	return 0;
}

/* A file write's verdict (filereq.h). */
void
filereq_classify(const struct allowlist *al, const char *rel,
    bool executable, const struct strv *protected,
    const struct strv *attention, struct classification *cl)
{
	const char	*pat = NULL;
	char		*s;

	allowlist_classify_write(al, rel, protected, cl);
	if (cl->verdict != VERDICT_ALLOW)
		return;
	for (size_t i = 0; attention != NULL && i < attention->n; i++)
		if (attention_match(rel, attention->v[i])) {
			pat = attention->v[i];
			break;
		}
	if (pat != NULL)
		s = xasprintf("write_file: '%s' is called out for the "
		    "operator's attention (%s)", rel, pat);
	else if (executable)
		s = xasprintf("write_file: '%s' is a program (it has an "
		    "execute bit): a person may run it as it is", rel);
	else
		return;
	cl->verdict = VERDICT_ASK;
	free(cl->reason);
	cl->reason = s;
}

/* Free what a build made. */
void
filereq_release(struct filereq *fr)
{
	free(fr->rel);
	free(fr->title);
	free(fr->diff);
	free(fr->message);
	*fr = (struct filereq)FILEREQ_INIT;
}
