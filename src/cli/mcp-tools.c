/* mcp-tools: the MCP server's tools: names, descriptions, the JSON Schemas
   of their input and structured output, and dispatch. */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "jsoncheck.h"
#include "mcp.h"
#include "xalloc.h"

struct mcp_tool {
	const char	*name;
	const char	*title;
	const char	*description;
	const char	*input;		/* JSON Schema, as text */
	const char	*output;	/* JSON Schema of structuredContent */
	bool		 read_only;	/* annotations.readOnlyHint */
	/* Handlers reply themselves (now, or later for run and writes);
	   token is the call's progressToken or NULL. */
	void		(*fn)(struct mcp *, const cJSON *id,
			    const cJSON *args, const cJSON *token);
};

#define CHANGES_SCHEMA \
	"\"changes\":{\"type\":[\"object\",\"null\"],\"description\":" \
	"\"paths relative to the project: created, modified, deleted, " \
	"renamed ({from,to})\"}," \
	"\"changes_scope\":{\"type\":\"string\",\"description\":" \
	"\"exact (every file-changing call resolved), or project (the " \
	"whole project compared; the text says why)\"}"

#define WRITE_SCHEMA \
	"\"id\":{\"type\":\"integer\"},\"state\":{\"type\":\"string\"}," \
	"\"verdict\":{\"type\":\"string\"},\"reason\":{\"type\":\"string\"}," \
	"\"by\":{\"type\":\"string\"},\"note\":{\"type\":\"string\"}," \
	"\"violations\":{\"type\":\"array\"}"

