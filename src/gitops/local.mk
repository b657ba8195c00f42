# gitops: what a git-write run did to the project's repository (refs,
# HEAD, index, commits) and the repository's identity (gitid). Calls util
# only.
noinst_LIBRARIES += %D%/libgitops.a
%C%_libgitops_a_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
%C%_libgitops_a_SOURCES = \
	%D%/gitid.c %D%/gitid.h \
	%D%/gitops.c %D%/gitops-git.c %D%/gitops.h %D%/gitops-int.h
