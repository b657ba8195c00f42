/* protocol: line splitting, decoding and reply encoding (doc/protocol.md). */
#include "autoconf.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "jsonutil.h"
#include "protocol.h"
#include "xalloc.h"

#define PROTO_MAX_TIMEOUT	(7 * 24 * 3600)
#define PROTO_MAX_NAME		256

static int	proto_decode_submit(const cJSON *, struct proto_msg *,
		    char **);
static int	proto_decode_id(const cJSON *, struct proto_msg *, char **);
static int	proto_decode_mounts(const cJSON *, struct proto_mounts *,
		    char **);

/* Message types: name, and whether the message names a request id. */
static const struct {
	const char	*name;
	enum proto_type	 type;
	bool		 has_id;
} proto_types[] = {
	{ "submit",	PROTO_SUBMIT,	false },
	{ "cancel",	PROTO_CANCEL,	true },
	{ "list",	PROTO_LIST,	false },
	{ "approve",	PROTO_APPROVE,	true },
	{ "deny",	PROTO_DENY,	true },
	{ "kill",	PROTO_KILL,	true },
	{ "rerun",	PROTO_RERUN,	true },
	{ "reload",	PROTO_RELOAD,	false },
	{ "show",	PROTO_SHOW,	true },
	{ "input",	PROTO_INPUT,	true },
	{ "input-end",	PROTO_INPUT_END, true },
};

/*
 * The members of the request messages, for the encoder: name, kind, where
 * in struct proto_msg, and the types that carry it. A new member is a row
 * here (and its check in the decoder below); a new type a row above.
 */
enum proto_field_kind {
	PF_STRING,		/* char *, absent when NULL */
	PF_STRV,		/* struct strv, absent when empty */
	PF_COUNT,		/* int, absent when 0 */
	PF_AMOUNT,		/* double, absent when 0 */
	PF_TRISTATE,		/* int -1/0/1 as absent/false/true */
	PF_BOOL			/* bool, absent when false */
};
#define PT(t)	(1U << (t))
static const struct proto_field {
	const char		*name;
	enum proto_field_kind	 kind;
	size_t			 off;
	unsigned		 types;
} proto_fields[] = {
	{ "command", PF_STRING, offsetof(struct proto_msg, command),
	  PT(PROTO_SUBMIT) },
	{ "argv", PF_STRV, offsetof(struct proto_msg, argv),
	  PT(PROTO_SUBMIT) },
	{ "cwd", PF_STRING, offsetof(struct proto_msg, cwd),
	  PT(PROTO_SUBMIT) },
	{ "agent", PF_STRING, offsetof(struct proto_msg, agent),
	  PT(PROTO_SUBMIT) },
	{ "timeout", PF_COUNT, offsetof(struct proto_msg, timeout_s),
	  PT(PROTO_SUBMIT) },
	{ "note", PF_STRING, offsetof(struct proto_msg, note),
	  PT(PROTO_APPROVE) | PT(PROTO_DENY) },
	{ "network", PF_TRISTATE, offsetof(struct proto_msg, mounts.network),
	  PT(PROTO_SUBMIT) | PT(PROTO_APPROVE) },
	{ "rw", PF_STRV, offsetof(struct proto_msg, mounts.rw),
	  PT(PROTO_SUBMIT) | PT(PROTO_APPROVE) },
	{ "ro", PF_STRV, offsetof(struct proto_msg, mounts.ro),
	  PT(PROTO_SUBMIT) | PT(PROTO_APPROVE) },
	{ "hide", PF_STRV, offsetof(struct proto_msg, mounts.hide),
	  PT(PROTO_SUBMIT) | PT(PROTO_APPROVE) },
	{ "memory", PF_AMOUNT, offsetof(struct proto_msg, memory),
	  PT(PROTO_SUBMIT) },
	{ "pids", PF_COUNT, offsetof(struct proto_msg, pids),
	  PT(PROTO_SUBMIT) },
	{ "cpu", PF_COUNT, offsetof(struct proto_msg, cpu_s),
	  PT(PROTO_SUBMIT) },
	{ "stdin", PF_BOOL, offsetof(struct proto_msg, stdin_stream),
	  PT(PROTO_SUBMIT) },
	{ "merge_output", PF_BOOL, offsetof(struct proto_msg, merge_output),
	  PT(PROTO_SUBMIT) },
	{ "shell_options", PF_STRV, offsetof(struct proto_msg, shell_options),
	  PT(PROTO_SUBMIT) },
	{ "args", PF_STRV, offsetof(struct proto_msg, args),
	  PT(PROTO_SUBMIT) },
	{ "profile", PF_STRING, offsetof(struct proto_msg, profile),
	  PT(PROTO_APPROVE) },
};

