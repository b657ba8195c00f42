/*
 * buf: a growable byte buffer, always NUL-terminated (git's strbuf idea).
 *
 *	struct buf b = BUF_INIT;
 *	buf_printf(&b, "%d files", n);
 *	char *s = buf_detach(&b);	caller frees s; b is empty again
 *
 * b.len never counts the terminating NUL; b.data is NULL until first use.
 */
#ifndef BWGATE_BUF_H
#define BWGATE_BUF_H

#include <stddef.h>

struct buf {
	char	*data;
	size_t	 len;
	size_t	 cap;
};
#define BUF_INIT { NULL, 0, 0 }

void	 buf_grow(struct buf *, size_t);
void	 buf_add(struct buf *, const void *, size_t);
void	 buf_putc(struct buf *, char);
void	 buf_puts(struct buf *, const char *);
void	 buf_printf(struct buf *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/* Drop the first n bytes (for consumed input). */
void	 buf_consume(struct buf *, size_t);
/* Send what the non-blocking stream socket fd takes of b now (consumed
   as sent; EINTR retried, no SIGPIPE): 0, or -1 when the peer is gone or
   the socket broke. */
int	 buf_send(int fd, struct buf *b);
void	 buf_reset(struct buf *);
char	*buf_detach(struct buf *);
void	 buf_release(struct buf *);
/* Write all n bytes to fd (retrying short writes); -1 on error. */
int	 write_full(int fd, const void *, size_t n);
/* Read everything from fd (up to max bytes; 0 = no limit); -1 on error. */
int	 buf_read_fd(struct buf *, int fd, size_t max);

#endif
