/*
 * console-peer: a raw client of the console sockets for the integration
 * tests (tests/integration/console-*.sh).
 *
 *	console-peer [-t SECS] [-n N] [-w TYPE] [-x] SOCKET < lines
 *		send stdin as is (even half a line), print every message
 *		received, one per line; stop after N final messages (result,
 *		denied decision, withdrawn, error), when a TYPE message came
 *		(-w), at end of stream, or right after sending (-x: vanish).
 *		Exit 0, or 2 on timeout.
 *	console-peer -S PATH
 *		bind a socket at PATH and exit: a stale socket.
 *	console-peer -L CLIENTS -m MSGS [-t SECS] SOCKET COMMAND
 *		load: CLIENTS connections at once, each submitting MSGS
 *		copies of COMMAND with its own tags; checks that every
 *		request got one queued and one result, matched by tag and
 *		id, ids unique; prints "ok N" or what went wrong.
 */
#include "autoconf.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

static int
peer_connect(const char *path)
{
	struct sockaddr_un	sun;
	int			fd;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof sun) != 0) {
		fprintf(stderr, "console-peer: connect '%s': %s\n", path,
		    strerror(errno));
		exit(1);
	}
	return fd;
}

static int
send_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static double
now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Is this message the last one about its request? */
static int
is_final(const cJSON *j)
{
	const char *t = cJSON_GetStringValue(cJSON_GetObjectItem(j, "type"));
	const char *d = cJSON_GetStringValue(cJSON_GetObjectItem(j,
	    "decision"));

	if (t == NULL)
		return 0;
	if (strcmp(t, "result") == 0 || strcmp(t, "withdrawn") == 0 ||
	    strcmp(t, "error") == 0)
		return 1;
	return strcmp(t, "decided") == 0 && d != NULL &&
	    strcmp(d, "denied") == 0;
}

/*
 * Read messages, calling fn for each; stop when fn returns nonzero, at
 * end of stream (1) or at the deadline (2).
 */
static int
read_messages(int fd, double deadline, int (*fn)(cJSON *, const char *,
    void *), void *arg)
{
	static char	*buf;
	static size_t	 cap;
	size_t		 len = 0;
	char		*nl;
	int		 rc;

	for (;;) {
		while (len > 0 && (nl = memchr(buf, '\n', len)) != NULL) {
			cJSON	*j;

			*nl = '\0';
			j = cJSON_Parse(buf);
			rc = fn(j, buf, arg);
			cJSON_Delete(j);
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len);
			if (rc != 0)
				return 0;
		}
		struct pollfd pfd = { fd, POLLIN, 0 };
		double left = deadline - now();

		if (left <= 0)
			return 2;
		if (poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		if (len + 65536 > cap) {
			cap = (len + 65536) * 2;
			buf = realloc(buf, cap);
		}
		ssize_t n = read(fd, buf + len, 65536);
		if (n <= 0)
			return 1;
		len += (size_t)n;
	}
}

struct simple {
	int		 finals;
	int		 want;
	const char	*wait_type;
};

static int
simple_msg(cJSON *j, const char *line, void *arg)
{
	struct simple	*s = arg;
	const char	*t;

	printf("%s\n", line);
	fflush(stdout);
	if (j == NULL)
		return 0;
	t = cJSON_GetStringValue(cJSON_GetObjectItem(j, "type"));
	if (s->wait_type != NULL && t != NULL &&
	    strcmp(t, s->wait_type) == 0)
		return 1;
	s->finals += is_final(j);
	return s->want > 0 && s->finals >= s->want;
}

/* One client of the load test. */
struct load {
	int	 client;
	int	 msgs;
	int	*queued_id;	/* per tag index */
	int	*result_id;
	int	 results;
	int	 bad;
};

static int
load_msg(cJSON *j, const char *line, void *arg)
{
	struct load	*l = arg;
	const char	*t, *tag;
	int		 c, k, id;

	if (j == NULL) {
		fprintf(stderr, "client %d: bad line %.80s\n", l->client, line);
		l->bad++;
		return 0;
	}
	t = cJSON_GetStringValue(cJSON_GetObjectItem(j, "type"));
	if (t == NULL || strcmp(t, "hello") == 0)
		return 0;
	tag = cJSON_GetStringValue(cJSON_GetObjectItem(j, "tag"));
	id = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(j, "id"));
	if (tag == NULL || sscanf(tag, "c%d-%d", &c, &k) != 2 ||
	    c != l->client || k < 0 || k >= l->msgs) {
		fprintf(stderr, "client %d: message with a foreign tag: %.200s\n",
		    l->client, line);
		l->bad++;
		return 0;
	}
	if (strcmp(t, "queued") == 0) {
		if (l->queued_id[k] != 0)
			l->bad++;
		l->queued_id[k] = id;
	} else if (is_final(j)) {
		if (strcmp(t, "result") != 0 || l->result_id[k] != 0 ||
		    id != l->queued_id[k] || cJSON_GetNumberValue(
		    cJSON_GetObjectItem(j, "exit_status")) != 0) {
			fprintf(stderr, "client %d: bad final for %s: %.300s\n",
			    l->client, tag, line);
			l->bad++;
		}
		l->result_id[k] = id;
		l->results++;
	}
	return l->results == l->msgs;
}