/* Reply types, in enum proto_reply order. */
static const char *const proto_reply_names[] = {
	"hello", "queued", "decided", "withdrawn", "started", "output",
	"event", "result", "list", "ok", "error"
};

/* Shell options passed to the shell in the sandbox: none of them widens
   what a command string can do, so the string is classified as it is. */
static const char proto_shell_letters[] = "abCefhmnuvxBEHPT";
static const char *const proto_shell_onames[] = {
	"allexport", "braceexpand", "emacs", "errexit", "errtrace",
	"functrace", "hashall", "histexpand", "history", "ignoreeof",
	"interactive-comments", "keyword", "monitor", "noclobber", "noexec",
	"noglob", "nolog", "notify", "nounset", "onecmd", "physical",
	"pipefail", "posix", "verbose", "vi", "xtrace", NULL
};

/* The name of a message type. */
const char *
proto_type_name(enum proto_type t)
{
	for (size_t i = 0; i < sizeof proto_types / sizeof *proto_types; i++)
		if (proto_types[i].type == t)
			return proto_types[i].name;
	return "unknown";
}

/* Append bytes read from a peer. */
void
proto_reader_feed(struct proto_reader *rd, const void *p, size_t n)
{
	buf_add(&rd->in, p, n);
}

/* Return the next complete line, or say a line was too long. */
enum proto_line
proto_reader_next(struct proto_reader *rd, char **line, size_t *len)
{
	size_t	 max = rd->max != 0 ? rd->max : PROTO_MAX_LINE;
	char	*nl;

	/* Drop the line handed out last time (valid until this call). */
	if (rd->consume != 0) {
		buf_consume(&rd->in, rd->consume);
		rd->consume = 0;
		rd->scanned = 0;
	}
	for (;;) {
		if (rd->in.len == 0)
			return PROTO_LINE_NONE;
		nl = memchr(rd->in.data + rd->scanned, '\n',
		    rd->in.len - rd->scanned);
		if (rd->skipping) {
			if (nl == NULL) {
				buf_reset(&rd->in);
				rd->scanned = 0;
				return PROTO_LINE_NONE;
			}
			buf_consume(&rd->in, (size_t)(nl - rd->in.data) + 1);
			rd->scanned = 0;
			rd->skipping = false;
			continue;
		}
		if (nl == NULL) {
			rd->scanned = rd->in.len;
			if (rd->in.len > max) {
				/* Report once, then skip to the newline. */
				rd->skipping = true;
				buf_reset(&rd->in);
				rd->scanned = 0;
				return PROTO_LINE_TOO_LONG;
			}
			return PROTO_LINE_NONE;
		}
		*len = (size_t)(nl - rd->in.data);
		if (*len > max) {
			buf_consume(&rd->in, *len + 1);
			rd->scanned = 0;
			return PROTO_LINE_TOO_LONG;
		}
		break;
	}
	*nl = '\0';
	*line = rd->in.data;
	rd->consume = *len + 1;
	return PROTO_LINE_OK;
}

/* Bytes buffered that do not yet form a line. */
size_t
proto_reader_pending(const struct proto_reader *rd)
{
	return rd->in.len - rd->consume;
}

/* Free the reader's buffer. */
void
proto_reader_release(struct proto_reader *rd)
{
	buf_release(&rd->in);
	rd->scanned = 0;
	rd->consume = 0;
	rd->skipping = false;
}

/* Validate UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF). */
bool
proto_utf8_valid(const char *s, size_t len, size_t *bad)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 i = 0;

	while (i < len) {
		unsigned char	c = p[i];
		size_t		n;
		uint32_t	cp;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			n = 1;
			cp = c & 0x1f;
		} else if (c >= 0xe0 && c <= 0xef) {
			n = 2;
			cp = c & 0x0f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			n = 3;
			cp = c & 0x07;
		} else
			goto fail;
		if (len - i <= n)
			goto fail;	/* truncated sequence */
		for (size_t k = 1; k <= n; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				goto fail;
			cp = (cp << 6) | (p[i + k] & 0x3f);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) ||
		    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			goto fail;
		i += n + 1;
	}
	return true;
