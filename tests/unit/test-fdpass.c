/* test-fdpass: descriptors over a unix socket (fdpass.c): what arrives
   is the same open file, close-on-exec; descriptors beyond the slots
   asked for are closed, not leaked; empty slots are -1. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fdpass.h"

/* Two descriptors with a payload: the same files, close-on-exec. */
static void
test_two(void **state)
{
	int		sv[2], p[2], got[2], fds[2];
	struct stat	a, b;
	char		buf[8] = "";

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	assert_int_equal(pipe(p), 0);
	fds[0] = p[0];
	fds[1] = p[1];
	assert_int_equal(fdpass_send(sv[0], "hi", 3, fds, 2), 0);
	assert_int_equal(fdpass_recv(sv[1], buf, sizeof buf, got, 2, 0), 3);
	assert_string_equal(buf, "hi");
	for (int i = 0; i < 2; i++) {
		assert_true(got[i] >= 0 && got[i] != fds[i]);
		assert_int_equal(fstat(fds[i], &a), 0);
		assert_int_equal(fstat(got[i], &b), 0);
		assert_true(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
		assert_true(fcntl(got[i], F_GETFD) & FD_CLOEXEC);
		close(got[i]);
	}
	close(p[0]);
	close(p[1]);
	close(sv[0]);
	close(sv[1]);
}

/* More descriptors than slots: the rest closed; none: slots -1; the
   peer gone: 0. */
static void
test_extra_none_gone(void **state)
{
	int	sv[2], p[2], fds[3], got[2], probe;
	char	c;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	assert_int_equal(pipe(p), 0);
	fds[0] = fds[1] = fds[2] = p[1];
	assert_int_equal(fdpass_send(sv[0], "x", 1, fds, 3), 0);
	assert_int_equal(fdpass_recv(sv[1], &c, 1, got, 1, 0), 1);
	assert_true(got[0] >= 0);
	/* The two left over were closed: the next descriptor made takes
	   the lowest free number, which is not above the one kept + 1. */
	probe = dup(0);
	assert_true(probe <= got[0] + 1);
	close(probe);
	close(got[0]);
	/* Every write end closed: the reader sees the end (a copy leaked
	   would leave it open: EAGAIN, not a hang). */
	close(p[1]);
	assert_int_equal(fcntl(p[0], F_SETFL, O_NONBLOCK), 0);
	assert_int_equal(read(p[0], &c, 1), 0);
	close(p[0]);

	assert_int_equal(fdpass_send(sv[0], "y", 1, NULL, 0), 0);
	got[0] = got[1] = 7;
	assert_int_equal(fdpass_recv(sv[1], &c, 1, got, 2, 0), 1);
	assert_int_equal(got[0], -1);
	assert_int_equal(got[1], -1);
	assert_int_equal(fdpass_recv(sv[1], &c, 1, got, 2, MSG_DONTWAIT),
	    -1);
	assert_int_equal(errno, EAGAIN);
	close(sv[0]);
	assert_int_equal(fdpass_recv(sv[1], &c, 1, got, 2, 0), 0);
	close(sv[1]);
	errno = 0;
	assert_int_equal(fdpass_send(sv[1], "z", 1, fds, FDPASS_MAX + 1), -1);
	assert_int_equal(errno, EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two),
		cmocka_unit_test(test_extra_none_gone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
