/*
 * helper-write: bwgate-helper's write mode, an agent's file write done
 * inside the sandbox from data, never from shell text (write-proto.h).
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "helper-write.h"
#include "sha256.h"
#include "write-proto.h"

/* Read all of fd, at most max bytes; NULL when more or on an error. */
static char *
hw_slurp(int fd, size_t max, size_t *len)
{
	char	*b = malloc(max + 1);
	size_t	 n = 0;
	ssize_t	 r;

	if (b == NULL)
		return NULL;
	for (;;) {
		r = read(fd, b + n, max + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(b);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			free(b);
			return NULL;
		}
	}
	*len = n;
	return b;
}

/* "WORD LEN\n" at *p, then LEN bytes; the bytes' start, or NULL. */
static const char *
hw_field(const char **p, const char *end, const char *word, size_t max,
    size_t *len)
{
	size_t		 wl = strlen(word), v = 0;
	const char	*q = *p, *data;

	if ((size_t)(end - q) < wl + 2 || memcmp(q, word, wl) != 0 ||
	    q[wl] != ' ')
		return NULL;
	q += wl + 1;
	/* One way to write each number: no leading zero. */
	if (q >= end || *q < '0' || *q > '9' || (*q == '0' && q + 1 < end &&
	    q[1] >= '0' && q[1] <= '9'))
		return NULL;
	for (; q < end && *q >= '0' && *q <= '9'; q++) {
		v = v * 10 + (size_t)(*q - '0');
		if (v > max)
			return NULL;
	}
	if (q >= end || *q != '\n' || (size_t)(end - q - 1) < v)
		return NULL;
	data = q + 1;
	*len = v;
	*p = data + v;
	return data;
}

/* Parse the message (helper-write.h). */
int
helper_write_parse(const char *b, size_t n, struct write_msg *m)
{
	const char	*p = b, *end = b + n, *d;
	size_t		 l, ml = strlen(WRITE_PROTO_MAGIC);

	m->created = false;
	m->was[0] = '\0';
	if (n < ml || memcmp(p, WRITE_PROTO_MAGIC, ml) != 0)
		return -1;
	p += ml;
	if ((d = hw_field(&p, end, "path", WRITE_PROTO_MAX_PATH, &l)) ==
	    NULL || l == 0 || memchr(d, '\0', l) != NULL || p >= end ||
	    *p != '\n')
		return -1;
	memcpy(m->path, d, l);
	m->path[l] = '\0';
	p++;
	if ((size_t)(end - p) >= 8 && memcmp(p, "was new\n", 8) == 0) {
		m->created = true;
		p += 8;
	} else if ((size_t)(end - p) >= 11 + SHA256_HEX_LEN + 1 &&
	    memcmp(p, "was sha256 ", 11) == 0 &&
	    p[11 + SHA256_HEX_LEN] == '\n') {
		memcpy(m->was, p + 11, SHA256_HEX_LEN);
		m->was[SHA256_HEX_LEN] = '\0';
		if (strspn(m->was, "0123456789abcdef") != SHA256_HEX_LEN)
			return -1;
		p += 11 + SHA256_HEX_LEN + 1;
	} else
		return -1;
	if ((m->content = hw_field(&p, end, "content", WRITE_PROTO_MAX,
	    &m->len)) == NULL || p != end)
		return -1;
	return 0;
}