fail:
	if (bad != NULL)
		*bad = i;
	return false;
}

/* Cut a trailing, incomplete UTF-8 sequence (at most 3 bytes). */
size_t
proto_utf8_complete(const char *s, size_t len)
{
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 back;

	for (back = 1; back <= 3 && back <= len; back++) {
		unsigned char	c = p[len - back];
		size_t		need;

		if ((c & 0xc0) == 0x80)
			continue;	/* continuation byte: look further */
		if (c >= 0xc0 && c <= 0xdf)
			need = 2;
		else if (c >= 0xe0 && c <= 0xef)
			need = 3;
		else if (c >= 0xf0 && c <= 0xf7)
			need = 4;
		else
			return len;	/* ASCII or invalid: nothing held */
		return back < need ? len - back : len;
	}
	return len;
}

static const char proto_b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Base64-encode n bytes. */
char *
proto_base64_encode(const void *p, size_t n)
{
	const unsigned char	*in = p;
	char			*out = xmalloc(4 * ((n + 2) / 3) + 1), *o = out;
	size_t			 i;

	for (i = 0; i + 2 < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | in[i + 1] << 8 | in[i + 2];

		*o++ = proto_b64[v >> 18];
		*o++ = proto_b64[(v >> 12) & 63];
		*o++ = proto_b64[(v >> 6) & 63];
		*o++ = proto_b64[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)in[i] << 16;

		if (i + 1 < n)
			v |= in[i + 1] << 8;
		*o++ = proto_b64[v >> 18];
		*o++ = proto_b64[(v >> 12) & 63];
		*o++ = i + 1 < n ? proto_b64[(v >> 6) & 63] : '=';
		*o++ = '=';
	}
	*o = '\0';
	return out;
}

/* Decode base64 (padding required, no whitespace). */
int
proto_base64_decode(const char *s, struct buf *b)
{
	size_t		len = strlen(s), i, k;
	uint32_t	v;
	int		pad;

	if (len % 4 != 0)
		return -1;
	for (i = 0; i < len; i += 4) {
		v = 0;
		pad = 0;
		for (k = 0; k < 4; k++) {
			const char *q = s[i + k] == '\0' ? NULL :
			    strchr(proto_b64, s[i + k]);

			if (s[i + k] == '=' && i + 4 == len && k >= 2) {
				pad++;
				v <<= 6;
				continue;
			}
			if (q == NULL || pad > 0)
				return -1;
			v = v << 6 | (uint32_t)(q - proto_b64);
		}
		buf_putc(b, (char)(v >> 16));
		if (pad < 2)
			buf_putc(b, (char)(v >> 8 & 0xff));
		if (pad < 1)
			buf_putc(b, (char)(v & 0xff));
	}
	return 0;
}

/* One shell option word ("-e", "+eu"), or "-o"/"+o" with a name. */
bool
proto_shell_option_ok(const char *opt, const char *name)
{
	if ((opt[0] != '-' && opt[0] != '+') || opt[1] == '\0')
		return false;
	if (strcmp(opt + 1, "o") == 0) {
		if (name == NULL)
			return false;
		for (const char *const *n = proto_shell_onames; *n != NULL; n++)
			if (strcmp(*n, name) == 0)
				return true;
		return false;
	}
	if (name != NULL)
		return false;
	for (const char *p = opt + 1; *p != '\0'; p++)
		if (strchr(proto_shell_letters, *p) == NULL)
			return false;
	return true;
}

/* A boolean member; 0 and *out untouched when absent. */
static int
get_bool(const cJSON *o, const char *name, bool *out, char **cause)
{
	const cJSON	*j = cJSON_GetObjectItemCaseSensitive(o, name);

	if (j == NULL || cJSON_IsNull(j))
		return 0;
	if (!cJSON_IsBool(j)) {
		*cause = xasprintf("field '%s' must be true or false", name);
		return -1;
	}
	*out = cJSON_IsTrue(j);
	return 0;
}

