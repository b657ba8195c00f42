/* test-queue: request states, deciders and the run-order rule (queue.c). */
#include "autoconf.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "queue.h"
#include "xalloc.h"

/* Add a request that is approved and writes (or not). */
static struct request *
add_approved(struct queue *q, bool writes)
{
	struct request	*r = queue_add(q);
	char		*cause = NULL;

	r->writes = writes;
	assert_int_equal(queue_decide(q, r, true, BY_OPERATOR, "op", NULL,
	    &cause), 0);
	return r;
}

/* Expect call's -1 and a cause (the caller's "cause") containing want. */
#define EXPECT_FAIL(call, want) do {					\
	cause = NULL;							\
	assert_int_equal((call), -1);					\
	assert_non_null(cause);						\
	if (strstr(cause, (want)) == NULL)				\
		fail_msg("cause '%s' lacks '%s'", cause, (want));	\
	free(cause);							\
	cause = NULL;							\
} while (0)

static void
test_ids_and_find(void **state)
{
	struct queue	 q;
	struct request	*a, *b;

	queue_init(&q);
	a = queue_add(&q);
	b = queue_add(&q);
	assert_int_equal(a->id, 1);
	assert_int_equal(b->id, 2);
	assert_int_equal(a->state, REQUEST_PENDING);
	assert_true(a->submitted > 0);
	assert_ptr_equal(queue_find(&q, 2), b);
	assert_null(queue_find(&q, 3));
	assert_int_equal(q.n, 2);
	queue_remove(&q, a);
	assert_null(queue_find(&q, 1));
	assert_int_equal(q.n, 1);
	/* Ids are never reused. */
	assert_int_equal(queue_add(&q)->id, 3);
	queue_release(&q);
}

static void
test_decide(void **state)
{
	struct queue	 q;
	struct request	*a, *b;
	char		*cause = NULL;

	queue_init(&q);
	a = queue_add(&q);
	b = queue_add(&q);
	assert_int_equal(queue_decide(&q, a, true, BY_ALLOWLIST, "rule:x",
	    NULL, &cause), 0);
	assert_int_equal(a->state, REQUEST_APPROVED);
	assert_int_equal(a->by, BY_ALLOWLIST);
	assert_string_equal(a->who, "rule:x");
	assert_false(request_ended(a));
	assert_int_equal(queue_decide(&q, b, false, BY_OPERATOR, "uid 0",
	    "too risky", &cause), 0);
	assert_int_equal(b->state, REQUEST_DENIED);
	assert_string_equal(b->note, "too risky");
	assert_true(request_ended(b));
	assert_true(b->ended >= b->submitted);
	EXPECT_FAIL(queue_decide(&q, b, true, BY_OPERATOR, NULL, NULL,
	    &cause), "cannot approve request 2: it is denied");
	EXPECT_FAIL(queue_decide(&q, a, false, BY_OPERATOR, NULL, NULL,
	    &cause), "cannot deny request 1: it is approved");
	queue_release(&q);
}

static void
test_withdraw(void **state)
{
	struct queue	 q;
	struct request	*a, *b, *c;
	char		*cause = NULL;

	queue_init(&q);
	a = queue_add(&q);
	b = add_approved(&q, true);
	c = add_approved(&q, true);
	assert_int_equal(queue_withdraw(&q, a, BY_AGENT, "gone", &cause), 0);
	assert_int_equal(a->state, REQUEST_WITHDRAWN);
	assert_string_equal(a->note, "gone");
	assert_int_equal(queue_withdraw(&q, b, BY_CONSOLE, "shutdown",
	    &cause), 0);
	assert_int_equal(b->by, BY_CONSOLE);
	assert_ptr_equal(queue_next(&q), c);
	assert_int_equal(queue_start(&q, c, &cause), 0);
	EXPECT_FAIL(queue_withdraw(&q, c, BY_AGENT, "x", &cause),
	    "cannot withdraw request 3: it is running");
	EXPECT_FAIL(queue_withdraw(&q, a, BY_AGENT, "x", &cause),
	    "it is withdrawn");
	queue_release(&q);
}

