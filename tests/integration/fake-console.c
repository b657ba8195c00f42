/*
 * fake-console: a listener that stands where a console's socket should
 * be, as another user would plant one, and records what reaches it
 * (tests/integration/console-trust.sh).
 *
 *	fake-console PATH LOG
 *		bind a socket at PATH (mode 0777, so any uid may connect)
 *		and accept connections until killed or for 60 s; after each
 *		one ends, append "connection: N bytes: FIRST-LINE" to LOG.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct sockaddr_un	 sun;
	char			 buf[4096], first[128];
	ssize_t			 n;
	size_t			 total, flen;
	FILE			*log;
	int			 fd, c, line_done;

	if (argc != 3) {
		fprintf(stderr, "usage: fake-console PATH LOG\n");
		return 2;
	}
	/* Bound under a temporary name and renamed into place once it
	   listens: a test that sees the socket can connect at once. */
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	if (strlen(argv[1]) + 4 >= sizeof sun.sun_path)
		return 2;
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s.new", argv[1]);
	(void)unlink(sun.sun_path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 ||
	    bind(fd, (struct sockaddr *)&sun, sizeof sun) != 0 ||
	    chmod(sun.sun_path, 0777) != 0 || listen(fd, 16) != 0 ||
	    rename(sun.sun_path, argv[1]) != 0) {
		perror("fake-console");
		return 1;
	}
	alarm(60);
	for (;;) {
		if ((c = accept(fd, NULL, NULL)) < 0)
			continue;
		total = 0;
		flen = 0;
		line_done = 0;
		while ((n = read(c, buf, sizeof buf)) > 0) {
			for (ssize_t i = 0; i < n && !line_done &&
			    flen < sizeof first - 1; i++) {
				if (buf[i] == '\n')
					line_done = 1;
				else
					first[flen++] = buf[i];
			}
			total += (size_t)n;
		}
		first[flen] = '\0';
		close(c);
		if ((log = fopen(argv[2], "a")) != NULL) {
			fprintf(log, "connection: %zu bytes: %s\n", total,
			    first);
			fclose(log);
		}
	}
}
