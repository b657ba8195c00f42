# policy: settings, the allowlist (rules, option grammar, trust) and the
# profiles that say which sandbox a command gets.
noinst_LIBRARIES += %D%/libpolicy.a
%C%_libpolicy_a_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
%C%_libpolicy_a_SOURCES = \
	%D%/config.c %D%/config.h \
	%D%/agentcfg.c %D%/agentcfg.h \
	%D%/guard.c %D%/guard.h \
	%D%/allowlist.c %D%/allowlist.h %D%/allowlist-int.h \
	%D%/allowlist-view.c %D%/allowlist-layers.c %D%/allowlist-trust.c \
	%D%/allowlist-secrets.c %D%/allowlist-cd.c \
	%D%/allowlist-write.c %D%/allowlist-danger.c \
	%D%/allowlist-hosts.c \
	%D%/rules.c %D%/rules.h %D%/rules-int.h %D%/rules-grammar.c \
	%D%/optparse.c %D%/optparse-sed.c %D%/optparse.h \
	%D%/filewrite.c %D%/filewrite.h \
	%D%/danger.c %D%/danger.h %D%/danger-int.h %D%/danger-measure.c \
	%D%/danger-loopback.c \
	%D%/secrets.c %D%/secrets.h \
	%D%/agentshape.c %D%/agentshape.h \
	%D%/envask.c %D%/envask.h \
	%D%/ccperms.c %D%/ccperms.h \
	%D%/netgroups.c %D%/netgroups.h \
	%D%/narrow.c %D%/narrow.h
