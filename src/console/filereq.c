/* filereq: an agent's file write as a console request: classified by the
   file-write rules, shown as a diff, run as a checked script in the
   sandbox (filereq.h). */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "buf.h"
#include "filereq.h"
#include "filewrite.h"
#include "sha256.h"
#include "strv.h"
#include "xalloc.h"

#define FILEREQ_READ_MAX	(16 * 1024 * 1024)
#define FILEREQ_DIFF_LINES	400	/* per side, in the comments */

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

/* The file as it is now: *old NULL when it does not exist. */
static int
filereq_read(const char *project, const char *rel, char **old,
    char **cause)
{
	struct buf	 b = BUF_INIT;
	struct stat	 st;
	int		 dfd, fd;

	*old = NULL;
	dfd = open(project, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		*cause = xasprintf("cannot open the project '%s': %s", project,
		    strerror(errno));
		return -1;
	}
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
	    buf_read_fd(&b, fd, FILEREQ_READ_MAX) != 0) {
		*cause = xasprintf("'%s' is not a regular file of at most "
		    "%d MiB", rel, FILEREQ_READ_MAX >> 20);
		close(fd);
		buf_release(&b);
		return -1;
	}
	close(fd);
	if (b.len > 0 && memchr(b.data, '\0', b.len) != NULL) {
		*cause = xasprintf("'%s' is a binary file (it holds NUL "
		    "bytes); write it with a command", rel);
		buf_release(&b);
		return -1;
	}
	if (b.data == NULL)
		buf_puts(&b, "");
	*old = buf_detach(&b);
	return 0;
}

/* The script: the diff as comments, the check, the write. */
static char *
filereq_script(const struct filereq *fr, const char *old,
    const char *content)
{
	struct buf	 b = BUF_INIT;
	char		 hex[SHA256_HEX_LEN + 1];
	char		*qf = shell_squote(fr->rel);
	char		*qc = shell_squote(content);
	char		*dir, *qd, *slash;
	const char	*p, *e;
	size_t		 budget;

	buf_printf(&b, "# bwgate: write_file %s (%s)\n", qf, fr->created ?
	    "new file" : "modified");
	/* What the diff may use of the one argument. */
	budget = FILEREQ_SCRIPT_MAX - strlen(qc) - 3 * strlen(qf) - 1024;
	for (p = fr->diff; *p != '\0'; p = *e == '\0' ? e : e + 1) {
		e = p + strcspn(p, "\n");
		if (b.len + (size_t)(e - p) + 3 > budget) {
			buf_printf(&b, "# ... (the diff is cut here; the whole "
			    "new content follows)\n");
			break;
		}
		buf_printf(&b, "# %.*s\n", (int)(e - p), p);
	}
	buf_printf(&b, "f=%s\n", qf);
	if (fr->created) {
		if ((slash = strrchr(fr->rel, '/')) != NULL) {
			dir = xstrndup(fr->rel, (size_t)(slash - fr->rel));
			qd = shell_squote(dir);
			buf_printf(&b, "mkdir -p -- %s || exit 1\n", qd);
			free(qd);
			free(dir);
		}
		/* noclobber: the shell creates it with O_EXCL. */
		buf_puts(&b, "set -C\n");
	} else {
		sha256_hex(old, strlen(old), hex);
		buf_printf(&b, "[ \"$(sha256sum < \"$f\")\" = '%s  -' ] || { "
		    "echo \"bwgate: '$f' changed since this write was shown; "
		    "nothing was written\" >&2; exit 1; }\n", hex);
	}
	buf_printf(&b, "printf '%%s' %s > \"$f\"\n", qc);
	free(qf);
	free(qc);
	return buf_detach(&b);
}

/* The length of s in single quotes (each ' takes four bytes). */
static size_t
shell_squote_len(const char *s)
{
	size_t	 n = 2;

	for (; *s != '\0'; s++)
		n += *s == '\'' ? 4 : 1;
	return n;
}

/* Build the request. */
int
filereq_build(const char *project, const char *path, const char *content,
    const struct strv *protected, struct filereq *fr, char **cause)
{
	struct filewrite_match	 fm;
	char			*old = NULL, *d;

	if (shell_squote_len(content) > FILEREQ_MAX) {
		*cause = xasprintf("'%s': file writes through the console are "
		    "limited to %d KiB of quoted content (it is passed to the "
		    "shell as one argument); write larger files with a "
		    "command", path, FILEREQ_MAX / 1024);
		return -1;
	}
	if ((fr->rel = beneath_relative(project, path, cause)) == NULL)
		return -1;
	if (strcmp(fr->rel, ".") == 0) {
		*cause = xstrdup("the write path names the project directory");
		return -1;
	}
	if (filereq_read(project, fr->rel, &old, cause) != 0)
		return -1;
	fr->created = old == NULL;
	filewrite_classify(fr->rel, protected, &fm);
	if (fm.kind == FILEWRITE_PLAIN) {
		fr->verdict = VERDICT_ALLOW;
		fr->reason = xasprintf("write_file: %s", fm.why);
	} else {
		fr->verdict = VERDICT_ASK;
		fr->reason = xasprintf("write_file: '%s' is %s (%s: %s)",
		    fr->rel, filewrite_kind_name(fm.kind), fm.entry, fm.why);
	}
	if (fr->created) {
		d = filereq_diff("", content, FILEREQ_DIFF_LINES);
		fr->diff = xasprintf("new file\n%s", d);
		free(d);
	} else
		fr->diff = filereq_diff(old, content, FILEREQ_DIFF_LINES);
	fr->command = filereq_script(fr, old, content);
	free(old);
	return 0;
}

/* Free what a build made. */
void
filereq_release(struct filereq *fr)
{
	free(fr->rel);
	free(fr->command);
	free(fr->diff);
	free(fr->reason);
	*fr = (struct filereq)FILEREQ_INIT;
}
