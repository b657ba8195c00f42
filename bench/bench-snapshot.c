/*
 * bench-snapshot: time the change-report scan and diff on a large tree.
 *
 *	bench-snapshot [-k] [-n FILES] [-r RUNS] [DIR]
 *	bench-snapshot -g DIR [-n FILES]	only generate the tree
 *
 * Without DIR a tree of FILES files (default 100000, 100 per directory,
 * three levels) is generated in a temporary directory and removed at the
 * end (-k keeps it). Prints one "name value" line per figure: medians of
 * RUNS warm runs for a one-thread scan, a two-thread scan (wall and CPU
 * time: the CPU figure holds on a busy machine), the diff of two unchanged
 * snapshots, and the diff after touching ten files (checked).
 */
#include "autoconf.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report.h"
#include "snapshot.h"
#include "xalloc.h"

static double	 now_ms(void);
static double	 cpu_ms(void);
static int	 cmp_double(const void *, const void *);
static double	 median(double *, int);
static void	 generate(const char *, long);
static struct snapshot *take(const char *, int, double *, double *);
static void	 usage(void) __attribute__((noreturn));

/* Monotonic clock in milliseconds. */
static double
now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* CPU time of the whole process (all threads) in milliseconds. */
static double
cpu_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* qsort: doubles ascending. */
static int
cmp_double(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of n samples (sorts them). */
static double
median(double *v, int n)
{
	qsort(v, n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Make nfiles small files under dir: d00/e0/f0/file00 ... (100 a leaf). */
static void
generate(const char *dir, long nfiles)
{
	char	 path[4096];
	long	 leaf, i;
	int	 fd;

	for (i = 0; i < nfiles; i++) {
		leaf = i / 100;
		if (i % 100 == 0) {
			snprintf(path, sizeof path, "%s/d%02ld", dir,
			    leaf / 100);
			mkdir(path, 0755);
			snprintf(path, sizeof path, "%s/d%02ld/e%ld", dir,
			    leaf / 100, leaf / 10 % 10);
			mkdir(path, 0755);
			snprintf(path, sizeof path, "%s/d%02ld/e%ld/f%ld", dir,
			    leaf / 100, leaf / 10 % 10, leaf % 10);
			if (mkdir(path, 0755) != 0 && errno != EEXIST) {
				fprintf(stderr, "mkdir %s: %s\n", path,
				    strerror(errno));
				exit(1);
			}
		}
		snprintf(path, sizeof path, "%s/d%02ld/e%ld/f%ld/file%02ld.c",
		    dir, leaf / 100, leaf / 10 % 10, leaf % 10, i % 100);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, "int x;\n", 7) != 7) {
			fprintf(stderr, "%s: %s\n", path, strerror(errno));
			exit(1);
		}
		close(fd);
	}
}

/* One timed snapshot (wall time, and CPU time when cpu is not NULL). */
static struct snapshot *
take(const char *dir, int threads, double *ms, double *cpu)
{
	struct snapshot_opts	 o = SNAPSHOT_OPTS_INIT;
	struct snapshot		*sn;
	char			*cause = NULL;
	double			 t0, c0;

	o.threads = threads;
	c0 = cpu_ms();
	t0 = now_ms();
	sn = snapshot_take(dir, &o, &cause);
	*ms = now_ms() - t0;
	if (cpu != NULL)
		*cpu = cpu_ms() - c0;
	if (sn == NULL) {
		fprintf(stderr, "bench-snapshot: %s\n", cause);
		exit(1);
	}
	return sn;
}

/* nftw callback: remove everything. */
static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	return remove(path);
}

static void
usage(void)
{
	fprintf(stderr, "usage: bench-snapshot [-k] [-n files] [-r runs] "
	    "[dir]\n       bench-snapshot -g dir [-n files]\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	struct snapshot		*a, *b;
	struct changes		 ch;
	const char		*gen = NULL;
	char			 tmpl[] = "/tmp/bench-snapshot.XXXXXX", *dir;
	char			 path[4096];
	double			*t, *cpu, ms;
	long			 nfiles = 100000;
	int			 runs = 11, keep = 0, c, i, generated = 0;

	while ((c = getopt(argc, argv, "g:kn:r:")) != -1) {
		switch (c) {
		case 'g':
			gen = optarg;
			break;
		case 'k':
			keep = 1;
			break;
		case 'n':
			nfiles = strtol(optarg, NULL, 10);
			break;
		case 'r':
			runs = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (nfiles < 100 || runs < 1 || argc > 1)
		usage();
	if (gen != NULL) {
		if (mkdir(gen, 0755) != 0 && errno != EEXIST) {
			fprintf(stderr, "mkdir %s: %s\n", gen, strerror(errno));
			return 1;
		}
		generate(gen, nfiles);
		return 0;
	}
	if (argc == 1)
		dir = argv[0];
	else {
		if ((dir = mkdtemp(tmpl)) == NULL) {
			perror("mkdtemp");
			return 1;
		}
		generate(dir, nfiles);
		generated = 1;
	}
	t = xcalloc(runs, sizeof *t);
	cpu = xcalloc(runs, sizeof *cpu);

	/* Warm the caches once. */
	a = take(dir, 0, &ms, NULL);
	printf("entries %zu\n", snapshot_count(a));
	snapshot_free(a);

	for (i = 0; i < runs; i++)
		snapshot_free(take(dir, 1, &t[i], &cpu[i]));
	printf("scan_1thread_ms %.1f\n", median(t, runs));
	printf("scan_1thread_cpu_ms %.1f\n", median(cpu, runs));
	for (i = 0; i < runs; i++)
		snapshot_free(take(dir, 2, &t[i], &cpu[i]));
	printf("scan_2threads_ms %.1f\n", median(t, runs));
	printf("scan_2threads_cpu_ms %.1f\n", median(cpu, runs));

	a = take(dir, 0, &ms, NULL);
	b = take(dir, 0, &ms, NULL);
	for (i = 0; i < runs; i++) {
		memset(&ch, 0, sizeof ch);
		ms = now_ms();
		snapshot_diff(a, b, &ch);
		t[i] = now_ms() - ms;
		if (changes_count(&ch) != 0) {
			fprintf(stderr, "bench-snapshot: unchanged tree "
			    "reported %zu changes\n", changes_count(&ch));
			return 1;
		}
		changes_release(&ch);
	}
	printf("diff_unchanged_ms %.2f\n", median(t, runs));
	snapshot_free(b);

	/* Touch ten files (same size, new content), then diff. */
	for (i = 0; i < 10; i++) {
		int	fd;

		snprintf(path, sizeof path, "%s/d00/e0/f0/file%02d.c", dir, i);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, "int y;\n", 7) != 7) {
			fprintf(stderr, "%s: %s\n", path, strerror(errno));
			return 1;
		}
		close(fd);
	}
	b = take(dir, 0, &ms, NULL);
	printf("scan_after_touch_ms %.1f\n", ms);
	memset(&ch, 0, sizeof ch);
	ms = now_ms();
	snapshot_diff(a, b, &ch);
	printf("diff_10_touched_ms %.2f\n", now_ms() - ms);
	if (ch.modified.n != 10 || changes_count(&ch) != 10) {
		fprintf(stderr, "bench-snapshot: expected 10 modified, got "
		    "%zu changes\n", changes_count(&ch));
		return 1;
	}
	changes_release(&ch);
	snapshot_free(a);
	snapshot_free(b);
	free(t);
	free(cpu);

	if (generated && !keep)
		nftw(dir, rm_one, 64, FTW_DEPTH | FTW_PHYS);
	else if (generated)
		printf("tree %s\n", dir);
	return 0;
}
