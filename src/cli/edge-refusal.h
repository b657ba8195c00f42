/* edge-refusal: an adapter's own refusals on the record (edge-refusal.c). */
#ifndef BWGATE_EDGE_REFUSAL_H
#define BWGATE_EDGE_REFUSAL_H

struct edge_refusal {
	const char	*project;	/* NULL: not known */
	const char	*edge;		/* "mcp", "hook" */
	const char	*agent;
	const char	*tool;		/* the agent's tool: write_file, Write */
	const char	*path;		/* project-relative, or NULL */
	const char	*command;	/* or a command, or NULL */
	const char	*reason;
};

/* A "refused" record in the audit log; -1 (said on stderr) when it cannot
   be written. audit_write takes care of rec's time. */
int	edge_refusal_audit(const struct edge_refusal *);

#endif
