# util: allocation, buffers, string vectors, paths, logging, JSON helpers,
# the event loop, the runtime directory, the test hooks (testhook.h).
# Calls nothing of bwgate's.
noinst_LIBRARIES += %D%/libutil.a
%C%_libutil_a_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
%C%_libutil_a_SOURCES = \
	%D%/xalloc.c %D%/xalloc.h \
	%D%/testhook.c %D%/testhook.h \
	%D%/cleanup.h \
	%D%/strv.c %D%/strv.h \
	%D%/shquote.c %D%/shquote.h \
	%D%/buf.c %D%/buf.h \
	%D%/path.c %D%/path.h \
	%D%/pathglob.c %D%/pathglob.h \
	%D%/units.c %D%/units.h \
	%D%/pathwalk.c %D%/pathwalk.h \
	%D%/log.c %D%/log.h \
	%D%/jsonutil.c %D%/jsonutil.h %D%/jsonpos.c \
	%D%/loop.c %D%/loop.h \
	%D%/rundir.c %D%/rundir.h \
	%D%/sha256.c %D%/sha256.h \
	%D%/digestcache.c %D%/digestcache.h \
	%D%/beneath.c %D%/beneath.h \
	%D%/spawn.c %D%/spawn.h \
	%D%/proctree.c %D%/proctree.h \
	%D%/aside.c %D%/aside.h \
	%D%/file.c %D%/file.h \
	%D%/fdpass.c %D%/fdpass.h \
	%D%/libexec.c %D%/libexec.h \
	%D%/display.c %D%/display.h \
	%D%/jsoncheck.c %D%/jsoncheck.h
