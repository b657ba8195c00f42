/*
 * protocol-decode: one line of JSON into a struct proto_msg, or a one-line
 * error naming the member at fault (doc/protocol.md). Every member is
 * checked for its type and range; strings for UTF-8 and length.
 */
#include "autoconf.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "jsoncheck.h"
#include "jsonutil.h"
#include "protocol.h"
#include "xalloc.h"

#define PROTO_MAX_TIMEOUT	(7 * 24 * 3600)
#define PROTO_MAX_NAME		256
#define PROTO_MAX_DESCRIPTION	2000	/* a submit's description, bytes */

static int	proto_decode_submit(const cJSON *, struct proto_msg *,
		    char **);
static int	proto_decode_id(const cJSON *, struct proto_msg *, char **);
static int	proto_decode_mounts(const cJSON *, struct proto_mounts *,
		    char **);

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
		    strlen(e->string) > PROTO_MAX_NAME ||
		    jsoncheck_control(e->string, strlen(e->string)) >= 0) {
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
		if (paths) {
			char *f = xasprintf("%s[%zu]", name, i);
			int rc = jsoncheck_path(f, e->valuestring, cause);

			free(f);
			if (rc != 0)
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
	    get_strv(o, "hide", true, &mo->hide, cause) != 0 ||
	    get_strv(o, "domains", false, &mo->domains, cause) != 0)
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
	const cJSON	*b = cJSON_GetObjectItemCaseSensitive(w,
			    "content_base64");
	struct buf	 bytes = BUF_INIT;

	/* Content with NUL or bytes that are not UTF-8 comes as
	   "content_base64" and is carried exactly. */
	if (get_string(w, "path", true, &m->write_path, cause) != 0 ||
	    (b == NULL && get_string(w, "content", true, &m->write_content,
	    cause) != 0)) {
		char *s = xasprintf("write: %s", *cause);

		free(*cause);
		*cause = s;
		return -1;
	}
	if (b != NULL) {
		if (cJSON_GetObjectItemCaseSensitive(w, "content") != NULL ||
		    !cJSON_IsString(b) || proto_base64_decode(b->valuestring,
		    &bytes) != 0) {
			buf_release(&bytes);
			*cause = xstrdup("write: give either 'content' or "
			    "'content_base64' (base64)");
			return -1;
		}
		m->write_len = bytes.len;
		buf_add(&bytes, "", 1);
		m->write_content = buf_detach(&bytes);
	} else
		m->write_len = strlen(m->write_content);
	if (m->write_path[0] == '\0') {
		*cause = xstrdup("field 'write.path' must not be empty");
		return -1;
	}
	if (jsoncheck_path("write.path", m->write_path, cause) != 0)
		return -1;
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
	if (m->cwd != NULL && jsoncheck_path("cwd", m->cwd, cause) != 0)
		return -1;
	if (get_string(o, "agent", false, &m->agent, cause) != 0)
		return -1;
	if (m->agent != NULL && strlen(m->agent) > PROTO_MAX_NAME) {
		*cause = xasprintf("field 'agent' is longer than %d bytes",
		    PROTO_MAX_NAME);
		return -1;
	}
	if (get_string(o, "description", false, &m->description, cause) != 0)
		return -1;
	if (m->description != NULL &&
	    strlen(m->description) > PROTO_MAX_DESCRIPTION) {
		*cause = xasprintf("field 'description' is longer than %d "
		    "bytes", PROTO_MAX_DESCRIPTION);
		return -1;
	}
	if (get_string(o, "refused", false, &m->refused, cause) != 0)
		return -1;
	if (m->refused != NULL &&
	    strlen(m->refused) > PROTO_MAX_DESCRIPTION) {
		*cause = xasprintf("field 'refused' is longer than %d "
		    "bytes", PROTO_MAX_DESCRIPTION);
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
	    get_bool(o, "track_cwd", &m->track_cwd, cause) != 0 ||
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
	if (m->type == PROTO_APPROVE || m->type == PROTO_DENY ||
	    m->type == PROTO_HOST) {
		if (get_string(o, "note", false, &m->note, cause) != 0)
			return -1;
	}
	if (m->type == PROTO_HOST) {
		if (get_string(o, "answer", true, &m->answer, cause) != 0)
			return -1;
		if (strcmp(m->answer, "once") != 0 &&
		    strcmp(m->answer, "project") != 0 &&
		    strcmp(m->answer, "deny") != 0) {
			*cause = xstrdup("field 'answer' must be once, project "
			    "or deny");
			return -1;
		}
		return 0;
	}
	if (m->type == PROTO_APPROVE) {
		if (get_string(o, "profile", false, &m->profile, cause) != 0)
			return -1;
		if (m->profile != NULL && (m->profile[0] == '\0' ||
		    strlen(m->profile) > PROTO_MAX_NAME)) {
			*cause = xstrdup("field 'profile' must name a profile");
			return -1;
		}
		if (get_bool(o, "danger", &m->danger, cause) != 0)
			return -1;
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
	char		*mended = NULL, *flaw = NULL;
	size_t		 bad;
	bool		 has_id = false;
	double		 v = PROTO_VERSION;
	int		 rc = -1;

	if (memchr(line, '\0', len) != NULL) {
		*cause = xstrdup("line contains a NUL byte");
		return -1;
	}
	if (!proto_utf8_valid(line, len, &bad)) {
		/* Which member holds it, when it is inside a string. */
		if (jsoncheck_text(line, len, NULL, &flaw) != 0 &&
		    strncmp(flaw, "field '", 7) == 0)
			*cause = xasprintf("invalid UTF-8 at byte %zu (%s)",
			    bad, flaw);
		else
			*cause = xasprintf("invalid UTF-8 at byte %zu", bad);
		free(flaw);
		return -1;
	}
	/* What cJSON would cut short (\u0000) or refuse unnamed (a lone
	   surrogate) is refused naming the field; the mended copy (the same
	   text when there is none) is parsed only so the refusal still
	   carries the message's tag. */
	(void)jsoncheck_text(line, len, &mended, &flaw);
	o = cJSON_ParseWithLengthOpts(mended, len, &end, 0);
	if (o == NULL) {
		end = cJSON_GetErrorPtr();
		if (flaw != NULL)
			*cause = xstrdup(flaw);
		else if (end != NULL && end >= mended && end <= mended + len)
			*cause = xasprintf("malformed JSON at byte %zu",
			    (size_t)(end - mended));
		else
			*cause = xstrdup("malformed JSON");
		free(mended);
		free(flaw);
		return -1;
	}
	line = mended;
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

	if (flaw != NULL) {
		*cause = flaw;
		flaw = NULL;
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
	if (!proto_type_lookup(type, &m->type, &has_id)) {
		char *safe = xstrndup(type, 64);

		safe[proto_utf8_complete(safe, strlen(safe))] = '\0';

		for (char *q = safe; *q != '\0'; q++)
			if ((unsigned char)*q < 0x20 || *q == 0x7f)
				*q = '?';
		*cause = xasprintf("unknown message type '%s'", safe);
		free(safe);
		goto out;
	}
	if (m->type == PROTO_SUBMIT)
		rc = proto_decode_submit(o, m, cause);
	else if (has_id)
		rc = proto_decode_id(o, m, cause);
	else
		rc = 0;
out:
	cJSON_Delete(o);
	free(mended);
	free(flaw);
	return rc;
}