/* The SHA-256 of what fd holds (a regular file); -1 on an error. */
static int
hw_digest(int fd, char hex[SHA256_HEX_LEN + 1])
{
	static const char	 digits[] = "0123456789abcdef";
	struct sha256		 s;
	uint8_t			 out[SHA256_LEN];
	char			 b[65536];
	ssize_t			 r;

	sha256_init(&s);
	while ((r = read(fd, b, sizeof b)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		sha256_update(&s, b, (size_t)r);
	}
	sha256_final(&s, out);
	for (size_t i = 0; i < SHA256_LEN; i++) {
		hex[2 * i] = digits[out[i] >> 4];
		hex[2 * i + 1] = digits[out[i] & 15];
	}
	hex[SHA256_HEX_LEN] = '\0';
	return 0;
}

/* Say why and return code. */
static int
hw_fail(int code, const struct write_msg *m, const char *what, int err)
{
	fprintf(stderr, "bwgate-helper: '%s': %s%s%s; nothing was written\n",
	    m->path, what, err != 0 ? ": " : "", err != 0 ? strerror(err) :
	    "");
	return code;
}

/* Write all of data to fd. */
static int
hw_write_all(int fd, const char *data, size_t len)
{
	ssize_t	 r;

	while (len > 0) {
		r = write(fd, data, len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		data += r;
		len -= (size_t)r;
	}
	return 0;
}

/* Check, write beside, rename; with the message parsed. */
static int
hw_apply(const struct write_msg *m)
{
	struct stat	 st;
	const char	*name;
	char		*cause = NULL, hex[SHA256_HEX_LEN + 1], tmp[64];
	mode_t		 mode = 0666;
	int		 root, dir, fd, e;

	if ((root = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return hw_fail(WRITE_EXIT_REFUSED, m, "cannot open the "
		    "project", errno);
	dir = beneath_parent(root, m->path, m->created, &name, &cause);
	e = errno;
	close(root);
	if (dir < 0) {
		fprintf(stderr, "bwgate-helper: %s; nothing was written\n",
		    cause != NULL ? cause : strerror(e));
		free(cause);
		return WRITE_EXIT_REFUSED;
	}
	if (m->created) {
		if (beneath_child_stat(dir, name, &st) == 0) {
			close(dir);
			return hw_fail(WRITE_EXIT_CONFLICT, m, "it exists now "
			    "(it did not when this write was shown)", 0);
		}
	} else {
		fd = beneath_child(dir, name, O_RDONLY | O_NONBLOCK |
		    O_NOCTTY);
		if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
		    hw_digest(fd, hex) != 0 || strcmp(hex, m->was) != 0) {
			e = fd < 0 ? errno : 0;
			if (fd >= 0)
				close(fd);
			close(dir);
			return hw_fail(WRITE_EXIT_CONFLICT, m, "it changed "
			    "since this write was shown", e);
		}
		close(fd);
		mode = st.st_mode & 07777;
	}
	/* A name nobody planted: a few random ones, never followed. */
	fd = -1;
	for (int i = 0; fd < 0 && i < 8; i++) {
		uint64_t	 r = 0;

		if (getrandom(&r, sizeof r, 0) != sizeof r)
			r = (uint64_t)getpid() * 2654435761u + (uint64_t)i;
		snprintf(tmp, sizeof tmp, ".bwgate-write.%016llx",
		    (unsigned long long)r);
		fd = beneath_open(dir, tmp, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0600, &cause);
		free(cause);
		cause = NULL;
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		e = errno;
		close(dir);
		return hw_fail(WRITE_EXIT_REFUSED, m, "cannot create a "
		    "temporary file beside it", e);
	}
	if (m->created) {
		mode_t	 um = umask(0);

		umask(um);
		mode = 0666 & ~um;
	}
	if (hw_write_all(fd, m->content, m->len) != 0 ||
	    fchmod(fd, mode) != 0 || close(fd) != 0) {
		e = errno;
		(void)beneath_drop(dir, tmp);
		close(dir);
		return hw_fail(WRITE_EXIT_REFUSED, m, "cannot write", e);
	}
	/* A new file never replaces one that appeared meanwhile. */
	if ((m->created ? beneath_move(dir, tmp, dir, name) :
	    beneath_replace(dir, tmp, name)) != 0) {
		e = errno;
		(void)beneath_drop(dir, tmp);
		close(dir);
		return hw_fail(e == EEXIST ? WRITE_EXIT_CONFLICT :
		    WRITE_EXIT_REFUSED, m, e == EEXIST ? "it exists now" :
		    "cannot put it in place", e == EEXIST ? 0 : e);
	}
	close(dir);
	return 0;
}

int
helper_write(int fd)
{
	static struct write_msg	 m;
	char			*b;
	size_t			 n;
	int			 rc;

	b = hw_slurp(fd, strlen(WRITE_PROTO_MAGIC) + WRITE_PROTO_MAX_PATH +
	    WRITE_PROTO_MAX + 256, &n);
	if (b == NULL || helper_write_parse(b, n, &m) != 0) {
		fprintf(stderr, "bwgate-helper: no valid write message on "
		    "stdin; nothing was written\n");
		free(b);
		return WRITE_EXIT_BAD;
	}
	rc = hw_apply(&m);
	free(b);
	return rc;
}
