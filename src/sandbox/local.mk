# sandbox: a policy and the host's probe -> the exact bwrap argv, with the
# seccomp programs and the in-sandbox helper it needs, and the runner that
# starts bwrap with exactly the descriptors its argv names.
noinst_LIBRARIES += %D%/libsandbox.a
%C%_libsandbox_a_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS) $(SECCOMP_CFLAGS)
%C%_libsandbox_a_SOURCES = \
	%D%/sandbox.c %D%/sandbox.h %D%/sandbox-int.h \
	%D%/sandbox-project.c %D%/sandbox-env.c %D%/sandbox-proc.c \
	%D%/sandbox-user.c %D%/sandbox-reach.c %D%/sandbox-verify.c \
	%D%/sandbox-git.c %D%/sandbox-agents.c %D%/sandbox-pod.c \
	%D%/pod.c %D%/pod.h %D%/gitscan.c %D%/gitscan-cache.c %D%/gitscan.h \
	%D%/gitwatch-client.c %D%/gitwatch-daemon.c %D%/gitwatch.h \
	%D%/probe.c %D%/probe.h \
	%D%/runner.c %D%/runner.h \
	%D%/netbackend.c %D%/netbackend.h \
	%D%/domains.c %D%/domains.h \
	%D%/seccomp-deny.c %D%/seccomp-deny.h \
	%D%/observe-filter.c %D%/observe-filter.h %D%/observe-proto.h \
	%D%/bpfcache.c %D%/bpfcache.h \
	%D%/policy-json.c %D%/policy-json.h \
	%D%/protect.c %D%/protect-git.c %D%/protect.h
# Runs first inside the sandbox: installs the observer's seccomp filter.
pkglibexec_PROGRAMS += bwgate-helper
bwgate_helper_CFLAGS = $(AM_CFLAGS)
bwgate_helper_LDFLAGS = $(HELPER_LDFLAGS)
bwgate_helper_SOURCES = %D%/bwgate-helper.c %D%/observe-proto.h \
	%D%/helper-write.c %D%/helper-write.h %D%/write-proto.h \
	%D%/helper-act.c %D%/helper-act.h
bwgate_helper_LDADD = src/util/libutil.a $(HELPER_CRYPTO_LIBS)
# Opens the proxy's socket inside a sandbox's network namespace.
pkglibexec_PROGRAMS += bwgate-netlisten
bwgate_netlisten_CFLAGS = $(AM_CFLAGS)
bwgate_netlisten_SOURCES = %D%/netlisten.c
bwgate_netlisten_LDADD = src/util/libutil.a
# Holds a project's shared world (pod.h): namespaces and /tmp.
pkglibexec_PROGRAMS += bwgate-pod
bwgate_pod_CFLAGS = $(AM_CFLAGS)
bwgate_pod_SOURCES = %D%/pod-main.c
bwgate_pod_LDADD = src/util/libutil.a
# The project watcher (gitwatch.h), exec'd by the first writable run.
pkglibexec_PROGRAMS += bwgate-gitwatch
bwgate_gitwatch_SOURCES = %D%/gitwatch-main.c
bwgate_gitwatch_LDADD = $(CORE_LIBS)
