/*
 * jsoncheck: refusing at the edge what cJSON would lose or refuse without
 * saying where, and the checks every edge (the console protocol, the MCP
 * server, the Claude Code hook) applies to the strings it decodes.
 *
 * cJSON ends a string at a \u0000 escape (the rest is dropped silently),
 * refuses a lone UTF-16 surrogate (\ud800, which JSON.stringify emits for
 * such a JavaScript string) with no word of where, and accepts raw control
 * characters inside strings. jsoncheck_text scans the string tokens of the
 * JSON text itself and names the member at fault ("tool_input.command",
 * "write.content", "argv[2]", "env.FOO").
 */
#ifndef BWGATE_JSONCHECK_H
#define BWGATE_JSONCHECK_H

#include <stdbool.h>
#include <stddef.h>

/* The longest path any edge accepts (PATH_MAX less the NUL). */
#define JSONCHECK_PATH_MAX	4095

/*
 * Scan JSON text (len bytes) for a \u0000 escape, a lone surrogate escape,
 * a raw control character or NUL inside a string, and invalid UTF-8. 0 if
 * there is none; else -1 with *cause naming the member, e.g. "field
 * 'tool_input.command' holds a NUL character (\u0000): refused, not cut
 * short". When mended is not NULL it gets (also on success) a copy of the
 * text with each of those replaced by a character cJSON keeps (\ufffd or
 * a space), NUL-terminated, so a caller can still learn who sent it (an id
 * to answer); the copy is for that only, never for acting on.
 */
int	 jsoncheck_text(const char *text, size_t len, char **mended,
	    char **cause);
/*
 * A decoded path member: at most JSONCHECK_PATH_MAX bytes, valid UTF-8,
 * no control character (C0, DEL, C1: a newline in a path is how a path
 * turns into code). 0, or -1 with *cause naming field.
 */
int	 jsoncheck_path(const char *field, const char *s, char **cause);
/* A decoded string member: valid UTF-8 and at most max bytes. */
int	 jsoncheck_string(const char *field, const char *s, size_t max,
	    char **cause);
/* The first control character (C0, DEL or C1) in s, as an offset; -1 if
   none. Invalid UTF-8 bytes are skipped. */
long	 jsoncheck_control(const char *s, size_t len);

#endif