static int
load_client(const char *path, int client, int msgs, const char *command,
    double deadline, int idfd)
{
	struct load	 l = { client, msgs, NULL, NULL, 0, 0 };
	int		 fd = peer_connect(path), rc;

	l.queued_id = calloc((size_t)msgs, sizeof(int));
	l.result_id = calloc((size_t)msgs, sizeof(int));
	for (int k = 0; k < msgs; k++) {
		cJSON	*m = cJSON_CreateObject();
		char	*s, tag[32];

		snprintf(tag, sizeof tag, "c%d-%d", client, k);
		cJSON_AddStringToObject(m, "type", "submit");
		cJSON_AddStringToObject(m, "tag", tag);
		cJSON_AddStringToObject(m, "command", command);
		s = cJSON_PrintUnformatted(m);
		cJSON_Delete(m);
		if (send_all(fd, s, strlen(s)) != 0 || send_all(fd, "\n", 1)) {
			fprintf(stderr, "client %d: send failed\n", client);
			return 1;
		}
		free(s);
	}
	rc = read_messages(fd, deadline, load_msg, &l);
	if (rc != 0 || l.results != msgs) {
		fprintf(stderr, "client %d: %d of %d results (%s)\n", client,
		    l.results, msgs, rc == 2 ? "timeout" : "end of stream");
		return 1;
	}
	/* Report the ids so the parent can check they are unique. */
	if (write(idfd, l.result_id, sizeof(int) * (size_t)msgs) < 0)
		return 1;
	return l.bad != 0;
}

static int
load(const char *path, int clients, int msgs, const char *command,
    double secs)
{
	double	 deadline = now() + secs;
	int	 fail = 0, status, p[2];
	int	*ids = calloc((size_t)clients * (size_t)msgs, sizeof(int));
	size_t	 got = 0;
	char	*seen;
	int	 maxid = 0;

	if (pipe(p) != 0)
		return 1;
	for (int i = 0; i < clients; i++) {
		if (fork() == 0) {
			close(p[0]);
			_exit(load_client(path, i, msgs, command, deadline,
			    p[1]));
		}
	}
	close(p[1]);
	for (;;) {
		ssize_t n = read(p[0], (char *)ids + got,
		    sizeof(int) * (size_t)clients * (size_t)msgs - got);

		if (n <= 0)
			break;
		got += (size_t)n;
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			fail++;
	for (size_t i = 0; i < got / sizeof(int); i++)
		if (ids[i] > maxid)
			maxid = ids[i];
	seen = calloc((size_t)maxid + 1, 1);
	for (size_t i = 0; i < got / sizeof(int); i++) {
		if (ids[i] <= 0 || seen[ids[i]]) {
			fprintf(stderr, "id %d missing or seen twice\n",
			    ids[i]);
			fail++;
		} else
			seen[ids[i]] = 1;
	}
	free(seen);
	free(ids);
	if (fail != 0 || got != sizeof(int) * (size_t)clients * (size_t)msgs) {
		printf("failed: %d clients failed, %zu results\n", fail,
		    got / sizeof(int));
		return 1;
	}
	printf("ok %zu\n", got / sizeof(int));
	return 0;
}

int
main(int argc, char **argv)
{
	struct simple	 s = { 0, 0, NULL };
	double		 secs = 30;
	int		 c, vanish = 0, clients = 0, msgs = 1, fd, rc;
	char		 buf[65536];
	ssize_t		 n;

	while ((c = getopt(argc, argv, "t:n:w:xL:m:S:")) != -1) {
		switch (c) {
		case 'S': {
			struct sockaddr_un sun = { .sun_family = AF_UNIX };

			snprintf(sun.sun_path, sizeof sun.sun_path, "%s",
			    optarg);
			fd = socket(AF_UNIX, SOCK_STREAM, 0);
			return bind(fd, (struct sockaddr *)&sun,
			    sizeof sun) != 0;
		}
		case 't': secs = atof(optarg); break;
		case 'n': s.want = atoi(optarg); break;
		case 'w': s.wait_type = optarg; break;
		case 'x': vanish = 1; break;
		case 'L': clients = atoi(optarg); break;
		case 'm': msgs = atoi(optarg); break;
		default: return 64;
		}
	}
	if (clients > 0) {
		if (optind + 2 != argc)
			return 64;
		return load(argv[optind], clients, msgs, argv[optind + 1],
		    secs);
	}
	if (optind + 1 != argc)
		return 64;
	fd = peer_connect(argv[optind]);
	while ((n = read(0, buf, sizeof buf)) > 0)
		if (send_all(fd, buf, (size_t)n) != 0)
			break;
	if (vanish)
		return 0;
	rc = read_messages(fd, now() + secs, simple_msg, &s);
	return rc == 2 ? 2 : 0;
}