/* The tools, in the order tools/list gives them. */
static const struct mcp_tool mcp_tools[] = {
	{ "run", "Run a shell command through the bwgate console",
	  "Run a shell command line (bash -c) in the project through the "
	  "bwgate console: it is classified by the allowlist, may wait for "
	  "the operator's approval, runs in a bubblewrap sandbox (project "
	  "writable, .git and .bwgate.json read-only, home hidden, network "
	  "off unless asked) and returns the exit status, output, the files "
	  "it changed and what the sandbox refused. A denial comes back as "
	  "an error with the operator's note.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"command\":{\"type\":\"string\",\"minLength\":1,"
	  "\"description\":\"shell command line, run as bash -c\"},"
	  "\"description\":{\"type\":\"string\",\"maxLength\":2000,"
	  "\"description\":\"why you run it, in a few words: the operator "
	  "reads it beside the command\"},"
	  "\"cwd\":{\"type\":\"string\",\"description\":\"working directory "
	  "inside the project (relative to the project root or absolute); "
	  "default: the project root\"},"
	  "\"timeout\":{\"type\":\"integer\",\"minimum\":1,"
	  "\"maximum\":604800,\"description\":\"seconds before the command "
	  "is killed\"},"
	  "\"network\":{\"type\":\"boolean\",\"description\":\"ask for "
	  "network access to any host (needs the operator's approval)\"},"
	  "\"domains\":{\"type\":\"array\",\"items\":{\"type\":"
	  "\"string\"},\"description\":\"ask for these hosts only, reached "
	  "through bwgate's proxy (HTTP_PROXY and ALL_PROXY are set): "
	  "HOST, *.DOMAIN, HOST:PORT, private:HOST:PORT for a local server, "
	  "@GROUP (npm, pypi, crates, go, github, ...); needs the operator's "
	  "approval\"},"
	  "\"env\":{\"type\":\"object\",\"additionalProperties\":"
	  "{\"type\":\"string\"},\"description\":\"variables to set for "
	  "the command, over this server's environment (secret-looking names "
	  "pass only when the configuration names them)\"}},"
	  "\"required\":[\"command\"],\"additionalProperties\":false}",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"id\":{\"type\":\"integer\"},\"state\":{\"type\":\"string\"},"
	  "\"exit_status\":{\"type\":[\"integer\",\"null\"]},"
	  "\"verdict\":{\"type\":\"string\"},\"reason\":{\"type\":\"string\"},"
	  "\"stdout\":{\"type\":\"string\"},\"stderr\":{\"type\":\"string\"},"
	  "\"stdout_truncated\":{\"type\":\"boolean\"},"
	  "\"stderr_truncated\":{\"type\":\"boolean\"},"
	  CHANGES_SCHEMA ","
	  "\"violations\":{\"type\":\"array\"},"
	  "\"network\":{\"type\":\"object\"},"
	  "\"by\":{\"type\":\"string\"},\"note\":{\"type\":\"string\"},"
	  "\"error\":{\"type\":\"string\"}}}",
	  false, mcp_run_tool },
	{ "read_file", "Read a file of the project",
	  "Read a text file inside the project, optionally a range of lines "
	  "(offset: first line, 1-based; limit: number of lines). Paths are "
	  "relative to the project root; '..', symbolic links and paths "
	  "outside the project are refused.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\",\"minLength\":1},"
	  "\"path_base64\":{\"type\":\"string\",\"description\":"
	  "\"instead of path, for a name that is not UTF-8: its bytes in "
	  "base64, as list_directory gives them (name_base64)\"},"
	  "\"offset\":{\"type\":\"integer\",\"minimum\":1},"
	  "\"limit\":{\"type\":\"integer\",\"minimum\":1}},"
	  "\"additionalProperties\":false}",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\"},\"content\":{\"type\":\"string\"},"
	  "\"first_line\":{\"type\":\"integer\"},"
	  "\"lines\":{\"type\":\"integer\"},"
	  "\"total_lines\":{\"type\":\"integer\"},"
	  "\"truncated\":{\"type\":\"boolean\"},"
	  "\"error\":{\"type\":\"string\"}}}",
	  true, mcp_read_file },
	{ "write_file", "Write a file of the project",
	  "Create or replace a file inside the project with the given "
	  "content (missing directories are created). The write is a "
	  "request to the bwgate console like a command: the operator sees "
	  "the diff and may have to approve it. Protected paths (.git at any "
	  "depth, .bwgate.json, the agents' configuration, the configured "
	  "list) are refused. Give the text as content, or bytes that are "
	  "not UTF-8 text (NUL included) as content_base64.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\",\"minLength\":1},"
	  "\"path_base64\":{\"type\":\"string\",\"description\":"
	  "\"instead of path, for a name that is not UTF-8: its bytes in "
	  "base64, as list_directory gives them (name_base64)\"},"
	  "\"content\":{\"type\":\"string\"},"
	  "\"content_base64\":{\"type\":\"string\"}},"
	  "\"additionalProperties\":false}",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\"},\"bytes\":{\"type\":\"integer\"},"
	  WRITE_SCHEMA "," CHANGES_SCHEMA ",\"error\":{\"type\":\"string\"}}}",
	  false, mcp_write_file },
	{ "edit_file", "Edit a file of the project",
	  "Replace exact text in a file inside the project: old_text must "
	  "occur exactly once unless replace_all is true. Like write_file it "
	  "goes through the bwgate console. Protected paths are refused.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\",\"minLength\":1},"
	  "\"path_base64\":{\"type\":\"string\",\"description\":"
	  "\"instead of path, for a name that is not UTF-8: its bytes in "
	  "base64, as list_directory gives them (name_base64)\"},"
	  "\"old_text\":{\"type\":\"string\",\"minLength\":1},"
	  "\"new_text\":{\"type\":\"string\"},"
	  "\"replace_all\":{\"type\":\"boolean\"}},"
	  "\"required\":[\"old_text\",\"new_text\"],"
	  "\"additionalProperties\":false}",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\"},"
	  "\"replacements\":{\"type\":\"integer\"},"
	  "\"diff\":{\"type\":\"string\"},"
	  WRITE_SCHEMA "," CHANGES_SCHEMA ",\"error\":{\"type\":\"string\"}}}",
	  false, mcp_edit_file },
	{ "list_directory", "List a directory of the project",
	  "List the entries of a directory inside the project (default: the "
	  "project root) with their type and size. A name that is not valid "
	  "UTF-8 also comes as name_base64 (its exact bytes): pass that as "
	  "path_base64 to any file tool to name the file.",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\"},"
	  "\"path_base64\":{\"type\":\"string\",\"description\":"
	  "\"instead of path, for a name that is not UTF-8: its bytes in "
	  "base64, as list_directory gives them (name_base64)\"}},"
	  "\"additionalProperties\":false}",
	  "{\"type\":\"object\",\"properties\":{"
	  "\"path\":{\"type\":\"string\"},"
	  "\"path_base64\":{\"type\":\"string\"},"
	  "\"entries\":{\"type\":\"array\","
	  "\"items\":{\"type\":\"object\",\"properties\":{"
	  "\"name\":{\"type\":\"string\"},"
	  "\"name_base64\":{\"type\":\"string\"},"
	  "\"type\":{\"type\":\"string\"},"
	  "\"size\":{\"type\":\"integer\"}}}},"
	  "\"truncated\":{\"type\":\"boolean\"},"
	  "\"error\":{\"type\":\"string\"}}}",
	  true, mcp_list_directory },
	{ NULL, NULL, NULL, NULL, NULL, false, NULL }
};

