/*
 * undo-pack: the run's pack (runs/<id>/pack), where the content of each
 * small file (UNDO_PACK_FILE or less) the run replaces is kept: one
 * append-only file, written through a buffer in large pieces, so a run
 * that changes thousands of small files makes one file of the store, not
 * thousands. A content met twice in the run is kept once (indexed by its
 * sha256). The manifest says where each file's content is ("pack_off",
 * "pack_len"); undo-commit.c flushes and syncs the pack before it.
 */
#include "autoconf.h"

#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sha256.h"
#include "undo-int.h"
#include "undo-rec.h"
#include "xalloc.h"

int
undo_pack_flush(struct undo_rec *u)
{
	size_t	off = 0;
	ssize_t	w;

	while (off < u->plen) {
		if ((w = write(u->pack_fd, u->pbuf + off, u->plen - off)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		off += (size_t)w;
	}
	u->plen = 0;
	return 0;
}

static uint64_t
undo_pack_hash(const char *sha)
{
	uint64_t	h = 0;

	for (int i = 0; i < 16; i++)
		h = h * 16 + (uint64_t)(sha[i] <= '9' ? sha[i] - '0' :
		    sha[i] - 'a' + 10);
	return h;
}

static struct undo_packed *
undo_pack_find(struct undo_rec *u, const char *sha)
{
	if (u->pindex == NULL)
		return NULL;
	for (size_t i = undo_pack_hash(sha) & u->pmask; u->pindex[i] != 0;
	    i = (i + 1) & u->pmask)
		if (strcmp(u->pk[u->pindex[i] - 1].sha, sha) == 0)
			return &u->pk[u->pindex[i] - 1];
	return NULL;
}

static void
undo_pack_index(struct undo_rec *u, size_t n)
{
	size_t	i;

	if (u->pindex == NULL || (u->npk + 1) * 2 > u->pmask + 1) {
		size_t size = u->pindex == NULL ? 256 : (u->pmask + 1) * 2;

		free(u->pindex);
		u->pindex = xcalloc(size, sizeof *u->pindex);
		u->pmask = size - 1;
		for (size_t j = 0; j < u->npk; j++)
			if (j != n)
				undo_pack_index(u, j);
	}
	for (i = undo_pack_hash(u->pk[n].sha) & u->pmask; u->pindex[i] != 0;
	    i = (i + 1) & u->pmask)
		;
	u->pindex[i] = (uint32_t)n + 1;
}

/* Keep len bytes of data (sha) in the run's pack: where they are, or
   NULL with *why. */
static struct undo_packed *
undo_pack_add(struct undo_rec *u, const char *data, size_t len,
    const char *sha, bool *added, char **why)
{
	struct undo_packed	*e;

	*added = false;
	if ((e = undo_pack_find(u, sha)) != NULL)
		return e;
	if (u->pack_fd < 0) {
		char *dir = undo_run_dir(u->store, u->id);
		char *p = xasprintf("%s/pack", dir);

		u->pack_fd = open(p, O_WRONLY | O_CREAT | O_APPEND |
		    O_NOFOLLOW | O_CLOEXEC, 0600);
		free(p);
		free(dir);
		if (u->pack_fd < 0) {
			*why = xasprintf("cannot write the store: %s",
			    strerror(errno));
			return NULL;
		}
		u->pbuf = xmalloc(UNDO_PACK_BUF);
	}
	if (u->plen + len > UNDO_PACK_BUF && undo_pack_flush(u) != 0) {
		*why = xasprintf("cannot write the store: %s",
		    strerror(errno));
		return NULL;
	}
	if (len > UNDO_PACK_BUF) {
		for (size_t off = 0; off < len; ) {
			ssize_t w = write(u->pack_fd, data + off, len - off);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				*why = xasprintf("cannot write the store: %s",
				    strerror(errno));
				return NULL;
			}
			off += (size_t)w;
		}
	} else {
		memcpy(u->pbuf + u->plen, data, len);
		u->plen += len;
	}
	if (u->npk == u->cpk) {
		u->cpk = u->cpk ? u->cpk * 2 : 64;
		u->pk = xreallocarray(u->pk, u->cpk, sizeof *u->pk);
	}
	e = &u->pk[u->npk++];
	memcpy(e->sha, sha, SHA256_HEX_LEN + 1);
	e->off = u->pack_size;
	e->len = len;
	u->pack_size += len;
	undo_pack_index(u, u->npk - 1);
	*added = true;
	return e;
}

int
undo_rec_pack(struct undo_rec *u, struct undo_kept *k, int fd)
{
	char			*buf = xmalloc(UNDO_PACK_FILE + 1);
	char			 hex[SHA256_HEX_LEN + 1];
	struct undo_packed	*e;
	size_t			 n = 0;
	ssize_t			 r;
	bool			 added;

	while (n <= UNDO_PACK_FILE && (r = read(fd, buf + n,
	    UNDO_PACK_FILE + 1 - n)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			k->why = xasprintf("cannot read it: %s",
			    strerror(errno));
			free(buf);
			return -1;
		}
		n += (size_t)r;
	}
	if (n > UNDO_PACK_FILE) {
		free(buf);
		return lseek(fd, 0, SEEK_SET) == 0 ? 1 : -1;
	}
	sha256_hex(buf, n, hex);
	if ((e = undo_pack_add(u, buf, n, hex, &added, &k->why)) == NULL) {
		free(buf);
		return -1;
	}
	free(buf);
	if (added)
		u->run_bytes += n;
	u->ref_bytes += n;
	k->sha = xstrdup(hex);
	k->packed = true;
	k->poff = e->off;
	k->plen = e->len;
	return 0;
}
