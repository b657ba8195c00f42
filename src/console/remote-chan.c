/* remote-chan: one end of a link between a console and an executor (a
   connected Unix socket on a loop, JSON lines both ways; remote.h). */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "remote.h"
#include "xalloc.h"

#define RCHAN_MAX_OUT	(64 * 1024 * 1024)	/* unsent bytes */

static void	rchan_io(int, short, void *);

/* Send what the socket takes now. */
static void
rchan_write(struct rchan *ch)
{
	if (!ch->dead && buf_send(ch->fd, &ch->out) != 0) {
		rchan_close(ch, "the link was cut");
		return;
	}
	if (!ch->dead)
		loop_set_events(ch->loop, ch->fd, POLLIN |
		    (ch->out.len > 0 ? POLLOUT : 0));
}

/* Readable or writable. */
static void
rchan_io(int fd, short revents, void *arg)
{
	struct rchan	*ch = arg;
	char		 b[65536], *line;
	size_t		 len;
	ssize_t		 n;
	enum proto_line	 rc;
	cJSON		*j;

	if (revents & POLLOUT)
		rchan_write(ch);
	if (ch->dead || !(revents & (POLLIN | POLLHUP | POLLERR)))
		return;
	n = recv(fd, b, sizeof b, MSG_DONTWAIT);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		rchan_close(ch, "the link was closed");
		return;
	}
	proto_reader_feed(&ch->rd, b, (size_t)n);
	while (!ch->dead && (rc = proto_reader_next(&ch->rd, &line, &len)) !=
	    PROTO_LINE_NONE) {
		/* A link speaks only whole, valid messages: anything else
		   ends it (fail closed). */
		if (rc != PROTO_LINE_OK) {
			rchan_close(ch, "the link sent an overlong line");
			return;
		}
		if (len == 0)
			continue;
		j = cJSON_ParseWithLength(line, len);
		if (j == NULL || !cJSON_IsObject(j) ||
		    !cJSON_IsString(cJSON_GetObjectItem(j, "type"))) {
			cJSON_Delete(j);
			rchan_close(ch, "the link sent a line that is not a "
			    "message");
			return;
		}
		ch->on_msg(ch, j, ch->arg);
		cJSON_Delete(j);
	}
}

void
rchan_open(struct rchan *ch, struct loop *l, int fd,
    void (*on_msg)(struct rchan *, const cJSON *, void *),
    void (*on_close)(struct rchan *, const char *, void *), void *arg)
{
	memset(ch, 0, sizeof *ch);
	ch->loop = l;
	ch->fd = fd;
	ch->rd = (struct proto_reader)PROTO_READER_INIT;
	/* A request carries an agent's whole submit (up to a protocol
	   line) and its report: more than one line of the agent's. */
	ch->rd.max = RCHAN_MAX_OUT;
	ch->out = (struct buf)BUF_INIT;
	ch->on_msg = on_msg;
	ch->on_close = on_close;
	ch->arg = arg;
	loop_add(l, fd, POLLIN, rchan_io, ch);
}

/* Queue one message (frees j). */
void
rchan_send(struct rchan *ch, cJSON *j)
{
	char	*line;

	if (ch->dead) {
		cJSON_Delete(j);
		return;
	}
	line = proto_encode(j);
	buf_puts(&ch->out, line);
	free(line);
	if (ch->out.len > RCHAN_MAX_OUT) {
		rchan_close(ch, "the other side does not read the link");
		return;
	}
	rchan_write(ch);
}

/* Close the socket; on_close runs once (it may free ch). */
void
rchan_close(struct rchan *ch, const char *why)
{
	if (ch->dead)
		return;
	ch->dead = true;
	loop_remove(ch->loop, ch->fd);
	close(ch->fd);
	ch->fd = -1;
	proto_reader_release(&ch->rd);
	buf_release(&ch->out);
	if (ch->on_close != NULL)
		ch->on_close(ch, why, ch->arg);
}
