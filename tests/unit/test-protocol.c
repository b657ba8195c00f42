/* test-protocol: the console protocol codec (protocol.c). */
#include "autoconf.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "protocol.h"
#include "xalloc.h"

/* Decode s; return 0 or -1, leaving the cause in *cause. */
static int
decode(const char *s, struct proto_msg *m, char **cause)
{
	*m = (struct proto_msg)PROTO_MSG_INIT;
	*cause = NULL;
	return proto_decode(s, strlen(s), m, cause);
}

/* Expect s to be refused with a cause containing want. */
static void
expect_error(const char *s, const char *want)
{
	struct proto_msg	 m;
	char			*cause;

	if (decode(s, &m, &cause) == 0)
		fail_msg("accepted: %s", s);
	assert_non_null(cause);
	if (strstr(cause, want) == NULL)
		fail_msg("for %s: cause '%s' lacks '%s'", s, cause, want);
	free(cause);
	proto_msg_release(&m);
}

static void
test_submit_command(void **state)
{
	struct proto_msg	 m;
	char			*cause;

	assert_int_equal(decode("{\"v\":1,\"type\":\"submit\",\"tag\":\"t1\","
	    "\"command\":\"make -j4\",\"cwd\":\"/p/src\",\"agent\":\"claude\","
	    "\"timeout\":30,\"network\":true,\"rw\":[\"/var/cache\"],"
	    "\"ro\":[\"/opt\"],\"hide\":[\"/p/secret\"],\"future\":{}}",
	    &m, &cause), 0);
	assert_int_equal(m.type, PROTO_SUBMIT);
	assert_int_equal(m.version, 1);
	assert_string_equal(m.tag, "t1");
	assert_string_equal(m.command, "make -j4");
	assert_int_equal(m.argv.n, 0);
	assert_string_equal(m.cwd, "/p/src");
	assert_string_equal(m.agent, "claude");
	assert_int_equal(m.timeout_s, 30);
	assert_int_equal(m.mounts.network, 1);
	assert_int_equal(m.mounts.rw.n, 1);
	assert_string_equal(m.mounts.rw.v[0], "/var/cache");
	assert_string_equal(m.mounts.ro.v[0], "/opt");
	assert_string_equal(m.mounts.hide.v[0], "/p/secret");
	proto_msg_release(&m);
}

static void
test_submit_argv(void **state)
{
	struct proto_msg	 m;
	char			*cause;

	/* No "v": version 1 is assumed; a numeric tag becomes a string. */
	assert_int_equal(decode("{\"type\":\"submit\",\"tag\":7,"
	    "\"argv\":[\"ls\",\"-l\",\"a b\"]}", &m, &cause), 0);
	assert_null(m.command);
	assert_int_equal(m.argv.n, 3);
	assert_string_equal(m.argv.v[2], "a b");
	assert_string_equal(m.tag, "7");
	assert_null(m.cwd);
	assert_int_equal(m.timeout_s, 0);
	assert_int_equal(m.mounts.network, -1);
	assert_true(proto_mounts_empty(&m.mounts));
	proto_msg_release(&m);
}

static void
test_id_messages(void **state)
{
	struct proto_msg	 m;
	char			*cause;

	assert_int_equal(decode("{\"type\":\"approve\",\"id\":42,\"note\":"
	    "\"ok\",\"rw\":[\"/x\"]}", &m, &cause), 0);
	assert_int_equal(m.type, PROTO_APPROVE);
	assert_int_equal(m.id, 42);
	assert_string_equal(m.note, "ok");
	assert_string_equal(m.mounts.rw.v[0], "/x");
	proto_msg_release(&m);

	assert_int_equal(decode("{\"type\":\"deny\",\"id\":4294967295}",
	    &m, &cause), 0);
	assert_int_equal(m.id, 4294967295u);
	assert_null(m.note);
	proto_msg_release(&m);

	assert_int_equal(decode("{\"type\":\"cancel\",\"id\":1}", &m,
	    &cause), 0);
	assert_int_equal(m.type, PROTO_CANCEL);
	proto_msg_release(&m);
	assert_int_equal(decode("{\"type\":\"kill\",\"id\":3}", &m, &cause),
	    0);
	assert_int_equal(m.type, PROTO_KILL);
	proto_msg_release(&m);
	assert_int_equal(decode("{\"type\":\"rerun\",\"id\":3}", &m, &cause),
	    0);
	assert_int_equal(m.type, PROTO_RERUN);
	proto_msg_release(&m);
	assert_int_equal(decode(" {\"type\":\"list\"} \r", &m, &cause), 0);
	assert_int_equal(m.type, PROTO_LIST);
	proto_msg_release(&m);
}

