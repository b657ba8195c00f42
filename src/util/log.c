/* log: optional debug log to a file, one line per call with the caller. */
#include "autoconf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "display.h"
#include "log.h"
#include "xalloc.h"

static FILE	*log_file;

int
log_open(const char *path)
{
	log_close();
	log_file = fopen(path, "ae");
	if (log_file == NULL)
		return -1;
	setvbuf(log_file, NULL, _IOLBF, 0);
	return 0;
}

void
log_close(void)
{
	if (log_file != NULL)
		fclose(log_file);
	log_file = NULL;
}

void
log_write(const char *func, const char *fmt, ...)
{
	struct timespec	ts;
	va_list		ap;
	char		*line;

	if (log_file == NULL)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	va_start(ap, fmt);
	line = xvasprintf(fmt, ap);
	va_end(ap);
	flockfile(log_file);	/* a line whole, whichever thread logs */
	fprintf(log_file, "%lld.%06ld %d %s: ", (long long)ts.tv_sec,
	    ts.tv_nsec / 1000, (int)getpid(), func);
	/* One line per call, whatever the message quotes (display.h). */
	display_fputs(line, log_file);
	fputc('\n', log_file);
	funlockfile(log_file);
	free(line);
}
