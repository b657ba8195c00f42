/* bpfcache: cache compiled seccomp programs in the runtime directory. */
#include "autoconf.h"

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpfcache.h"
#include "file.h"
#include "log.h"
#include "rundir.h"
#include "sha256.h"
#include "xalloc.h"

/* Note a main program's GNU build id, as hex, into arg. */
static int
code_id_note(struct dl_phdr_info *info, size_t size, void *arg)
{
	char	*out = arg;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char	*p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
			const char	*name = p + sizeof *n;
			const unsigned char *desc = (const unsigned char *)
			    name + ((n->n_namesz + 3) & ~3U);

			if ((const char *)desc + n->n_descsz > end)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    memcmp(name, "GNU", 4) == 0 && n->n_descsz > 0) {
				for (unsigned k = 0; k < n->n_descsz &&
				    k < BPF_CODE_ID_MAX / 2; k++)
					snprintf(out + 2 * k, 3, "%02x",
					    desc[k]);
				return 1;
			}
			p = (const char *)desc + ((n->n_descsz + 3) & ~3U);
		}
	}
	return 1;	/* the first object is the main program: stop */
}

/*
 * What identifies the code that builds the filters: the binary's build
 * id (the linker derives it from the code, so any change to the filter
 * tables or the code that compiles them gives a new one), or, for a
 * binary linked without one, the digest of the executable itself.
 */
const char *
bpf_code_id(void)
{
	static char	id[BPF_CODE_ID_MAX + 1];
	struct buf	b = BUF_INIT;
	char		hex[SHA256_HEX_LEN + 1];
	int		fd;

	if (id[0] != '\0')
		return id;
	dl_iterate_phdr(code_id_note, id);
	if (id[0] != '\0')
		return id;
	if ((fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)) >= 0) {
		if (buf_read_fd(&b, fd, 64 << 20) == 0) {
			sha256_hex(b.data, b.len, hex);
			snprintf(id, sizeof id, "exe-%s", hex);
		}
		close(fd);
		buf_release(&b);
	}
	if (id[0] == '\0')
		snprintf(id, sizeof id, "unknown-%ld", (long)getpid());
	return id;
}

/*
 * The cache file of a program: keyed by bwgate's version, the code that
 * builds the filters and the libseccomp version, so no cache written by
 * another build can be read.
 */
char *
bpf_cache_path(const char *dir, const char *name, const char *version,
    const char *code_id)
{
	const struct scmp_version *v = seccomp_version();
	char	*key, hex[SHA256_HEX_LEN + 1];

	key = xasprintf("%s\n%s\n%u.%u.%u", version, code_id, v->major,
	    v->minor, v->micro);
	sha256_hex(key, strlen(key), hex);
	free(key);
	hex[24] = '\0';
	return xasprintf("%s/bpf-%s-%s", dir, name, hex);
}

/* The cache file of a program in the runtime directory. */
static char *
cache_path(const char *name)
{
	char	*dir, *cause = NULL, *p;

	if ((dir = rundir_get(true, &cause)) == NULL) {
		free(cause);
		return NULL;
	}
	p = bpf_cache_path(dir, name, PACKAGE_VERSION, bpf_code_id());
	free(dir);
	return p;
}

/* Read a cached program; false when there is none worth trusting. */
static bool
cache_read(const char *path, struct buf *out)
{
	struct stat	st;
	size_t		start = out->len;
	int		fd;
	bool		ok;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return false;
	ok = fstat(fd, &st) == 0 && st.st_uid == getuid() &&
	    S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size % 8 == 0 &&
	    st.st_size <= (1 << 20) && buf_read_fd(out, fd, 0) == 0 &&
	    out->len - start == (size_t)st.st_size;
	close(fd);
	if (!ok)
		out->len = start;
	return ok;
}

/* Write aside, sync and rename: readers never see half a program. */
static void
cache_write(const char *path, const char *data, size_t len)
{
	char	*cause = NULL;

	if (file_write_atomic(path, data, len, 0600, &cause) != 0) {
		LOG("%s", cause);	/* only a cache: rebuilt next time */
		free(cause);
	}
}

int
bpf_cache_get(const char *name, bpf_build_fn build, void *arg,
    struct buf *out, char **cause)
{
	char	*path = cache_path(name);
	size_t	 start = out->len;

	if (path != NULL && cache_read(path, out)) {
		free(path);
		return 0;
	}
	if (build(arg, out, cause) != 0) {
		free(path);
		return -1;
	}
	if (path != NULL)
		cache_write(path, out->data + start, out->len - start);
	free(path);
	return 0;
}

int
bpf_export(void *ctx, struct buf *out, char **cause)
{
	int	fd = memfd_create("bwgate-bpf", MFD_CLOEXEC);
	int	rc = -1;

	if (fd >= 0 && seccomp_export_bpf(ctx, fd) == 0 &&
	    lseek(fd, 0, SEEK_SET) == 0 && buf_read_fd(out, fd, 1 << 20) == 0)
		rc = 0;
	else
		*cause = xasprintf("cannot export a seccomp program: %s",
		    strerror(errno));
	if (fd >= 0)
		close(fd);
	return rc;
}