static void
test_writers_alone(void **state)
{
	struct queue	 q;
	struct request	*w1, *w2, *r1;
	char		*cause = NULL;

	queue_init(&q);
	w1 = add_approved(&q, true);
	w2 = add_approved(&q, true);
	r1 = add_approved(&q, false);
	assert_ptr_equal(queue_next(&q), w1);
	assert_int_equal(queue_start(&q, w1, &cause), 0);
	/* One writer at a time, and readers wait for it too. */
	assert_null(queue_next(&q));
	EXPECT_FAIL(queue_start(&q, w2, &cause), "request 2 must wait");
	EXPECT_FAIL(queue_start(&q, r1, &cause), "must wait");
	assert_int_equal(queue_finish(&q, w1, REQUEST_FINISHED, &cause), 0);
	assert_int_equal(w1->state, REQUEST_FINISHED);
	assert_ptr_equal(queue_next(&q), w2);
	assert_int_equal(queue_start(&q, w2, &cause), 0);
	assert_int_equal(q.running_writers, 1);
	assert_int_equal(queue_finish(&q, w2, REQUEST_KILLED, &cause), 0);
	assert_ptr_equal(queue_next(&q), r1);
	queue_release(&q);
}

/* Writers side by side (reports from recorded calls): all start, in id
   order, up to max_running. */
static void
test_writers_together(void **state)
{
	struct queue	 q;
	struct request	*w1, *w2, *r1, *w3;
	char		*cause = NULL;

	queue_init(&q);
	assert_true(q.writers_alone);
	q.writers_alone = false;
	q.max_running = 3;
	w1 = add_approved(&q, true);
	w2 = add_approved(&q, true);
	r1 = add_approved(&q, false);
	w3 = add_approved(&q, true);
	assert_int_equal(queue_start(&q, w1, &cause), 0);
	assert_ptr_equal(queue_next(&q), w2);
	assert_int_equal(queue_start(&q, w2, &cause), 0);
	assert_int_equal(queue_start(&q, r1, &cause), 0);
	assert_int_equal(q.running_writers, 2);
	/* The limit still holds. */
	assert_null(queue_next(&q));
	EXPECT_FAIL(queue_start(&q, w3, &cause), "must wait");
	assert_int_equal(queue_finish(&q, w1, REQUEST_FINISHED, &cause), 0);
	assert_ptr_equal(queue_next(&q), w3);
	assert_int_equal(queue_start(&q, w3, &cause), 0);
	assert_int_equal(q.running_writers, 2);
	queue_release(&q);
}

static void
test_readers_together(void **state)
{
	struct queue	 q;
	struct request	*r1, *r2, *w, *r3;
	char		*cause = NULL;

	queue_init(&q);
	r1 = add_approved(&q, false);
	r2 = add_approved(&q, false);
	w = add_approved(&q, true);
	r3 = add_approved(&q, false);
	assert_int_equal(queue_start(&q, r1, &cause), 0);
	assert_ptr_equal(queue_next(&q), r2);
	assert_int_equal(queue_start(&q, r2, &cause), 0);
	assert_int_equal(q.running, 2);
	/* The writer waits for the readers; the later reader waits for
	   the writer (no starvation). */
	assert_null(queue_next(&q));
	EXPECT_FAIL(queue_start(&q, r3, &cause), "must wait");
	assert_int_equal(queue_finish(&q, r1, REQUEST_FINISHED, &cause), 0);
	assert_null(queue_next(&q));
	assert_int_equal(queue_finish(&q, r2, REQUEST_TIMED_OUT, &cause), 0);
	assert_ptr_equal(queue_next(&q), w);
	assert_int_equal(queue_start(&q, w, &cause), 0);
	assert_null(queue_next(&q));
	assert_int_equal(queue_finish(&q, w, REQUEST_FAILED, &cause), 0);
	assert_ptr_equal(queue_next(&q), r3);
	assert_int_equal(q.running, 0);
	assert_int_equal(q.running_writers, 0);
	queue_release(&q);
}

static void
test_pending_does_not_block(void **state)
{
	struct queue	 q;
	struct request	*p, *a;

	queue_init(&q);
	p = queue_add(&q);
	p->writes = true;
	a = add_approved(&q, true);
	/* An undecided request does not hold back an approved one. */
	assert_ptr_equal(queue_next(&q), a);
	queue_release(&q);
}

static void
test_max_running(void **state)
{
	struct queue	 q;
	struct request	*r[3];
	char		*cause = NULL;

	queue_init(&q);
	q.max_running = 2;
	for (int i = 0; i < 3; i++)
		r[i] = add_approved(&q, false);
	assert_int_equal(queue_start(&q, r[0], &cause), 0);
	assert_int_equal(queue_start(&q, r[1], &cause), 0);
	assert_null(queue_next(&q));
	assert_int_equal(queue_finish(&q, r[0], REQUEST_FINISHED, &cause), 0);
	assert_ptr_equal(queue_next(&q), r[2]);
	queue_release(&q);
}