static void
test_bad_json(void **state)
{
	expect_error("", "malformed JSON");
	expect_error("{", "malformed JSON");
	expect_error("{\"type\":\"submit\",}", "malformed JSON");
	expect_error("not json", "malformed JSON");
	expect_error("{\"type\":\"list\"} {}", "trailing data");
	expect_error("[1,2]", "must be a JSON object");
	expect_error("\"submit\"", "must be a JSON object");
	expect_error("null", "must be a JSON object");
}

static void
test_bad_utf8(void **state)
{
	struct proto_msg	 m;
	char			*cause;
	const char		 nul[] = "{\"type\":\"list\"}\0x";

	expect_error("{\"type\":\"submit\",\"command\":\"\xff\"}",
	    "invalid UTF-8 at byte 28");
	expect_error("{\"command\":\"\xc0\xaf\"}", "invalid UTF-8");
	expect_error("{\"command\":\"\xed\xa0\x80\"}", "invalid UTF-8");
	expect_error("{\"command\":\"\xf4\x90\x80\x80\"}", "invalid UTF-8");
	expect_error("{\"command\":\"\xe2\x82\"}", "invalid UTF-8");
	expect_error("\xe2\x82", "invalid UTF-8 at byte 0");
	*(&m) = (struct proto_msg)PROTO_MSG_INIT;
	assert_int_equal(proto_decode(nul, sizeof nul - 1, &m, &cause), -1);
	assert_non_null(strstr(cause, "NUL byte"));
	free(cause);
	/* Valid multi-byte text passes. */
	assert_int_equal(decode("{\"type\":\"submit\",\"command\":"
	    "\"echo h\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"}", &m, &cause), 0);
	proto_msg_release(&m);
}

static void
test_bad_fields(void **state)
{
	struct proto_msg	 m;
	char			*cause;

	expect_error("{}", "missing field 'type'");
	expect_error("{\"type\":3}", "field 'type' must be a string");
	expect_error("{\"type\":\"frobnicate\"}",
	    "unknown message type 'frobnicate'");
	expect_error("{\"v\":2,\"type\":\"list\"}",
	    "unsupported protocol version 2");
	expect_error("{\"v\":\"1\",\"type\":\"list\"}", "field 'v'");
	expect_error("{\"type\":\"submit\"}", "missing field 'command'");
	expect_error("{\"type\":\"submit\",\"command\":\"  \"}",
	    "must not be empty");
	expect_error("{\"type\":\"submit\",\"command\":5}",
	    "field 'command' must be a string");
	expect_error("{\"type\":\"submit\",\"command\":\"a\",\"argv\":[\"a\"]}",
	    "not both");
	expect_error("{\"type\":\"submit\",\"argv\":[]}", "must not be empty");
	expect_error("{\"type\":\"submit\",\"argv\":[\"\"]}",
	    "'argv[0]' must not be empty");
	expect_error("{\"type\":\"submit\",\"argv\":\"ls\"}",
	    "must be an array of strings");
	expect_error("{\"type\":\"submit\",\"argv\":[\"ls\",1]}",
	    "field 'argv[1]' must be a string");
	expect_error("{\"type\":\"submit\",\"command\":\"a\",\"cwd\":\"rel\"}",
	    "'cwd' must be an absolute path");
	expect_error("{\"type\":\"submit\",\"command\":\"a\",\"cwd\":1}",
	    "'cwd' must be a string");
	expect_error("{\"type\":\"submit\",\"command\":\"a\",\"timeout\":0}",
	    "'timeout' must be a whole number");
	expect_error("{\"type\":\"submit\",\"command\":\"a\",\"timeout\":1.5}",
	    "'timeout'");
	expect_error("{\"type\":\"submit\",\"command\":\"a\",\"timeout\":\"9\"}",
	    "'timeout'");
	expect_error("{\"type\":\"submit\",\"command\":\"a\",\"timeout\":1e99}",
	    "'timeout'");
	expect_error("{\"type\":\"submit\",\"command\":\"a\",\"network\":1}",
	    "'network' must be true or false");
	expect_error("{\"type\":\"submit\",\"command\":\"a\",\"rw\":[\"x\"]}",
	    "'rw[0]' must be an absolute path");
	expect_error("{\"type\":\"submit\",\"command\":\"a\",\"ro\":{}}",
	    "'ro' must be an array");
	expect_error("{\"type\":\"approve\"}", "missing field 'id'");
	expect_error("{\"type\":\"approve\",\"id\":0}", "'id'");
	expect_error("{\"type\":\"deny\",\"id\":-1}", "'id'");
	expect_error("{\"type\":\"deny\",\"id\":4294967296}", "'id'");
	expect_error("{\"type\":\"deny\",\"id\":\"3\"}", "'id'");
	expect_error("{\"type\":\"deny\",\"id\":3,\"note\":[]}",
	    "'note' must be a string");
	expect_error("{\"type\":\"list\",\"tag\":{}}", "field 'tag'");

	/* A rejected message still yields its tag for the error reply. */
	assert_int_equal(decode("{\"type\":\"nope\",\"tag\":\"x9\"}", &m,
	    &cause), -1);
	assert_string_equal(m.tag, "x9");
	free(cause);
	proto_msg_release(&m);
}

static void
test_reader_lines(void **state)
{
	struct proto_reader	 rd = PROTO_READER_INIT;
	char			*line;
	size_t			 len;

	proto_reader_feed(&rd, "ab", 2);
	assert_int_equal(proto_reader_next(&rd, &line, &len),
	    PROTO_LINE_NONE);
	assert_int_equal(proto_reader_pending(&rd), 2);
	proto_reader_feed(&rd, "c\nde\n\nf", 7);
	assert_int_equal(proto_reader_next(&rd, &line, &len), PROTO_LINE_OK);
	assert_int_equal(len, 3);
	assert_string_equal(line, "abc");
	assert_int_equal(proto_reader_next(&rd, &line, &len), PROTO_LINE_OK);
	assert_string_equal(line, "de");
	assert_int_equal(proto_reader_next(&rd, &line, &len), PROTO_LINE_OK);
	assert_int_equal(len, 0);
	assert_int_equal(proto_reader_next(&rd, &line, &len),
	    PROTO_LINE_NONE);
	assert_int_equal(proto_reader_pending(&rd), 1);
	proto_reader_release(&rd);
}

static void
test_reader_too_long(void **state)
{
	struct proto_reader	 rd = PROTO_READER_INIT;
	char			*line, chunk[64];
	size_t			 len;

	rd.max = 10;
	/* An overlong line arriving in pieces: reported once, skipped. */
	memset(chunk, 'x', sizeof chunk);
	proto_reader_feed(&rd, chunk, 8);
	assert_int_equal(proto_reader_next(&rd, &line, &len),
	    PROTO_LINE_NONE);
	proto_reader_feed(&rd, chunk, 8);
	assert_int_equal(proto_reader_next(&rd, &line, &len),
	    PROTO_LINE_TOO_LONG);
	proto_reader_feed(&rd, chunk, 64);
	assert_int_equal(proto_reader_next(&rd, &line, &len),
	    PROTO_LINE_NONE);
	proto_reader_feed(&rd, "xx\nok\n", 6);
	assert_int_equal(proto_reader_next(&rd, &line, &len), PROTO_LINE_OK);
	assert_string_equal(line, "ok");
	/* Overlong with its newline in the same chunk. */
	proto_reader_feed(&rd, "0123456789ABC\nnext\n", 19);
	assert_int_equal(proto_reader_next(&rd, &line, &len),
	    PROTO_LINE_TOO_LONG);
	assert_int_equal(proto_reader_next(&rd, &line, &len), PROTO_LINE_OK);
	assert_string_equal(line, "next");
	/* Exactly the limit is fine. */
	proto_reader_feed(&rd, "0123456789\n", 11);
	assert_int_equal(proto_reader_next(&rd, &line, &len), PROTO_LINE_OK);
	assert_int_equal(len, 10);
	proto_reader_release(&rd);
}

static void
test_utf8_complete(void **state)
{
	const char	euro[] = "a\xe2\x82\xac";

	assert_int_equal(proto_utf8_complete(euro, 4), 4);
	assert_int_equal(proto_utf8_complete(euro, 3), 1);
	assert_int_equal(proto_utf8_complete(euro, 2), 1);
	assert_int_equal(proto_utf8_complete(euro, 1), 1);
	assert_int_equal(proto_utf8_complete("\xf0\x9f\x98", 3), 0);
	assert_int_equal(proto_utf8_complete("ab", 2), 2);
	assert_int_equal(proto_utf8_complete("a\xff", 2), 2);
	assert_int_equal(proto_utf8_complete("", 0), 0);
}

static void
test_base64(void **state)
{
	const char	*in = "\x00\xff" "abc\n";
	const char	*want[] = { "", "AA==", "AP8=", "AP9h", "AP9hYg==",
			    "AP9hYmM=", "AP9hYmMK" };
	struct buf	 b = BUF_INIT;

	for (size_t n = 0; n <= 6; n++) {
		char *s = proto_base64_encode(in, n);

		assert_string_equal(s, want[n]);
		buf_reset(&b);
		assert_int_equal(proto_base64_decode(s, &b), 0);
		assert_int_equal(b.len, n);
		if (n > 0)
			assert_memory_equal(b.data, in, n);
		free(s);
	}
	assert_int_equal(proto_base64_decode("abc", &b), -1);
	assert_int_equal(proto_base64_decode("a=bc", &b), -1);
	assert_int_equal(proto_base64_decode("ab!c", &b), -1);
	assert_int_equal(proto_base64_decode("=AAA", &b), -1);
	buf_release(&b);
}

static void
test_encode(void **state)
{
	cJSON	*j = proto_out_json(&(struct proto_out){
	    .type = PROTO_R_QUEUED, .id = 12, .tag = "t", .verdict = "ask" });
	char	*line;
	cJSON	*back;

	line = proto_encode(j);
	assert_int_equal(line[strlen(line) - 1], '\n');
	assert_null(strchr(line, '\n') + 1 == line + strlen(line) ? NULL :
	    "newline inside");
	back = cJSON_Parse(line);
	assert_non_null(back);
	assert_int_equal(cJSON_GetObjectItem(back, "v")->valueint, 1);
	assert_string_equal(cJSON_GetObjectItem(back, "type")->valuestring,
	    "queued");
	assert_int_equal(cJSON_GetObjectItem(back, "id")->valueint, 12);
	assert_string_equal(cJSON_GetObjectItem(back, "tag")->valuestring,
	    "t");
	cJSON_Delete(back);
	free(line);

	/* Newlines in values stay escaped: one message, one line. */
	j = proto_error_new(0, NULL, "invalid", "two\nlines");
	line = proto_encode(j);
	assert_ptr_equal(strchr(line, '\n'), line + strlen(line) - 1);
	assert_null(strstr(line, "\"id\""));
	assert_non_null(strstr(line, "\"code\":\"invalid\""));
	free(line);
}

static void
test_mounts(void **state)
{
	struct proto_mounts	 a = PROTO_MOUNTS_INIT, b = PROTO_MOUNTS_INIT;
	cJSON			*j;
	char			*s;

	assert_true(proto_mounts_empty(&a));
	a.network = 0;
	assert_false(proto_mounts_empty(&a));
	strv_push(&a.rw, "/w");
	proto_mounts_copy(&b, &a);
	j = proto_mounts_json(&b);
	s = cJSON_PrintUnformatted(j);
	assert_string_equal(s, "{\"network\":false,\"rw\":[\"/w\"]}");
	free(s);
	cJSON_Delete(j);
	proto_mounts_release(&a);
	proto_mounts_release(&b);
	assert_true(proto_mounts_empty(&b));
	assert_string_equal(proto_type_name(PROTO_RERUN), "rerun");
}

/* Two string vectors hold the same strings. */
static void
assert_strv_equal(const struct strv *a, const struct strv *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++)
		assert_string_equal(a->v[i], b->v[i]);
}

