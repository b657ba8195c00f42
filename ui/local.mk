# The ncurses console front end (linked into bwgate, never into libbwgate.a).
bwgate_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/%D%
bwgate_SOURCES += %D%/format.c %D%/format.h
