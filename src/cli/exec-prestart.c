/*
 * exec-prestart: `bwgate exec --prestart --policy-fd FD`, a warm exec of
 * the console's that makes a sandbox before its request is known.
 *
 * FD carries two specs (engine-spec.h): first, ended by a newline, the
 * prediction (the last read-only request's spec); then, to the end of
 * the descriptor, the request to run. The prediction's sandbox is made at
 * once and waits (engine-prestart.c); the request runs in it when the two
 * specs ask for the same policy, limits and stdin and the argv shown for
 * the request is that sandbox's; else it runs as any request does.
 */
#include "autoconf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "cmd.h"
#include "engine-spec.h"
#include "jsonutil.h"
#include "log.h"
#include "xalloc.h"

struct prestart {
	int			 fd;
	const struct engine_opts *base;		/* exec's own options */
	struct buf		 in;		/* read so far */
	cJSON			*predicted;	/* the first spec */
	struct engine_opts	*real;		/* the request, once read */
	char			*shown;
	char			**shown_out;	/* exec's, for its report */
	bool			 read;		/* the request was read */
	bool			 taken;		/* ... and run in the sandbox */
	char			*error;		/* why it cannot run */
};

/* Read from the descriptor until a newline is in (or its end). */
static int
prestart_fill(struct prestart *p, bool to_end)
{
	char	chunk[16384];
	ssize_t	n;

	while (to_end || memchr(p->in.data != NULL ? p->in.data : "", '\n',
	    p->in.len) == NULL) {
		if (p->in.len > ENGINE_SPEC_MAX * 2)
			return -1;
		n = read(p->fd, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0 && (to_end || p->in.len > 0) ? 0 : -1;
		buf_add(&p->in, chunk, (size_t)n);
	}
	return 0;
}

/* What exec's own options and descriptors decide (not the spec). */
static void
prestart_exec_flags(struct engine_opts *o, const struct engine_opts *base)
{
	o->passthrough = base->passthrough;
	o->merge_output = o->merge_output || base->merge_output;
	o->events_fd = base->events_fd;
	o->monitor = base->monitor;
	o->observe = base->observe;
	o->snapshot = base->snapshot;
	o->force_snapshot = base->force_snapshot;
	o->report_ready = base->report_ready;
	o->report_arg = base->report_arg;
}

/* The request: the rest of the descriptor after the prediction. */
static void
prestart_read_request(struct prestart *p)
{
	char	*nl, *cause = NULL;
	cJSON	*j = NULL;

	if (p->read)
		return;
	p->read = true;
	if (prestart_fill(p, true) != 0) {
		p->error = xstrdup("cannot read the policy");
		return;
	}
	buf_add(&p->in, "", 1);
	nl = strchr(p->in.data, '\n');
	if (nl == NULL || (j = json_parse_text(nl + 1, "the policy",
	    &cause)) == NULL) {
		p->error = cause != NULL ? cause : xstrdup("no policy came");
		return;
	}
	p->real = xcalloc(1, sizeof *p->real);
	engine_opts_init(p->real);
	if (engine_spec_parse(j, p->real, &p->shown, &cause) != 0)
		p->error = cause;
	prestart_exec_flags(p->real, p->base);
	cJSON_Delete(j);
}

/* engine_opts.await: the request, if the prediction's sandbox suits. */
static int
prestart_await(void *arg, struct engine_opts **real, char **shown)
{
	struct prestart	*p = arg;
	char		*want, *got;
	cJSON		*j;
	bool		 same;

	prestart_read_request(p);
	if (p->error != NULL)
		return -1;
	j = cJSON_Parse(strchr(p->in.data, '\n') + 1);
	want = engine_spec_sandbox_key(p->predicted);
	got = j != NULL ? engine_spec_sandbox_key(j) : NULL;
	same = got != NULL && strcmp(want, got) == 0;
	free(want);
	free(got);
	cJSON_Delete(j);
	if (!same) {
		LOG("the request asks for another policy than predicted");
		return -1;
	}
	*real = p->real;
	*shown = p->shown != NULL ? xstrdup(p->shown) : NULL;
	/* A report may go out before the run ends (a service). */
	free(*p->shown_out);
	*p->shown_out = p->shown != NULL ? xstrdup(p->shown) : NULL;
	p->taken = true;	/* unless the engine finds it unsuitable */
	return 0;
}

int
exec_prestart(int fd, const struct engine_opts *base, struct result *r,
    char **shown)
{
	struct prestart		 p = { .fd = fd, .base = base, .in = BUF_INIT,
				   .shown_out = shown };
	struct engine_opts	 pred;
	char			*cause = NULL, *nl;
	int			 rc = -1;

	engine_opts_init(&pred);
	if (prestart_fill(&p, false) != 0) {
		r->error = xstrdup("cannot read the policy");
		goto out;
	}
	buf_add(&p.in, "", 1);
	p.in.len--;
	if ((nl = strchr(p.in.data, '\n')) == NULL) {
		r->error = xstrdup("the policy has no prediction line");
		goto out;
	}
	*nl = '\0';
	p.predicted = json_parse_text(p.in.data, "the prediction", &cause);
	*nl = '\n';
	if (p.predicted != NULL &&
	    engine_spec_parse(p.predicted, &pred, NULL, &cause) == 0) {
		prestart_exec_flags(&pred, base);
		pred.await = prestart_await;
		pred.await_arg = &p;
		LOG("prestarting the predicted sandbox");
		rc = engine_run(&pred, r);
		/* Ran (or failed) as the request; else it runs as usual. */
		if (rc != ENGINE_UNUSED && p.taken)
			goto out;
		if (rc == -1)
			LOG("the prestart failed: %s", r->error);
		result_release(r);
		*r = (struct result)RESULT_INIT;
	} else {
		LOG("no prediction: %s", cause);
		free(cause);
	}
	/* As any request. */
	prestart_read_request(&p);
	if (p.error == NULL && p.real == NULL)
		p.error = xstrdup("no policy came");
	if (p.error != NULL) {
		r->error = xstrdup(p.error);
		goto out;
	}
	free(*shown);
	*shown = p.shown != NULL ? xstrdup(p.shown) : NULL;
	rc = engine_run(p.real, r);
out:
	free(*shown);
	*shown = p.shown;
	p.shown = NULL;
	if (p.real != NULL) {
		engine_opts_release(p.real);
		free(p.real);
	}
	engine_opts_release(&pred);
	cJSON_Delete(p.predicted);
	buf_release(&p.in);
	free(p.error);
	return rc;
}
