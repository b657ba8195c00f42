# The ncurses console front end (linked into bwgate, never into libbwgate.a).
bwgate_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/src/cli -I$(top_srcdir)/%D%
bwgate_SOURCES += %D%/text.c %D%/text.h %D%/format.c %D%/format.h
bwgate_SOURCES += %D%/ui.c %D%/ui.h %D%/term.c %D%/layout.c %D%/actions.c %D%/keys.c %D%/prompt.c \
	%D%/rule.c %D%/tmux.c %D%/attention.c %D%/search.c %D%/marks.c \
	%D%/pane-queue.c %D%/pane-detail.c %D%/pane-files.c \
	%D%/pane-output.c %D%/pane-report.c