/* Compare NAME=VALUE strings (for a stable env order). */
static int
proto_env_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "env": an object of string values, kept as sorted NAME=VALUE. */
static int
proto_decode_env(const cJSON *o, struct proto_msg *m, char **cause)
{
	const cJSON	*j = cJSON_GetObjectItemCaseSensitive(o, "env"), *e;

	if (j == NULL || cJSON_IsNull(j))
		return 0;
	if (!cJSON_IsObject(j)) {
		*cause = xstrdup("field 'env' must be an object of strings");
		return -1;
	}
	m->has_env = true;
	cJSON_ArrayForEach(e, j) {
		if (!cJSON_IsString(e)) {
			*cause = xstrdup("field 'env' must be an object of "
			    "strings");
			return -1;
		}
		if (e->string[0] == '\0' || strchr(e->string, '=') != NULL ||
		    strlen(e->string) > PROTO_MAX_NAME) {
			*cause = xstrdup("field 'env' has an invalid variable "
			    "name");
			return -1;
		}
		if (m->env.n == PROTO_MAX_ENV) {
			*cause = xasprintf("field 'env' has more than %d "
			    "variables", PROTO_MAX_ENV);
			return -1;
		}
		strv_pushf(&m->env, "%s=%s", e->string, e->valuestring);
	}
	if (m->env.n > 1)
		qsort(m->env.v, m->env.n, sizeof *m->env.v, proto_env_cmp);
	return 0;
}

/* A string member: 0 and *out (NULL if absent), -1 if mistyped. */
static int
get_string(const cJSON *o, const char *name, bool required, char **out,
    char **cause)
{
	const cJSON	*j = cJSON_GetObjectItemCaseSensitive(o, name);

	*out = NULL;
	if (j == NULL || cJSON_IsNull(j)) {
		if (!required)
			return 0;
		*cause = xasprintf("missing field '%s'", name);
		return -1;
	}
	if (!cJSON_IsString(j)) {
		*cause = xasprintf("field '%s' must be a string", name);
		return -1;
	}
	*out = xstrdup(j->valuestring);
	return 0;
}

/* An array of strings; each an absolute path when paths is true. */
static int
get_strv(const cJSON *o, const char *name, bool paths, struct strv *sv,
    char **cause)
{
	const cJSON	*j = cJSON_GetObjectItemCaseSensitive(o, name), *e;
	size_t		 i = 0;

	if (j == NULL || cJSON_IsNull(j))
		return 0;
	if (!cJSON_IsArray(j)) {
		*cause = xasprintf("field '%s' must be an array of strings",
		    name);
		return -1;
	}
	cJSON_ArrayForEach(e, j) {
		if (!cJSON_IsString(e)) {
			*cause = xasprintf("field '%s[%zu]' must be a string",
			    name, i);
			return -1;
		}
		if (paths && e->valuestring[0] != '/') {
			*cause = xasprintf("field '%s[%zu]' must be an "
			    "absolute path", name, i);
			return -1;
		}
		strv_push(sv, e->valuestring);
		i++;
	}
	return 0;
}

/* A whole number in [min, max]; 0 and *out untouched when absent. */
static int
get_int(const cJSON *o, const char *name, bool required, double min,
    double max, double *out, char **cause)
{
	const cJSON	*j = cJSON_GetObjectItemCaseSensitive(o, name);

	if (j == NULL) {
		if (!required)
			return 0;
		*cause = xasprintf("missing field '%s'", name);
		return -1;
	}
	if (!cJSON_IsNumber(j) || !isfinite(j->valuedouble) ||
	    j->valuedouble != floor(j->valuedouble) ||
	    j->valuedouble < min || j->valuedouble > max) {
		*cause = xasprintf("field '%s' must be a whole number from "
		    "%.0f to %.0f", name, min, max);
		return -1;
	}
	*out = j->valuedouble;
	return 0;
}

/* The sandbox changes of a submit or approve. */
static int
proto_decode_mounts(const cJSON *o, struct proto_mounts *mo, char **cause)
{
	const cJSON	*j = cJSON_GetObjectItemCaseSensitive(o, "network");

	if (j != NULL && !cJSON_IsNull(j)) {
		if (!cJSON_IsBool(j)) {
			*cause = xstrdup("field 'network' must be true or "
			    "false");
			return -1;
		}
		mo->network = cJSON_IsTrue(j) ? 1 : 0;
	}
	if (get_strv(o, "rw", true, &mo->rw, cause) != 0 ||
	    get_strv(o, "ro", true, &mo->ro, cause) != 0 ||
	    get_strv(o, "hide", true, &mo->hide, cause) != 0)
		return -1;
	return 0;
}

