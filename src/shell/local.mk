# shell: the bash-compatible lexer and parser (their mutual recursion stays
# inside this folder).
noinst_LIBRARIES += %D%/libshell.a
%C%_libshell_a_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
%C%_libshell_a_SOURCES = \
	%D%/shlex.c %D%/shlex.h \
	%D%/shlex-word.c %D%/shlex-arith.c %D%/shlex-heredoc.c \
	%D%/shparse.c %D%/shparse-compound.c %D%/shparse.h
