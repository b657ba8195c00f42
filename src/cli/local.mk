# cli: the bwgate front end: main and one file per subcommand.
bin_PROGRAMS += bwgate
bwgate_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS) $(NCURSES_CFLAGS)
bwgate_LDADD = $(CORE_LIBS) $(NCURSES_LIBS)
bwgate_SOURCES = \
	%D%/bwgate.c %D%/cmd.h \
	%D%/cmd-exec.c %D%/exec-prestart.c \
	%D%/cmd-doctor.c \
	%D%/cmd-check.c \
	%D%/cmd-trust.c \
	%D%/cmd-console.c \
	%D%/cmd-run.c \
	%D%/cmd-sh.c \
	%D%/cmd-control.c \
	%D%/cmd-show.c %D%/cmd-log.c %D%/cmd-rules.c \
	%D%/cmd-undo.c \
	%D%/summary.c \
	%D%/cmd-hook.c %D%/hook-perms.c %D%/hook-perms.h \
	%D%/hook-guard.c %D%/hook-guard.h %D%/hook-path.c %D%/hook-path.h \
	%D%/hook-run.c %D%/hook-run.h \
	%D%/edge-refusal.c %D%/edge-refusal.h \
	%D%/cmd-mcp.c %D%/mcp.h \
	%D%/mcp-rpc.c \
	%D%/mcp-tools.c \
	%D%/mcp-run.c \
	%D%/mcp-path.c \
	%D%/mcp-files.c \
	%D%/cmd-consoles.c %D%/cmd-executor.c %D%/cmd-connect.c
# `bwgate-sh` is `bwgate sh` (bwgate.c looks at its own name).
install-exec-hook: install-exec-bwgate-sh
install-exec-bwgate-sh:
	cd $(DESTDIR)$(bindir) && rm -f bwgate-sh$(EXEEXT) && \
	ln -s bwgate$(EXEEXT) bwgate-sh$(EXEEXT)
uninstall-hook: uninstall-bwgate-sh
uninstall-bwgate-sh:
	rm -f $(DESTDIR)$(bindir)/bwgate-sh$(EXEEXT)
.PHONY: install-exec-bwgate-sh uninstall-bwgate-sh
