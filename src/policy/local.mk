# policy: settings, the allowlist (rules, option grammar, trust) and the
# profiles that say which sandbox a command gets.
noinst_LIBRARIES += %D%/libpolicy.a
%C%_libpolicy_a_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
%C%_libpolicy_a_SOURCES = \
	%D%/config.c %D%/config.h \
	%D%/guard.c %D%/guard.h \
	%D%/allowlist.c %D%/allowlist.h \
	%D%/rules.c %D%/rules.h \
	%D%/optparse.c %D%/optparse.h
