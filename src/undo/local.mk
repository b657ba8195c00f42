# undo: what a run replaced, kept so it can be put back: the store, the
# save while the recorder holds each call, the manifest, the plan and its
# apply. Calls report, policy and util only.
noinst_LIBRARIES += %D%/libundo.a
%C%_libundo_a_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
%C%_libundo_a_SOURCES = \
	%D%/undo.h %D%/undo-int.h %D%/undo-store.c \
	%D%/undo-rec.h %D%/undo-save.c %D%/undo-pack.c %D%/undo-object.c \
	%D%/undo-manifest.c %D%/undo-check.c %D%/undo-commit.c \
	%D%/undo-plan.c %D%/undo-plan.h %D%/undo-apply.c %D%/undo-index.c \
	%D%/undo-rollback.c %D%/undo-request.c