/* submit's "write": {"path": ..., "content": ...}, one file to write. */
static int
proto_decode_write(const cJSON *w, struct proto_msg *m, char **cause)
{
	if (!cJSON_IsObject(w)) {
		*cause = xstrdup("field 'write' must be an object with 'path' "
		    "and 'content'");
		return -1;
	}
	if (get_string(w, "path", true, &m->write_path, cause) != 0 ||
	    get_string(w, "content", true, &m->write_content, cause) != 0) {
		char *s = xasprintf("write: %s", *cause);

		free(*cause);
		*cause = s;
		return -1;
	}
	if (m->write_path[0] == '\0') {
		*cause = xstrdup("field 'write.path' must not be empty");
		return -1;
	}
	return 0;
}

/* submit: a command string, an argv or a file write, and where and how to
   run it. */
static int
proto_decode_submit(const cJSON *o, struct proto_msg *m, char **cause)
{
	const cJSON	*argv = cJSON_GetObjectItemCaseSensitive(o, "argv");
	const cJSON	*w = cJSON_GetObjectItemCaseSensitive(o, "write");
	double		 t = 0;

	if (get_string(o, "command", false, &m->command, cause) != 0)
		return -1;
	if (w != NULL && !cJSON_IsNull(w)) {
		if (m->command != NULL || (argv != NULL &&
		    !cJSON_IsNull(argv))) {
			*cause = xstrdup("give one of 'command', 'argv' and "
			    "'write'");
			return -1;
		}
		if (proto_decode_write(w, m, cause) != 0)
			return -1;
	} else if (argv != NULL && !cJSON_IsNull(argv)) {
		if (m->command != NULL) {
			*cause = xstrdup("give either 'command' or 'argv', "
			    "not both");
			return -1;
		}
		if (get_strv(o, "argv", false, &m->argv, cause) != 0)
			return -1;
		if (m->argv.n == 0) {
			*cause = xstrdup("field 'argv' must not be empty");
			return -1;
		}
		if (m->argv.v[0][0] == '\0') {
			*cause = xstrdup("field 'argv[0]' must not be empty");
			return -1;
		}
	} else if (m->command == NULL) {
		*cause = xstrdup("missing field 'command' (or 'argv')");
		return -1;
	} else if (m->command[strspn(m->command, " \t\n")] == '\0') {
		*cause = xstrdup("field 'command' must not be empty");
		return -1;
	}
	if (get_string(o, "cwd", false, &m->cwd, cause) != 0)
		return -1;
	if (m->cwd != NULL && m->cwd[0] != '/') {
		*cause = xstrdup("field 'cwd' must be an absolute path");
		return -1;
	}
	if (get_string(o, "agent", false, &m->agent, cause) != 0)
		return -1;
	if (m->agent != NULL && strlen(m->agent) > PROTO_MAX_NAME) {
		*cause = xasprintf("field 'agent' is longer than %d bytes",
		    PROTO_MAX_NAME);
		return -1;
	}
	if (get_int(o, "timeout", false, 1, PROTO_MAX_TIMEOUT, &t,
	    cause) != 0)
		return -1;
	m->timeout_s = (int)t;
	/* Limits an agent may only lower (bwgate exec --lower-*). */
	if (get_int(o, "memory", false, 1, 1e15, &m->memory, cause) != 0)
		return -1;
	t = 0;
	if (get_int(o, "pids", false, 1, 1e7, &t, cause) != 0)
		return -1;
	m->pids = (int)t;
	t = 0;
	if (get_int(o, "cpu", false, 1, PROTO_MAX_TIMEOUT, &t, cause) != 0)
		return -1;
	m->cpu_s = (int)t;
	if (proto_decode_env(o, m, cause) != 0 ||
	    get_bool(o, "stdin", &m->stdin_stream, cause) != 0 ||
	    get_bool(o, "merge_output", &m->merge_output, cause) != 0 ||
	    get_strv(o, "shell_options", false, &m->shell_options,
	    cause) != 0 ||
	    get_strv(o, "args", false, &m->args, cause) != 0)
		return -1;
	if ((m->shell_options.n > 0 || m->args.n > 0) && m->command == NULL) {
		*cause = xstrdup("fields 'shell_options' and 'args' go with "
		    "'command'");
		return -1;
	}
	for (size_t i = 0; i < m->shell_options.n; i++) {
		const char *o1 = m->shell_options.v[i];
		const char *nm = NULL;

		if ((o1[0] == '-' || o1[0] == '+') && strcmp(o1 + 1, "o") == 0)
			nm = i + 1 < m->shell_options.n ?
			    m->shell_options.v[++i] : "";
		if (!proto_shell_option_ok(o1, nm)) {
			*cause = xasprintf("field 'shell_options': '%s%s%s' is "
			    "not a supported shell option", o1,
			    nm != NULL ? " " : "", nm != NULL ? nm : "");
			return -1;
		}
	}
	return proto_decode_mounts(o, &m->mounts, cause);
}

