/*
 * edge-refusal: a call an agent adapter refuses itself (bwgate mcp's file
 * tools, the Claude Code hook) is on the record like a command a deny
 * rule refuses. Where a console runs and the call is a file write, the
 * adapter sends it to the console, whose verdict refuses it: a request in
 * the queue, the history and the audit log. What cannot go there (no
 * console, a call that is no request) is written to the audit log
 * directly: a "refused" record naming the project, the adapter, the
 * agent, what was asked and why it was refused; `bwgate log` lists it.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "audit.h"
#include "cmd.h"
#include "display.h"
#include "edge-refusal.h"

int
edge_refusal_audit(const struct edge_refusal *e)
{
	struct audit	*a;
	char		*cause = NULL;
	cJSON		*rec;
	int		 rc;

	if ((a = audit_open(NULL, &cause)) == NULL) {
		fprintf(stderr, "bwgate: %s: refusal not audited: %s\n",
		    e->edge, display_str(cause));
		free(cause);
		return -1;
	}
	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "record", "refused");
	if (e->project != NULL)
		cJSON_AddStringToObject(rec, "project", e->project);
	cJSON_AddStringToObject(rec, "edge", e->edge);
	if (e->agent != NULL)
		cJSON_AddStringToObject(rec, "agent", e->agent);
	if (e->tool != NULL)
		cJSON_AddStringToObject(rec, "tool", e->tool);
	if (e->path != NULL)
		cJSON_AddStringToObject(rec, "path", e->path);
	if (e->command != NULL)
		cJSON_AddStringToObject(rec, "command", e->command);
	cJSON_AddStringToObject(rec, "verdict", "deny");
	cJSON_AddStringToObject(rec, "reason", e->reason);
	if ((rc = audit_write(a, rec, &cause)) != 0) {
		fprintf(stderr, "bwgate: %s: refusal not audited: %s\n",
		    e->edge, display_str(cause));
		free(cause);
	}
	audit_close(a);
	return rc;
}
