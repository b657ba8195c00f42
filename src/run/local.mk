# run: start a built sandbox and watch it: runner, engine, change report
# (snapshot), live events (monitor) and violations (observe).
noinst_LIBRARIES += %D%/librun.a
%C%_librun_a_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
%C%_librun_a_SOURCES = \
	%D%/runner.c %D%/runner.h \
	%D%/netstack.c %D%/netstack.h \
	%D%/netproxy.c %D%/netproxy-conn.c %D%/netproxy.h %D%/netproxy-int.h \
	%D%/netask.c %D%/netask.h \
	%D%/limiter.c %D%/limiter.h \
	%D%/engine.c %D%/engine-cwd.c %D%/engine-loop.c %D%/engine.h %D%/engine-int.h \
	%D%/engine-prestart.c \
	%D%/engine-spec.c %D%/engine-spec.h \
	%D%/report.c %D%/report.h %D%/report-text.c %D%/report-text.h \
	%D%/attention.c %D%/attention.h \
	%D%/snapshot.h %D%/snapshot-int.h \
	%D%/snapshot-scan.c %D%/snapshot-diff.c %D%/snapshot-paths.c \
	%D%/monitor.c %D%/monitor.h %D%/monitor-child.c %D%/monitor-int.h \
	%D%/monitor-watch.c %D%/monitor-watcher.h \
	%D%/observe.c %D%/observe.h %D%/observe-int.h \
	%D%/observe-call.c %D%/observe-act.c %D%/observe-flight.c %D%/observe-setid.c %D%/observe-judge.c %D%/observe-infer.c \
	%D%/gitid.c %D%/gitid.h \
	%D%/gitops.c %D%/gitops-git.c %D%/gitops.h %D%/gitops-int.h \
	%D%/undo.h %D%/undo-int.h %D%/undo-store.c \
	%D%/undo-rec.h %D%/undo-save.c %D%/undo-pack.c %D%/undo-object.c \
	%D%/undo-manifest.c %D%/undo-check.c %D%/undo-commit.c \
	%D%/undo-plan.c %D%/undo-plan.h %D%/undo-apply.c %D%/undo-index.c %D%/undo-rollback.c %D%/undo-request.c
