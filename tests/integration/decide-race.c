/*
 * decide-race: try to win the race between the observer reading a path
 * and the kernel using it (issue 36). The path buffer is flipped between
 * a harmless name and a protected one while the calls are made:
 *
 *	decide-race thread OP N		another thread of this process flips
 *	decide-race shared OP N		another process flips it through a
 *					MAP_SHARED mapping
 *	decide-race vm OP N		a clone(CLONE_VM) process flips it
 *
 * OP: create (open O_CREAT), mkdir, symlink, rename (onto the name),
 * link (onto the name). The protected name is sub/.envrc; the harmless
 * one sub/plain.txt (same length). OP openat2: the path stays sub/.envrc
 * and the flags in the struct open_how are flipped between O_RDONLY and
 * O_CREAT | O_WRONLY (they are in memory, not in a register). Prints how many calls succeeded; the
 * test then looks at the host's project.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Built with the sanitizers in their pass, it runs in a sandbox where
   LeakSanitizer cannot trace it (no ptrace) and would end it before it
   reports: no leak check here. */
const char	*__asan_default_options(void);
const char *
__asan_default_options(void)
{
	return "detect_leaks=0";
}

static const char	good[] = "sub/plain.txt";
static const char	bad[] = "sub/.envrc\0\0\0";
static volatile int	stop;
static volatile long	flips;
static char		*buf;
static int		 flip_how;	/* flip open_how.flags, not the path */

/* Where the open_how lives in the shared page. */
#define HOW(b)	((struct open_how *)(void *)((b) + 64))

/* Each name stays a while: both the observer and the kernel see both. */
static void
flip_once(void)
{
	if (flip_how) {
		HOW(buf)->flags = O_CREAT | O_WRONLY;
		__asm__ volatile("" ::: "memory");
		for (volatile int i = 0; i < 2000; i++)
			;
		HOW(buf)->flags = O_RDONLY;
		__asm__ volatile("" ::: "memory");
		for (volatile int i = 0; i < 2000; i++)
			;
		flips++;
		return;
	}
	/* The barriers keep the compiler from dropping a store. */
	memcpy(buf, bad, sizeof good);
	__asm__ volatile("" ::: "memory");
	for (volatile int i = 0; i < 2000; i++)
		;
	memcpy(buf, good, sizeof good);
	__asm__ volatile("" ::: "memory");
	for (volatile int i = 0; i < 2000; i++)
		;
	flips++;
}

static void *
flipper(void *arg)
{
	(void)arg;
	while (!stop)
		flip_once();
	return NULL;
}

static int
flip_vm(void *arg)
{
	(void)arg;
	for (;;)
		flip_once();
	return 0;
}

/* One attempt; 1 when the call succeeded. */
static int
attempt(const char *op)
{
	int	fd;

	if (strcmp(op, "create") == 0) {
		if ((fd = open(buf, O_CREAT | O_WRONLY, 0644)) < 0)
			return 0;
		close(fd);
		unlink(good);
		return 1;
	}
	if (strcmp(op, "openat2") == 0) {
		fd = (int)syscall(SYS_openat2, AT_FDCWD, buf, HOW(buf),
		    sizeof(struct open_how));
		if (fd < 0)
			return 0;
		close(fd);
		return 1;
	}
	if (strcmp(op, "mkdir") == 0) {
		if (mkdir(buf, 0755) != 0)
			return 0;
		rmdir(good);
		return 1;
	}
	if (strcmp(op, "symlink") == 0) {
		if (symlink("x", buf) != 0)
			return 0;
		unlink(good);
		return 1;
	}
	if (strcmp(op, "rename") == 0) {
		if ((fd = open("src.txt", O_CREAT | O_WRONLY, 0644)) >= 0)
			close(fd);
		if (rename("src.txt", buf) != 0)
			return 0;
		unlink(good);
		return 1;
	}
	if (strcmp(op, "link") == 0) {
		if (link("src.txt", buf) != 0)
			return 0;
		unlink(good);
		return 1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	pthread_t	 t;
	pid_t		 pid = -1;
	long		 n, ok = 0;
	char		*stack;
	int		 fd;

	if (argc != 4) {
		fprintf(stderr, "usage: decide-race thread|shared|vm OP N\n");
		return 2;
	}
	n = atol(argv[3]);
	mkdir("sub", 0755);
	if ((fd = open("src.txt", O_CREAT | O_WRONLY, 0644)) >= 0)
		close(fd);
	buf = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED |
	    MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return 2;
	memcpy(buf, good, sizeof good);
	if (strcmp(argv[2], "openat2") == 0) {
		flip_how = 1;
		memcpy(buf, bad, sizeof good);
		HOW(buf)->mode = 0644;
	}
	if (strcmp(argv[1], "thread") == 0) {
		if (pthread_create(&t, NULL, flipper, NULL) != 0)
			return 2;
	} else if (strcmp(argv[1], "shared") == 0) {
		if ((pid = fork()) == 0) {
			flipper(NULL);
			_exit(0);
		}
	} else {
		stack = malloc(65536);
		pid = clone(flip_vm, stack + 65536, CLONE_VM | SIGCHLD, NULL);
	}
	if (strcmp(argv[1], "thread") != 0 && pid < 0)
		return 2;
	for (long i = 0; i < n; i++)
		ok += attempt(argv[2]);
	stop = 1;
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	} else
		pthread_join(t, NULL);
	printf("%s %s: %ld of %ld succeeded (%ld flips)\n", argv[1], argv[2],
	    ok, n, flips);
	return 0;
}
