/*
 * jsonutil: cJSON helpers shared by config, reports and the protocol.
 */
#ifndef BWGATE_JSONUTIL_H
#define BWGATE_JSONUTIL_H

#include <cjson/cJSON.h>
#include <stdbool.h>

#include "strv.h"

/* A JSON array of strings from a vector. */
cJSON	*json_strv(const struct strv *);
/* Append the strings of a JSON array to a vector; -1 if not all strings. */
int	 json_get_strv(const cJSON *, struct strv *);
/* Parse a whole file; NULL with cause naming the file and line on error. */
cJSON	*json_load_file(const char *path, char **cause);
/* Parse a string; NULL with cause naming the line on error. */
cJSON	*json_parse_text(const char *text, const char *what, char **cause);
/* Print compactly on one line (caller frees). */
char	*json_line(const cJSON *);

#endif