/* input: text in "data" or bytes in "data_base64". */
static int
proto_decode_input(const cJSON *o, struct proto_msg *m, char **cause)
{
	const cJSON	*d = cJSON_GetObjectItemCaseSensitive(o, "data");
	const cJSON	*b = cJSON_GetObjectItemCaseSensitive(o, "data_base64");

	if ((d != NULL) == (b != NULL)) {
		*cause = xstrdup("give either 'data' or 'data_base64'");
		return -1;
	}
	if (d != NULL) {
		if (!cJSON_IsString(d)) {
			*cause = xstrdup("field 'data' must be a string");
			return -1;
		}
		buf_add(&m->data, d->valuestring, strlen(d->valuestring));
		return 0;
	}
	if (!cJSON_IsString(b) ||
	    proto_base64_decode(b->valuestring, &m->data) != 0) {
		*cause = xstrdup("field 'data_base64' must be base64");
		return -1;
	}
	return 0;
}

/* Messages about one request: the id, and approve/deny extras. */
static int
proto_decode_id(const cJSON *o, struct proto_msg *m, char **cause)
{
	double	id = 0;

	if (get_int(o, "id", true, 1, PROTO_MAX_ID, &id, cause) != 0)
		return -1;
	m->id = (uint32_t)id;
	if (m->type == PROTO_APPROVE || m->type == PROTO_DENY) {
		if (get_string(o, "note", false, &m->note, cause) != 0)
			return -1;
	}
	if (m->type == PROTO_APPROVE) {
		if (get_string(o, "profile", false, &m->profile, cause) != 0)
			return -1;
		if (m->profile != NULL && (m->profile[0] == '\0' ||
		    strlen(m->profile) > PROTO_MAX_NAME)) {
			*cause = xstrdup("field 'profile' must name a profile");
			return -1;
		}
		return proto_decode_mounts(o, &m->mounts, cause);
	}
	if (m->type == PROTO_INPUT)
		return proto_decode_input(o, m, cause);
	return 0;
}

/* Decode one line into a typed message. */
int
proto_decode(const char *line, size_t len, struct proto_msg *m, char **cause)
{
	const char	*end = NULL, *type;
	const cJSON	*j;
	cJSON		*o;
	size_t		 bad, i;
	double		 v = PROTO_VERSION;
	int		 rc = -1;

	if (memchr(line, '\0', len) != NULL) {
		*cause = xstrdup("line contains a NUL byte");
		return -1;
	}
	if (!proto_utf8_valid(line, len, &bad)) {
		*cause = xasprintf("invalid UTF-8 at byte %zu", bad);
		return -1;
	}
	o = cJSON_ParseWithLengthOpts(line, len, &end, 0);
	if (o == NULL) {
		end = cJSON_GetErrorPtr();
		if (end != NULL && end >= line && end <= line + len)
			*cause = xasprintf("malformed JSON at byte %zu",
			    (size_t)(end - line));
		else
			*cause = xstrdup("malformed JSON");
		return -1;
	}
	while (end != NULL && end < line + len && strchr(" \t\r", *end) != NULL)
		end++;
	if (end != NULL && end < line + len) {
		*cause = xasprintf("trailing data after the JSON object at "
		    "byte %zu", (size_t)(end - line));
		goto out;
	}
	if (!cJSON_IsObject(o)) {
		*cause = xstrdup("a message must be a JSON object");
		goto out;
	}

	/* The tag first, so even a rejected message can be matched. */
	j = cJSON_GetObjectItemCaseSensitive(o, "tag");
	if (cJSON_IsString(j) && strlen(j->valuestring) <= PROTO_MAX_NAME)
		m->tag = xstrdup(j->valuestring);
	else if (cJSON_IsNumber(j) && isfinite(j->valuedouble))
		m->tag = xasprintf("%.17g", j->valuedouble);
	else if (j != NULL && !cJSON_IsNull(j)) {
		*cause = xasprintf("field 'tag' must be a string of at most "
		    "%d bytes or a number", PROTO_MAX_NAME);
		goto out;
	}

	if (get_int(o, "v", false, 0, 1e9, &v, cause) != 0)
		goto out;
	if (v != PROTO_VERSION) {
		*cause = xasprintf("unsupported protocol version %.0f (this "
		    "console speaks %d)", v, PROTO_VERSION);
		goto out;
	}
	m->version = (int)v;

	j = cJSON_GetObjectItemCaseSensitive(o, "type");
	if (j == NULL) {
		*cause = xstrdup("missing field 'type'");
		goto out;
	}
	if (!cJSON_IsString(j)) {
		*cause = xstrdup("field 'type' must be a string");
		goto out;
	}
	type = j->valuestring;
	for (i = 0; i < sizeof proto_types / sizeof *proto_types; i++)
		if (strcmp(type, proto_types[i].name) == 0)
			break;
	if (i == sizeof proto_types / sizeof *proto_types) {
		char *safe = xstrndup(type, 64);

		safe[proto_utf8_complete(safe, strlen(safe))] = '\0';

		for (char *q = safe; *q != '\0'; q++)
			if ((unsigned char)*q < 0x20 || *q == 0x7f)
				*q = '?';
		*cause = xasprintf("unknown message type '%s'", safe);
		free(safe);
		goto out;
	}
	m->type = proto_types[i].type;
	if (m->type == PROTO_SUBMIT)
		rc = proto_decode_submit(o, m, cause);
	else if (proto_types[i].has_id)
		rc = proto_decode_id(o, m, cause);
	else
		rc = 0;
out:
	cJSON_Delete(o);
	return rc;
}

