/*
 * protocol: the message tables, line splitting, UTF-8 and base64, and the
 * request encoder (doc/protocol.md). Decoding is protocol-decode.c,
 * replies protocol-reply.c.
 */
#include "autoconf.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "jsonutil.h"
#include "protocol.h"
#include "xalloc.h"

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
	{ "host",	PROTO_HOST,	true },
	{ "hosts",	PROTO_HOSTS,	false },
	{ "stop",	PROTO_STOP,	true },
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
	{ "description", PF_STRING, offsetof(struct proto_msg, description),
	  PT(PROTO_SUBMIT) },
	{ "refused", PF_STRING, offsetof(struct proto_msg, refused),
	  PT(PROTO_SUBMIT) },
	{ "timeout", PF_COUNT, offsetof(struct proto_msg, timeout_s),
	  PT(PROTO_SUBMIT) },
	{ "note", PF_STRING, offsetof(struct proto_msg, note),
	  PT(PROTO_APPROVE) | PT(PROTO_DENY) | PT(PROTO_HOST) },
	{ "answer", PF_STRING, offsetof(struct proto_msg, answer),
	  PT(PROTO_HOST) },
	{ "network", PF_TRISTATE, offsetof(struct proto_msg, mounts.network),
	  PT(PROTO_SUBMIT) | PT(PROTO_APPROVE) },
	{ "rw", PF_STRV, offsetof(struct proto_msg, mounts.rw),
	  PT(PROTO_SUBMIT) | PT(PROTO_APPROVE) },
	{ "ro", PF_STRV, offsetof(struct proto_msg, mounts.ro),
	  PT(PROTO_SUBMIT) | PT(PROTO_APPROVE) },
	{ "hide", PF_STRV, offsetof(struct proto_msg, mounts.hide),
	  PT(PROTO_SUBMIT) | PT(PROTO_APPROVE) },
	{ "domains", PF_STRV, offsetof(struct proto_msg, mounts.domains),
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
	{ "track_cwd", PF_BOOL, offsetof(struct proto_msg, track_cwd),
	  PT(PROTO_SUBMIT) },
	{ "shell_options", PF_STRV, offsetof(struct proto_msg, shell_options),
	  PT(PROTO_SUBMIT) },
	{ "args", PF_STRV, offsetof(struct proto_msg, args),
	  PT(PROTO_SUBMIT) },
	{ "profile", PF_STRING, offsetof(struct proto_msg, profile),
	  PT(PROTO_APPROVE) },
	{ "danger", PF_BOOL, offsetof(struct proto_msg, danger),
	  PT(PROTO_APPROVE) },
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

/* A message type by name; false when there is none. */
bool
proto_type_lookup(const char *name, enum proto_type *t, bool *has_id)
{
	for (size_t i = 0; i < sizeof proto_types / sizeof *proto_types; i++)
		if (strcmp(name, proto_types[i].name) == 0) {
			*t = proto_types[i].type;
			*has_id = proto_types[i].has_id;
			return true;
		}
	return false;
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

/* Free the mount changes. */
void
proto_mounts_release(struct proto_mounts *mo)
{
	strv_release(&mo->rw);
	strv_release(&mo->ro);
	strv_release(&mo->hide);
	strv_release(&mo->domains);
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
	strv_append_all(&dst->domains, &src->domains);
}

/* Nothing changed? */
bool
proto_mounts_empty(const struct proto_mounts *mo)
{
	return mo->network == -1 && mo->rw.n == 0 && mo->ro.n == 0 &&
	    mo->hide.n == 0 && mo->domains.n == 0;
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
	if (mo->domains.n > 0)
		cJSON_AddItemToObject(j, "domains", json_strv(&mo->domains));
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
	free(m->description);
	free(m->refused);
	free(m->note);
	free(m->answer);
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
	j = proto_envelope(proto_types[i].name, proto_types[i].has_id ?
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
		const char *t = m->write_content != NULL ? m->write_content :
		    "";
		size_t	    n = m->write_content != NULL ? m->write_len : 0;

		if (proto_utf8_valid(t, n, NULL) && memchr(t, '\0', n) ==
		    NULL)
			cJSON_AddStringToObject(w, "content", t);
		else {
			char *e = proto_base64_encode(t, n);

			cJSON_AddStringToObject(w, "content_base64", e);
			free(e);
		}
	}
	return j;
}