/* The tools/list result. */
cJSON *
mcp_tools_list(void)
{
	cJSON	*res = cJSON_CreateObject(), *a, *t, *ann;

	a = cJSON_AddArrayToObject(res, "tools");
	for (const struct mcp_tool *e = mcp_tools; e->name != NULL; e++) {
		t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "name", e->name);
		cJSON_AddStringToObject(t, "title", e->title);
		cJSON_AddStringToObject(t, "description", e->description);
		cJSON_AddItemToObject(t, "inputSchema", cJSON_Parse(e->input));
		cJSON_AddItemToObject(t, "outputSchema",
		    cJSON_Parse(e->output));
		ann = cJSON_AddObjectToObject(t, "annotations");
		cJSON_AddBoolToObject(ann, "readOnlyHint", e->read_only);
		cJSON_AddBoolToObject(ann, "openWorldHint", false);
		cJSON_AddItemToArray(a, t);
	}
	return res;
}

/* Dispatch a tools/call. */
void
mcp_tools_call(struct mcp *m, const cJSON *id, const cJSON *params)
{
	const cJSON	*name = cJSON_GetObjectItem(params, "name");
	const cJSON	*args = cJSON_GetObjectItem(params, "arguments");
	const cJSON	*meta = cJSON_GetObjectItem(params, "_meta");
	const cJSON	*tok = cJSON_GetObjectItem(meta, "progressToken");

	if (!cJSON_IsString(name)) {
		mcp_error(id, RPC_INVALID_PARAMS, "tools/call needs a 'name' "
		    "string");
		return;
	}
	if (args != NULL && !cJSON_IsObject(args)) {
		mcp_error(id, RPC_INVALID_PARAMS, "'arguments' must be an "
		    "object");
		return;
	}
	for (const struct mcp_tool *e = mcp_tools; e->name != NULL; e++) {
		if (strcmp(e->name, name->valuestring) != 0)
			continue;
		e->fn(m, id, args, cJSON_IsString(tok) ||
		    cJSON_IsNumber(tok) ? tok : NULL);
		return;
	}
	mcp_error(id, RPC_INVALID_PARAMS, "unknown tool '%s'",
	    name->valuestring);
}

/* A string argument. */
int
mcp_arg_string(const cJSON *args, const char *name, bool required,
    const char **out, char **cause)
{
	const cJSON	*v = cJSON_GetObjectItem(args, name);

	*out = NULL;
	if (v == NULL && !required)
		return 0;
	if (!cJSON_IsString(v)) {
		*cause = xasprintf("argument '%s' must be a string", name);
		return -1;
	}
	/* Paths: no control character, not over-long (jsoncheck.h). */
	if (strcmp(name, "path") == 0 || strcmp(name, "cwd") == 0) {
		char *f = xasprintf("arguments.%s", name);
		int rc = jsoncheck_path(f, v->valuestring, cause);

		free(f);
		if (rc != 0)
			return -1;
	}
	*out = v->valuestring;
	return 0;
}

/* A whole-number argument in [min, max]; *out unchanged when absent. */
int
mcp_arg_int(const cJSON *args, const char *name, long min, long max,
    long *out, char **cause)
{
	const cJSON	*v = cJSON_GetObjectItem(args, name);
	double		 d;

	if (v == NULL)
		return 0;
	d = cJSON_GetNumberValue(v);
	if (!cJSON_IsNumber(v) || d != (double)(long)d || d < min ||
	    d > max) {
		*cause = xasprintf("argument '%s' must be a whole number from "
		    "%ld to %ld", name, min, max);
		return -1;
	}
	*out = (long)d;
	return 0;
}

/* An array of strings; out unchanged when absent. */
int
mcp_arg_strv(const cJSON *args, const char *name, struct strv *out,
    char **cause)
{
	const cJSON	*v = cJSON_GetObjectItem(args, name), *e;

	if (v == NULL)
		return 0;
	if (!cJSON_IsArray(v)) {
		*cause = xasprintf("argument '%s' must be an array of strings",
		    name);
		return -1;
	}
	cJSON_ArrayForEach(e, v) {
		if (!cJSON_IsString(e)) {
			*cause = xasprintf("argument '%s' must be an array of "
			    "strings", name);
			return -1;
		}
		strv_push(out, e->valuestring);
	}
	return 0;
}

/* A boolean argument; *out unchanged when absent. */
int
mcp_arg_bool(const cJSON *args, const char *name, bool *out, char **cause)
{
	const cJSON	*v = cJSON_GetObjectItem(args, name);

	if (v == NULL)
		return 0;
	if (!cJSON_IsBool(v)) {
		*cause = xasprintf("argument '%s' must be true or false", name);
		return -1;
	}
	*out = cJSON_IsTrue(v);
	return 0;
}