/* Free the mount changes. */
void
proto_mounts_release(struct proto_mounts *mo)
{
	strv_release(&mo->rw);
	strv_release(&mo->ro);
	strv_release(&mo->hide);
	mo->network = -1;
}

/* Deep copy (dst must be empty). */
void
proto_mounts_copy(struct proto_mounts *dst, const struct proto_mounts *src)
{
	dst->network = src->network;
	strv_append_all(&dst->rw, &src->rw);
	strv_append_all(&dst->ro, &src->ro);
	strv_append_all(&dst->hide, &src->hide);
}

/* Nothing changed? */
bool
proto_mounts_empty(const struct proto_mounts *mo)
{
	return mo->network == -1 && mo->rw.n == 0 && mo->ro.n == 0 &&
	    mo->hide.n == 0;
}

/* {"network":b,"rw":[],"ro":[],"hide":[]} with only what is set. */
cJSON *
proto_mounts_json(const struct proto_mounts *mo)
{
	cJSON	*j = cJSON_CreateObject();

	if (mo->network != -1)
		cJSON_AddBoolToObject(j, "network", mo->network == 1);
	if (mo->rw.n > 0)
		cJSON_AddItemToObject(j, "rw", json_strv(&mo->rw));
	if (mo->ro.n > 0)
		cJSON_AddItemToObject(j, "ro", json_strv(&mo->ro));
	if (mo->hide.n > 0)
		cJSON_AddItemToObject(j, "hide", json_strv(&mo->hide));
	return j;
}

/* Free a decoded message. */
void
proto_msg_release(struct proto_msg *m)
{
	free(m->tag);
	free(m->command);
	strv_release(&m->argv);
	free(m->cwd);
	free(m->agent);
	free(m->note);
	proto_mounts_release(&m->mounts);
	free(m->write_path);
	free(m->write_content);
	strv_release(&m->env);
	strv_release(&m->shell_options);
	strv_release(&m->args);
	free(m->profile);
	buf_release(&m->data);
	*m = (struct proto_msg)PROTO_MSG_INIT;
}

