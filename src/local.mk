# The core library (never includes curses) and the bwgate front end.
noinst_LIBRARIES += src/libbwgate.a
src_libbwgate_a_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS) $(SECCOMP_CFLAGS)
src_libbwgate_a_SOURCES = \
	%D%/xalloc.c %D%/xalloc.h \
	%D%/cleanup.h \
	%D%/strv.c %D%/strv.h \
	%D%/buf.c %D%/buf.h \
	%D%/path.c %D%/path.h \
	%D%/log.c %D%/log.h \
	%D%/jsonutil.c %D%/jsonutil.h \
	%D%/config.c %D%/config.h \
	%D%/sandbox.c %D%/sandbox.h \
	%D%/seccomp-deny.c %D%/seccomp-deny.h \
	%D%/probe.c %D%/probe.h \
	%D%/runner.c %D%/runner.h \
	%D%/report.c %D%/report.h \
	%D%/loop.c %D%/loop.h \
	%D%/engine.c %D%/engine.h
# module: snapshot (change report)
src_libbwgate_a_SOURCES += %D%/snapshot.c %D%/snapshot.h
# module: monitor (live events)
# module: violation (seccomp user notification)
src_libbwgate_a_SOURCES += %D%/observe.c %D%/observe.h %D%/observe-proto.h
# Runs first inside the sandbox: installs the observer's seccomp filter.
pkglibexec_PROGRAMS += bwgate-helper
bwgate_helper_CFLAGS = $(AM_CFLAGS) $(SECCOMP_CFLAGS)
bwgate_helper_LDADD = $(SECCOMP_LIBS)
bwgate_helper_SOURCES = %D%/bwgate-helper.c %D%/observe-proto.h
# module: shparse / allowlist
# module: console core (protocol, queue, audit, loop, server)

# Everything that links the core needs these.
CORE_LIBS = src/libbwgate.a $(CJSON_LIBS) $(SECCOMP_LIBS) $(INOTIFYTOOLS_LIBS) -lpthread

bin_PROGRAMS += bwgate
bwgate_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS) $(NCURSES_CFLAGS)
bwgate_LDADD = $(CORE_LIBS) $(NCURSES_LIBS)
bwgate_SOURCES = \
	%D%/bwgate.c %D%/cmd.h \
	%D%/cmd-exec.c \
	%D%/cmd-doctor.c
