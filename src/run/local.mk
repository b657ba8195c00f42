# run: the exec engine: start a built sandbox and watch it (engine, live
# events: monitor, violations and the recorder: observe, limits, what
# needs attention). Calls every layer below: gitops, net, undo, report,
# policy, sandbox, shell, util.
noinst_LIBRARIES += %D%/librun.a
%C%_librun_a_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
%C%_librun_a_SOURCES = \
	%D%/limiter.c %D%/limiter.h \
	%D%/engine.c %D%/engine-cwd.c %D%/engine-loop.c %D%/engine-service.c %D%/engine.h %D%/engine-int.h \
	%D%/engine-prestart.c \
	%D%/engine-spec.c %D%/engine-spec.h \
	%D%/attention.c %D%/attention.h \
	%D%/monitor.c %D%/monitor.h %D%/monitor-child.c %D%/monitor-int.h \
	%D%/monitor-watch.c %D%/monitor-watcher.h \
	%D%/observe.c %D%/observe.h %D%/observe-int.h \
	%D%/observe-call.c %D%/observe-act.c %D%/observe-flight.c %D%/observe-setid.c %D%/observe-judge.c %D%/observe-infer.c \
	%D%/observe-listener.c