/* A request message as JSON: what proto_decode() reads back into m. */
cJSON *
proto_msg_json(const struct proto_msg *m)
{
	const char	*base = (const char *)m;
	cJSON		*j;
	size_t		 i;

	for (i = 0; i < sizeof proto_types / sizeof *proto_types; i++)
		if (proto_types[i].type == m->type)
			break;
	j = proto_reply_new(proto_types[i].name, proto_types[i].has_id ?
	    m->id : 0, m->tag);
	for (i = 0; i < sizeof proto_fields / sizeof *proto_fields; i++) {
		const struct proto_field *f = &proto_fields[i];
		const void		 *p = base + f->off;

		if (!(f->types & PT(m->type)))
			continue;
		switch (f->kind) {
		case PF_STRING:
			if (*(char *const *)p != NULL)
				cJSON_AddStringToObject(j, f->name,
				    *(char *const *)p);
			break;
		case PF_STRV:
			if (((const struct strv *)p)->n > 0)
				cJSON_AddItemToObject(j, f->name,
				    json_strv((const struct strv *)p));
			break;
		case PF_COUNT:
			if (*(const int *)p != 0)
				cJSON_AddNumberToObject(j, f->name,
				    *(const int *)p);
			break;
		case PF_AMOUNT:
			if (*(const double *)p != 0)
				cJSON_AddNumberToObject(j, f->name,
				    *(const double *)p);
			break;
		case PF_TRISTATE:
			if (*(const int *)p >= 0)
				cJSON_AddBoolToObject(j, f->name,
				    *(const int *)p == 1);
			break;
		case PF_BOOL:
			if (*(const bool *)p)
				cJSON_AddBoolToObject(j, f->name, true);
			break;
		}
	}
	/* The environment is an object of strings (proto_decode_env). */
	if (m->type == PROTO_SUBMIT && m->has_env) {
		cJSON *e = cJSON_AddObjectToObject(j, "env");

		for (size_t k = 0; k < m->env.n; k++) {
			const char	*eq = strchr(m->env.v[k], '=');
			char		*name;

			if (eq == NULL)
				continue;
			name = xstrndup(m->env.v[k],
			    (size_t)(eq - m->env.v[k]));
			cJSON_AddStringToObject(e, name, eq + 1);
			free(name);
		}
	}
	/* Input bytes: text as "data", anything else as "data_base64". */
	if (m->type == PROTO_INPUT) {
		if (m->data.len == 0)
			cJSON_AddStringToObject(j, "data", "");
		else if (proto_utf8_valid(m->data.data, m->data.len, NULL) &&
		    memchr(m->data.data, '\0', m->data.len) == NULL) {
			char *t = xstrndup(m->data.data, m->data.len);

			cJSON_AddStringToObject(j, "data", t);
			free(t);
		} else {
			char *t = proto_base64_encode(m->data.data,
			    m->data.len);

			cJSON_AddStringToObject(j, "data_base64", t);
			free(t);
		}
	}
	/* A file write is an object of its own (proto_decode_write). */
	if (m->type == PROTO_SUBMIT && m->write_path != NULL) {
		cJSON *w = cJSON_AddObjectToObject(j, "write");

		cJSON_AddStringToObject(w, "path", m->write_path);
		cJSON_AddStringToObject(w, "content", m->write_content != NULL ?
		    m->write_content : "");
	}
	return j;
}

/* The wire name of a reply type. */
const char *
proto_reply_name(enum proto_reply r)
{
	if ((size_t)r >= sizeof proto_reply_names / sizeof *proto_reply_names)
		return "unknown";
	return proto_reply_names[r];
}

/* Which reply j is. */
enum proto_reply
proto_reply_type(const cJSON *j)
{
	const char	*t;

	t = cJSON_GetStringValue(cJSON_GetObjectItem(j, "type"));

	for (size_t i = 0; t != NULL &&
	    i < sizeof proto_reply_names / sizeof *proto_reply_names; i++)
		if (strcmp(t, proto_reply_names[i]) == 0)
			return (enum proto_reply)i;
	return PROTO_R_UNKNOWN;
}

/* Start a reply of a known type. */
cJSON *
proto_reply(enum proto_reply r, uint32_t id, const char *tag)
{
	return proto_reply_new(proto_reply_name(r), id, tag);
}

/* Start a reply. */
cJSON *
proto_reply_new(const char *type, uint32_t id, const char *tag)
{
	cJSON	*j = cJSON_CreateObject();

	cJSON_AddNumberToObject(j, "v", PROTO_VERSION);
	cJSON_AddStringToObject(j, "type", type);
	if (id != 0)
		cJSON_AddNumberToObject(j, "id", id);
	if (tag != NULL)
		cJSON_AddStringToObject(j, "tag", tag);
	return j;
}

/* An error reply. */
cJSON *
proto_error_new(uint32_t id, const char *tag, const char *code,
    const char *message)
{
	cJSON	*j = proto_reply(PROTO_R_ERROR, id, tag);

	cJSON_AddStringToObject(j, "code", code);
	cJSON_AddStringToObject(j, "message", message);
	return j;
}

/* Encode and free. */
char *
proto_encode(cJSON *j)
{
	char	*s = json_line(j), *line;

	cJSON_Delete(j);
	line = xasprintf("%s\n", s);
	free(s);
	return line;
}