static void
test_finish_rules(void **state)
{
	struct queue	 q;
	struct request	*a;
	char		*cause = NULL;

	queue_init(&q);
	a = add_approved(&q, true);
	EXPECT_FAIL(queue_finish(&q, a, REQUEST_FINISHED, &cause),
	    "cannot finish request 1: it is approved");
	assert_int_equal(queue_start(&q, a, &cause), 0);
	EXPECT_FAIL(queue_finish(&q, a, REQUEST_DENIED, &cause),
	    "'denied' is not an end state");
	EXPECT_FAIL(queue_start(&q, a, &cause), "it is running");
	assert_int_equal(queue_finish(&q, a, REQUEST_TIMED_OUT, &cause), 0);
	assert_true(request_ended(a));
	assert_int_equal(q.running, 0);
	queue_release(&q);
}

static void
test_remove_running(void **state)
{
	struct queue	 q;
	struct request	*a;
	char		*cause = NULL;

	queue_init(&q);
	a = add_approved(&q, true);
	assert_int_equal(queue_start(&q, a, &cause), 0);
	queue_remove(&q, a);
	assert_int_equal(q.running, 0);
	assert_int_equal(q.running_writers, 0);
	queue_release(&q);
}

static void
test_json_and_names(void **state)
{
	struct queue	 q;
	struct request	*r;
	cJSON		*j;
	char		*cause = NULL;

	queue_init(&q);
	r = queue_add(&q);
	r->agent = xstrdup("claude");
	r->command = xstrdup("ls -l");
	r->cwd = xstrdup("/p");
	r->verdict = VERDICT_ALLOW;
	r->profile = xstrdup("readonly");
	r->asked.network = 1;
	assert_int_equal(queue_decide(&q, r, false, BY_HEADLESS, NULL,
	    "needs an operator", &cause), 0);
	j = request_json(r);
	assert_int_equal(cJSON_GetObjectItem(j, "id")->valueint, 1);
	assert_string_equal(cJSON_GetObjectItem(j, "state")->valuestring,
	    "denied");
	assert_string_equal(cJSON_GetObjectItem(j, "by")->valuestring,
	    "headless");
	assert_string_equal(cJSON_GetObjectItem(j, "verdict")->valuestring,
	    "allow");
	assert_string_equal(cJSON_GetObjectItem(j, "note")->valuestring,
	    "needs an operator");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(j,
	    "asked"), "network")));
	assert_null(cJSON_GetObjectItem(j, "edits"));
	assert_null(cJSON_GetObjectItem(j, "argv"));
	cJSON_Delete(j);
	assert_string_equal(request_state_name(REQUEST_TIMED_OUT),
	    "timed-out");
	assert_string_equal(request_state_name(REQUEST_WITHDRAWN),
	    "withdrawn");
	assert_string_equal(request_by_name(BY_TIMEOUT), "timeout");
	assert_string_equal(request_state_name((enum request_state)99),
	    "unknown");
	queue_release(&q);
}

/* A mirror of another machine's request (remote.h) is never started
   here, approved or not, writer or reader; the request behind it is. */
static void
test_mirror_never_starts(void **state)
{
	struct queue	 q;
	struct request	*m, *r;
	cJSON		*j;

	(void)state;
	queue_init(&q);
	q.writers_alone = false;
	m = add_approved(&q, false);
	m->host = xstrdup("build-box");
	assert_null(queue_next(&q));
	r = add_approved(&q, true);
	assert_ptr_equal(queue_next(&q), r);
	j = request_json(m);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(j,
	    "host")), "build-box");
	cJSON_Delete(j);
	queue_release(&q);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids_and_find),
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_withdraw),
		cmocka_unit_test(test_writers_alone),
		cmocka_unit_test(test_writers_together),
		cmocka_unit_test(test_readers_together),
		cmocka_unit_test(test_pending_does_not_block),
		cmocka_unit_test(test_max_running),
		cmocka_unit_test(test_finish_rules),
		cmocka_unit_test(test_remove_running),
		cmocka_unit_test(test_json_and_names),
		cmocka_unit_test(test_mirror_never_starts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
