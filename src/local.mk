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
	%D%/placeholder.c %D%/placeholder.h \
	%D%/observe-filter.c %D%/observe-filter.h \
	%D%/bpfcache.c %D%/bpfcache.h \
	%D%/seccomp-deny.c %D%/seccomp-deny.h \
	%D%/probe.c %D%/probe.h \
	%D%/runner.c %D%/runner.h \
	%D%/report.c %D%/report.h \
	%D%/loop.c %D%/loop.h \
	%D%/engine.c %D%/engine.h
# module: snapshot (change report)
src_libbwgate_a_SOURCES += %D%/snapshot.c %D%/snapshot.h
# module: monitor (live events)
src_libbwgate_a_SOURCES += %D%/monitor.c %D%/monitor.h \
	%D%/monitor-child.c %D%/monitor-int.h
# module: violation (seccomp user notification)
src_libbwgate_a_SOURCES += %D%/observe.c %D%/observe.h %D%/observe-proto.h
# Runs first inside the sandbox: installs the observer's seccomp filter.
pkglibexec_PROGRAMS += bwgate-helper
bwgate_helper_CFLAGS = $(AM_CFLAGS)
bwgate_helper_SOURCES = %D%/bwgate-helper.c %D%/observe-proto.h
# module: shparse / allowlist
src_libbwgate_a_SOURCES += %D%/shparse.c %D%/shparse.h \
	%D%/shlex.c %D%/shlex.h
src_libbwgate_a_SOURCES += %D%/allowlist.c %D%/allowlist.h \
	%D%/rules.c %D%/rules.h %D%/optparse.c %D%/optparse.h \
	%D%/sha256.c %D%/sha256.h
# module: console core (protocol, queue, audit, loop, server)
src_libbwgate_a_SOURCES += %D%/protocol.c %D%/protocol.h \
	%D%/queue.c %D%/queue.h %D%/audit.c %D%/audit.h \
	%D%/client.c %D%/client.h %D%/console.c %D%/console.h

# Everything that links the core needs these.
CORE_LIBS = src/libbwgate.a $(CJSON_LIBS) $(SECCOMP_LIBS) $(INOTIFYTOOLS_LIBS) -lpthread

bin_PROGRAMS += bwgate
bwgate_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS) $(NCURSES_CFLAGS)
bwgate_LDADD = $(CORE_LIBS) $(NCURSES_LIBS)
bwgate_SOURCES = \
	%D%/bwgate.c %D%/cmd.h \
	%D%/cmd-exec.c \
	%D%/cmd-doctor.c \
	%D%/cmd-check.c \
	%D%/cmd-trust.c
# the console and its clients
bwgate_SOURCES += %D%/cmd-console.c %D%/cmd-run.c %D%/cmd-sh.c \
	%D%/cmd-control.c
# `bwgate-sh` is `bwgate sh` (bwgate.c looks at its own name).
install-exec-hook: install-exec-bwgate-sh
install-exec-bwgate-sh:
	cd $(DESTDIR)$(bindir) && rm -f bwgate-sh$(EXEEXT) && \
	ln -s bwgate$(EXEEXT) bwgate-sh$(EXEEXT)
uninstall-hook: uninstall-bwgate-sh
uninstall-bwgate-sh:
	rm -f $(DESTDIR)$(bindir)/bwgate-sh$(EXEEXT)
.PHONY: install-exec-bwgate-sh uninstall-bwgate-sh
