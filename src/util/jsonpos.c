/*
 * jsonpos: a tiny JSON walker that only knows where values are, so that
 * messages about a parsed file can name the line of a value (cJSON keeps
 * no positions).
 */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "jsonutil.h"

/* Skip blanks, counting newlines. */
static const char *
js_ws(const char *p, int *line)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
		if (*p == '\n')
			(*line)++;
		p++;
	}
	return p;
}

/* Skip a string starting at '"'. */
static const char *
js_string(const char *p, int *line)
{
	for (p++; *p != '\0' && *p != '"'; p++) {
		if (*p == '\\' && p[1] != '\0')
			p++;
		else if (*p == '\n')
			(*line)++;
	}
	return *p == '"' ? p + 1 : p;
}

/* Skip any value. */
static const char *
js_value(const char *p, int *line)
{
	int	depth = 0;

	p = js_ws(p, line);
	if (*p == '"')
		return js_string(p, line);
	if (*p != '{' && *p != '[') {
		while (*p != '\0' && strchr(",}] \t\r\n", *p) == NULL)
			p++;
		return p;
	}
	for (; *p != '\0'; p++) {
		if (*p == '"') {
			p = js_string(p, line) - 1;
			continue;
		}
		if (*p == '\n')
			(*line)++;
		else if (*p == '{' || *p == '[')
			depth++;
		else if ((*p == '}' || *p == ']') && --depth == 0)
			return p + 1;
	}
	return p;
}

/* Find the line of the value at path below the value at p. */
static int
js_locate(const char *p, int line, const char *const *path, size_t n)
{
	const char	*key;
	size_t		 len, want, k = 0;
	int		 keyline;

	p = js_ws(p, &line);
	if (n == 0)
		return line;
	if (*p == '{' && path[0][0] != '#') {
		len = strlen(path[0]);
		for (p++;;) {
			p = js_ws(p, &line);
			if (*p != '"')
				return 0;
			key = p + 1;
			keyline = line;
			p = js_string(p, &line);
			if ((size_t)(p - 1 - key) == len &&
			    strncmp(key, path[0], len) == 0) {
				p = js_ws(p, &line);
				if (*p != ':')
					return 0;
				if (n == 1)
					return keyline;
				return js_locate(p + 1, line, path + 1, n - 1);
			}
			p = js_ws(p, &line);
			if (*p != ':')
				return 0;
			p = js_value(p + 1, &line);
			p = js_ws(p, &line);
			if (*p != ',')
				return 0;
			p++;
		}
	}
	if (*p == '[' && path[0][0] == '#') {
		want = strtoul(path[0] + 1, NULL, 10);
		for (p++;; k++) {
			p = js_ws(p, &line);
			if (*p == ']' || *p == '\0')
				return 0;
			if (k == want)
				return js_locate(p, line, path + 1, n - 1);
			p = js_value(p, &line);
			p = js_ws(p, &line);
			if (*p != ',')
				return 0;
			p++;
		}
	}
	return 0;
}

/* Line of the value at path in text (1-based), 0 when not found. */
int
json_line_at(const char *text, const char *const *path, size_t n)
{
	return js_locate(text, 1, path, n);
}