/* A string member: both NULL or equal. */
static void
assert_str_same(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

/* Encode, then decode: the message comes back as it was. */
static void
roundtrip(const struct proto_msg *m)
{
	struct proto_msg back = PROTO_MSG_INIT;
	char		*line, *cause = NULL;

	line = proto_encode(proto_msg_json(m));
	assert_int_equal(line[strlen(line) - 1], '\n');
	if (proto_decode(line, strlen(line) - 1, &back, &cause) != 0)
		fail_msg("%s: %s", line, cause);
	assert_int_equal(back.type, m->type);
	assert_int_equal(back.id, m->id);
	assert_str_same(back.tag, m->tag);
	assert_str_same(back.command, m->command);
	assert_strv_equal(&back.argv, &m->argv);
	assert_str_same(back.cwd, m->cwd);
	assert_str_same(back.agent, m->agent);
	assert_int_equal(back.timeout_s, m->timeout_s);
	assert_str_same(back.note, m->note);
	assert_int_equal(back.mounts.network, m->mounts.network);
	assert_strv_equal(&back.mounts.rw, &m->mounts.rw);
	assert_strv_equal(&back.mounts.ro, &m->mounts.ro);
	assert_strv_equal(&back.mounts.hide, &m->mounts.hide);
	assert_int_equal(back.has_env, m->has_env);
	assert_strv_equal(&back.env, &m->env);
	assert_int_equal(back.stdin_stream, m->stdin_stream);
	assert_int_equal(back.merge_output, m->merge_output);
	assert_strv_equal(&back.shell_options, &m->shell_options);
	assert_strv_equal(&back.args, &m->args);
	assert_str_same(back.profile, m->profile);
	assert_int_equal(back.data.len, m->data.len);
	if (m->data.len > 0)
		assert_memory_equal(back.data.data, m->data.data, m->data.len);
	proto_msg_release(&back);
	free(line);
}

/* Every request type round-trips through the one encoder. */
static void
test_msg_roundtrip(void **state)
{
	static const enum proto_type types[] = { PROTO_SUBMIT, PROTO_CANCEL,
	    PROTO_LIST, PROTO_APPROVE, PROTO_DENY, PROTO_KILL, PROTO_RERUN,
	    PROTO_INPUT, PROTO_INPUT_END, PROTO_HOSTS };
	struct proto_msg m;

	(void)state;
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
		m = (struct proto_msg)PROTO_MSG_INIT;
		m.type = types[i];
		m.tag = xstrdup("t\"1");
		switch (m.type) {
		case PROTO_SUBMIT:
			m.command = xstrdup("echo \"hi\" | tr a-z A-Z\n");
			m.cwd = xstrdup("/p/q");
			m.agent = xstrdup("agent \u00e9");
			m.timeout_s = 30;
			m.mounts.network = 1;
			strv_push(&m.mounts.rw, "/w");
			strv_push(&m.mounts.ro, "/r");
			strv_push(&m.mounts.hide, "/h");
			m.has_env = true;
			strv_push(&m.env, "A=x=y");	/* sorted */
			strv_push(&m.env, "Z=\u00e9");
			m.stdin_stream = true;
			m.merge_output = true;
			strv_push(&m.shell_options, "-e");
			strv_push(&m.shell_options, "-o");
			strv_push(&m.shell_options, "pipefail");
			strv_push(&m.args, "_");
			strv_push(&m.args, "one");
			break;
		case PROTO_INPUT:
			buf_add(&m.data, "a\0b\xff", 4);	/* base64 */
			m.id = 42;
			break;
		case PROTO_APPROVE:
			m.mounts.network = 0;
			strv_push(&m.mounts.rw, "/x");
			m.profile = xstrdup("git-write");
			/* FALLTHROUGH */
		case PROTO_DENY:
			m.note = xstrdup("why");
			/* FALLTHROUGH */
		default:
			if (m.type != PROTO_LIST && m.type != PROTO_HOSTS)
				m.id = 42;
			break;
		}
		roundtrip(&m);
		proto_msg_release(&m);
	}
	/* An argv submit, without tag or options. */
	m = (struct proto_msg)PROTO_MSG_INIT;
	strv_push(&m.argv, "ls");
	strv_push(&m.argv, "-l");
	roundtrip(&m);
	proto_msg_release(&m);
	/* Text input, and empty input. */
	m = (struct proto_msg)PROTO_MSG_INIT;
	m.type = PROTO_INPUT;
	m.id = 1;
	buf_add(&m.data, "hello\n", 6);
	roundtrip(&m);
	proto_msg_release(&m);
	m = (struct proto_msg)PROTO_MSG_INIT;
	m.type = PROTO_INPUT;
	m.id = 1;
	roundtrip(&m);
	proto_msg_release(&m);
}

