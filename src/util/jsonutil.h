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
/* Parse a whole file; NULL with cause naming the file and line on error.
   Opened non-blocking (a FIFO never blocks); a regular file of at most
   16 MiB, or an error. json_load_fd: the file open at fd (path names it
   in messages; for a project's file opened through the door). */
cJSON	*json_load_file(const char *path, char **cause);
cJSON	*json_load_fd(int fd, const char *path, char **cause);
/* Parse a string; NULL with cause naming the line on error. */
cJSON	*json_parse_text(const char *text, const char *what, char **cause);
/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
size_t	 utf8_seq(const unsigned char *s, size_t n);
/*
 * A path as a JSON string. A name that is not valid UTF-8 is written with
 * each invalid byte as the four characters \xNN and each backslash doubled,
 * and *escaped is set (the containing object then says "escaped": true).
 */
cJSON	*json_path(const char *path, bool *escaped);
/* Bytes (program output) as a JSON string, invalid UTF-8 as U+FFFD. */
cJSON	*json_bytes(const char *data, size_t len);
/* Print compactly on one line (caller frees); always valid UTF-8: an
   invalid byte in a string is printed as U+FFFD. */
char	*json_line(const cJSON *);
/* The same, indented. */
char	*json_text(const cJSON *);
/* Take s (malloc'd) and return it with each invalid UTF-8 byte replaced
   by U+FFFD; *replaced (may be NULL) counts them. */
char	*json_mend_utf8(char *s, size_t *replaced);
/* True when s is valid UTF-8 throughout. */
bool	 utf8_valid(const char *s);
/*
 * jsonpos.c: the line (1-based) of the value at a path in JSON text, 0
 * when not found. Path elements are object keys, or "#N" for the Nth
 * element of an array.
 */
int	 json_line_at(const char *text, const char *const *path, size_t n);

#endif
