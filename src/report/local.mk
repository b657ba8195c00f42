# report: the change report: the project's tree before and after a run
# (snapshot) and the result object every reader shares (report). Calls
# util and policy only.
noinst_LIBRARIES += %D%/libreport.a
%C%_libreport_a_CFLAGS = $(AM_CFLAGS) $(CJSON_CFLAGS)
%C%_libreport_a_SOURCES = \
	%D%/report.c %D%/report.h %D%/report-text.c %D%/report-text.h \
	%D%/snapshot.h %D%/snapshot-int.h \
	%D%/snapshot-scan.c %D%/snapshot-diff.c %D%/snapshot-paths.c
