# console: the protocol codec, the request queue, the audit log, the
# server and its clients' connection.
noinst_LIBRARIES += %D%/libconsole.a
%C%_libconsole_a_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
%C%_libconsole_a_SOURCES = \
	%D%/protocol.c %D%/protocol-decode.c %D%/protocol-reply.c %D%/protocol.h \
	%D%/queue.c %D%/queue.h \
	%D%/audit.c %D%/audit.h \
	%D%/client.c %D%/client.h \
	%D%/hostask.c \
	%D%/filereq.c %D%/filereq.h \
	%D%/stake.c %D%/stake.h \
	%D%/history.c %D%/spool.c %D%/history.h \
	%D%/console.c %D%/console-emit.c %D%/console.h %D%/console-int.h \
	%D%/console-server.c %D%/console-listen.c %D%/console-request.c \
	%D%/request-env.c \
	%D%/console-job.c %D%/console-service.c %D%/console-outside.c %D%/console-warm.c %D%/console-undo.c \
	%D%/console-lifecycle.c %D%/console-link.c \
	%D%/remote.c %D%/remote-chan.c %D%/remote.h