/* Every reply type has one name, read back by proto_reply_type(). */
static void
test_reply_types(void **state)
{
	cJSON	*j;

	(void)state;
	for (int r = PROTO_R_HELLO; r < PROTO_R_UNKNOWN; r++) {
		j = proto_out_json(&(struct proto_out){
		    .type = (enum proto_reply)r, .id = 7, .tag = "t" });
		assert_int_equal(proto_reply_type(j), r);
		assert_string_equal(cJSON_GetObjectItem(j, "type")->valuestring,
		    proto_reply_name((enum proto_reply)r));
		cJSON_Delete(j);
	}
	j = proto_envelope("from-the-future", 0, NULL);
	assert_int_equal(proto_reply_type(j), PROTO_R_UNKNOWN);
	cJSON_Delete(j);
	j = proto_error_new(1, NULL, "bad", "why");
	assert_int_equal(proto_reply_type(j), PROTO_R_ERROR);
	cJSON_Delete(j);
}

/* Each reply carries the members of its type, and only those; a member
   left unset is not sent; output that is not text travels as base64. */
static void
test_reply_members(void **state)
{
	struct strv	 argv = STRV_INIT;
	int		 code = 0, pid = 42;
	bool		 writes = false;
	cJSON		*j;

	(void)state;
	strv_push(&argv, "bwrap");
	j = proto_out_json(&(struct proto_out){ .type = PROTO_R_QUEUED,
	    .id = 3, .command = "ls", .cwd = "/p", .verdict = "allow",
	    .reason = "r", .writes_project = &writes, .bwrap_argv = &argv,
	    .state = "finished", .pid = &pid });
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(j,
	    "command")), "ls");
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(j, "writes_project")));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j,
	    "bwrap_argv")), 1);
	/* Not queued's members, and unset ones: absent. */
	assert_null(cJSON_GetObjectItem(j, "state"));
	assert_null(cJSON_GetObjectItem(j, "pid"));
	assert_null(cJSON_GetObjectItem(j, "rule"));
	cJSON_Delete(j);

	/* exit status 0 is sent (a pointer says it is set). */
	j = proto_out_json(&(struct proto_out){ .type = PROTO_R_RESULT,
	    .id = 3, .state = "finished", .exit_status = &code });
	assert_true(cJSON_IsNumber(cJSON_GetObjectItem(j, "exit_status")));
	assert_int_equal(cJSON_GetObjectItem(j, "exit_status")->valueint, 0);
	assert_null(cJSON_GetObjectItem(j, "note"));
	cJSON_Delete(j);

	j = proto_out_json(&(struct proto_out){ .type = PROTO_R_OUTPUT,
	    .id = 3, .stream = "stdout", .data = "a\0b", .data_len = 3 });
	assert_null(cJSON_GetObjectItem(j, "data"));
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(j,
	    "data_base64")), "YQBi");
	cJSON_Delete(j);
	j = proto_out_json(&(struct proto_out){ .type = PROTO_R_OUTPUT,
	    .id = 3, .stream = "stderr", .data = "hi\n", .data_len = 3 });
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(j,
	    "data")), "hi\n");
	cJSON_Delete(j);
	strv_release(&argv);
}

