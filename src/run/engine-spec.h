/*
 * engine-spec: what to run, as JSON: the exact sandbox policy, the
 * command and the limits of an engine run (struct engine_opts), handed
 * from the console to `bwgate exec --policy-fd` so that what runs is what
 * the operator approved. exec reads it and re-derives nothing.
 *
 *	{"version":1,"policy":{...policy-json.h...},"argv":[...],
 *	 "command":"..."|null,"timeout_ms":N,"grace_ms":N,"output_limit":N,
 *	 "exclude":[...],"attention":[...],"shown_argv_sha256":"...",
 *	 "stdin":"null" (the command reads /dev/null; absent: exec's stdin),
 *	 "merge":true (stdout and stderr one stream; absent: as exec's 1, 2)}
 *
 * shown_argv_sha256 is the digest (sha256_strv) of the bwrap argv the
 * operator was shown; exec puts it in its report beside the digest of
 * the argv it built, so the two can be compared.
 */
#ifndef BWGATE_ENGINE_SPEC_H
#define BWGATE_ENGINE_SPEC_H

#include <cjson/cJSON.h>

#include "engine.h"

#define ENGINE_SPEC_VERSION	1
/* Largest spec exec reads. */
#define ENGINE_SPEC_MAX		(4 * 1024 * 1024)

/* The spec of o (policy, command, limits). */
cJSON	*engine_spec_json(const struct engine_opts *o);
/* Fill o (engine_opts_init'ed) from a spec; -1 with cause. *shown gets
   shown_argv_sha256 (caller frees) if given. */
int	 engine_spec_parse(const cJSON *, struct engine_opts *o,
	    char **shown, char **cause);
/* What of a spec its sandbox is made from before the command is known:
   policy, limits, stdin and output merging, as one JSON text (caller
   frees). Two specs with the same can share a prestarted sandbox. */
char	*engine_spec_sandbox_key(const cJSON *spec);
/* Read a spec from a descriptor (to its end) into o. */
int	 engine_spec_read_fd(int fd, struct engine_opts *o, char **shown,
	    char **cause);

#endif
