/*
 * term: the terminal around curses. Stray output on descriptors 1 and 2
 * is captured while curses draws (and shown in the status line), and a
 * crash signal gives the terminal back before the process dies.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "ui.h"
#include "xalloc.h"

#define UI_MAX_CAPTURE	4096	/* bytes of stray output kept */

/*
 * What the crash handler needs, saved beforehand: it may run inside
 * malloc or stdio, so it calls neither (nor curses); it writes a fixed
 * reset sequence, puts back the terminal modes saved at start and the
 * real stdout/stderr, and dies of the same signal.
 */
static volatile sig_atomic_t	 crash_armed;
static int			 crash_tty = -1;
static int			 crash_out = -1;
static int			 crash_err = -1;
static struct termios		 crash_termios;

/* Stray output on descriptors 1 and 2 while curses is on. */
static void
ui_on_capture(int fd, short revents, void *arg)
{
	struct ui	*ui = arg;
	char		 buf[4096], *nl;
	ssize_t		 n;

	n = read(fd, buf, sizeof buf);
	if (n <= 0) {
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			loop_remove(ui->loop, fd);
		return;
	}
	buf_add(&ui->captured, buf, (size_t)n);
	while (ui->captured.len > 0 &&
	    (nl = memchr(ui->captured.data, '\n', ui->captured.len)) != NULL) {
		*nl = '\0';
		if (*ui->captured.data != '\0')
			ui_message(ui, true, "%s", ui->captured.data);
		buf_consume(&ui->captured, (size_t)(nl - ui->captured.data) +
		    1);
	}
	if (ui->captured.len > UI_MAX_CAPTURE)
		buf_consume(&ui->captured, ui->captured.len - UI_MAX_CAPTURE);
}

/* Point descriptors 1 and 2 at a pipe the UI reads. */
void
ui_capture_start(struct ui *ui)
{
	int	p[2];

	ui->saved_out = ui->saved_err = ui->capture = -1;
	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0)
		return;
	ui->saved_out = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	ui->saved_err = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	crash_out = ui->saved_out;
	crash_err = ui->saved_err;
	fflush(stdout);
	fflush(stderr);
	dup2(p[1], STDOUT_FILENO);
	dup2(p[1], STDERR_FILENO);
	close(p[1]);
	ui->capture = p[0];
	loop_add(ui->loop, ui->capture, POLLIN, ui_on_capture, ui);
}

/* Give descriptors 1 and 2 back; print what was left unread. */
void
ui_capture_stop(struct ui *ui)
{
	char	buf[4096];
	ssize_t	n;

	fflush(stdout);
	fflush(stderr);
	crash_out = crash_err = -1;
	if (ui->saved_out != -1) {
		dup2(ui->saved_out, STDOUT_FILENO);
		close(ui->saved_out);
		ui->saved_out = -1;
	}
	if (ui->saved_err != -1) {
		dup2(ui->saved_err, STDERR_FILENO);
		close(ui->saved_err);
		ui->saved_err = -1;
	}
	if (ui->capture == -1)
		return;
	while ((n = read(ui->capture, buf, sizeof buf)) > 0)
		buf_add(&ui->captured, buf, (size_t)n);
	if (ui->captured.len > 0)
		(void)!write(STDERR_FILENO, ui->captured.data,
		    ui->captured.len);
	buf_release(&ui->captured);
	if (ui->loop != NULL)
		loop_remove(ui->loop, ui->capture);
	close(ui->capture);
	ui->capture = -1;
}

/* A crash: restore the terminal (async-signal-safe calls only), then
   die of the same signal. */
static void
ui_crash(int signo)
{
	/* Leave the alternate screen, show the cursor, plain attributes. */
	static const char	 reset[] = "\033[0m\033[?25h\033[?1049l\r\n";
	struct sigaction	 sa;

	if (crash_armed) {
		crash_armed = 0;
		(void)!write(crash_tty, reset, sizeof reset - 1);
		(void)tcsetattr(crash_tty, TCSANOW, &crash_termios);
		if (crash_out != -1)
			(void)dup2(crash_out, STDOUT_FILENO);
		if (crash_err != -1)
			(void)dup2(crash_err, STDERR_FILENO);
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	(void)sigaction(signo, &sa, NULL);
	(void)raise(signo);
}

/* Catch the crash signals with ui_crash. */
void
ui_crash_arm(int fd)
{
	static const int	 sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL,
				    SIGABRT };
	struct sigaction	 sa;

	if (tcgetattr(fd, &crash_termios) != 0)
		return;		/* nothing to restore */
	crash_tty = fd;
	crash_armed = 1;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = ui_crash;
	sa.sa_flags = SA_NODEFER;	/* the re-raise is delivered at once */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		(void)sigaction(sigs[i], &sa, NULL);
}

/* A normal exit restores the terminal itself: the crash path stands down. */
void
ui_crash_disarm(void)
{
	crash_armed = 0;
}