/* env, stdin, merge_output, shell_options, args; input; approve profile. */
static void
test_agent_fields(void **state)
{
	struct proto_msg	 m;
	char			*cause;

	assert_int_equal(decode("{\"type\":\"submit\",\"command\":\"echo $1\","
	    "\"env\":{\"Z\":\"1\",\"A\":\"x=y\"},\"stdin\":true,"
	    "\"merge_output\":true,\"shell_options\":[\"-eu\",\"-o\","
	    "\"pipefail\",\"+x\"],\"args\":[\"_\",\"one\"]}", &m, &cause), 0);
	assert_true(m.has_env);
	assert_int_equal(m.env.n, 2);
	assert_string_equal(m.env.v[0], "A=x=y");	/* sorted */
	assert_string_equal(m.env.v[1], "Z=1");
	assert_true(m.stdin_stream);
	assert_true(m.merge_output);
	assert_int_equal(m.shell_options.n, 4);
	assert_string_equal(m.args.v[1], "one");
	proto_msg_release(&m);

	assert_int_equal(decode("{\"type\":\"input\",\"id\":3,"
	    "\"data_base64\":\"YQBi\"}", &m, &cause), 0);
	assert_int_equal(m.type, PROTO_INPUT);
	assert_int_equal(m.id, 3);
	assert_int_equal(m.data.len, 3);
	assert_memory_equal(m.data.data, "a\0b", 3);
	proto_msg_release(&m);
	assert_int_equal(decode("{\"type\":\"input-end\",\"id\":3}", &m,
	    &cause), 0);
	assert_int_equal(m.type, PROTO_INPUT_END);
	proto_msg_release(&m);
	assert_int_equal(decode("{\"type\":\"approve\",\"id\":2,"
	    "\"profile\":\"git-write\"}", &m, &cause), 0);
	assert_string_equal(m.profile, "git-write");
	proto_msg_release(&m);

	expect_error("{\"type\":\"submit\",\"command\":\"x\",\"env\":[]}",
	    "field 'env' must be an object");
	expect_error("{\"type\":\"submit\",\"command\":\"x\",\"env\":"
	    "{\"A\":1}}", "field 'env' must be an object");
	expect_error("{\"type\":\"submit\",\"command\":\"x\",\"env\":"
	    "{\"A=B\":\"1\"}}", "invalid variable name");
	expect_error("{\"type\":\"submit\",\"command\":\"x\",\"stdin\":1}",
	    "field 'stdin' must be true or false");
	expect_error("{\"type\":\"submit\",\"command\":\"x\","
	    "\"shell_options\":[\"--rcfile\"]}", "not a supported shell option");
	expect_error("{\"type\":\"submit\",\"command\":\"x\","
	    "\"shell_options\":[\"-o\",\"evil\"]}", "'-o evil'");
	expect_error("{\"type\":\"submit\",\"command\":\"x\","
	    "\"shell_options\":[\"-c\"]}", "not a supported shell option");
	expect_error("{\"type\":\"submit\",\"argv\":[\"x\"],"
	    "\"args\":[\"a\"]}", "go with 'command'");
	expect_error("{\"type\":\"input\",\"id\":1}",
	    "either 'data' or 'data_base64'");
	expect_error("{\"type\":\"input\",\"id\":1,\"data_base64\":\"@@\"}",
	    "must be base64");
	expect_error("{\"type\":\"approve\",\"id\":1,\"profile\":\"\"}",
	    "must name a profile");
	assert_true(proto_shell_option_ok("-euxv", NULL));
	assert_false(proto_shell_option_ok("-i", NULL));
	assert_false(proto_shell_option_ok("-s", NULL));
	assert_true(proto_shell_option_ok("+o", "pipefail"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_submit_command),
		cmocka_unit_test(test_submit_argv),
		cmocka_unit_test(test_id_messages),
		cmocka_unit_test(test_bad_json),
		cmocka_unit_test(test_bad_utf8),
		cmocka_unit_test(test_bad_fields),
		cmocka_unit_test(test_reader_lines),
		cmocka_unit_test(test_reader_too_long),
		cmocka_unit_test(test_utf8_complete),
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_encode),
		cmocka_unit_test(test_mounts),
		cmocka_unit_test(test_msg_roundtrip),
		cmocka_unit_test(test_reply_types),
		cmocka_unit_test(test_reply_members),
		cmocka_unit_test(test_agent_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
