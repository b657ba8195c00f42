/* test-domains: host patterns, matching and address classes (domains.c),
   the proxy's refusal hint and the report's network lines. */
#include "autoconf.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "domains.h"
#include "strv.h"
#include "xalloc.h"

static void
test_parse(void **state)
{
	static const char *const good[] = { "pypi.org", "PyPI.org.",
	    "*.pythonhosted.org", "github.com:443", "private:localhost:4873",
	    "10.0.0.1", "[::1]:8080", "private:[fd00::1]", "a_b.example", NULL };
	static const char *const bad[] = { "", "*", "*.", "a..b", "-:80",
	    "a.com:0", "a.com:65536", "a.com:", "a.com:x", "private:",
	    "http://a.com", "a com", "*.*.a.com", "a*.com", "[::1", "[zz]",
	    "a.com:80:80", "exa/mple.com", NULL };
	struct domain_pattern	p;
	char			*cause = NULL;

	(void)state;
	for (const char *const *s = good; *s != NULL; s++) {
		if (domain_pattern_parse(*s, &p, &cause) != 0)
			fail_msg("'%s' refused: %s", *s, cause);
		domain_pattern_release(&p);
	}
	for (const char *const *s = bad; *s != NULL; s++) {
		if (domain_pattern_parse(*s, &p, &cause) == 0)
			fail_msg("'%s' accepted as '%s'", *s, p.host);
		assert_non_null(strstr(cause, "not a host pattern"));
		free(cause);
		cause = NULL;
	}
	assert_int_equal(domain_pattern_parse("private:PyPI.Org.:443", &p,
	    &cause), 0);
	assert_string_equal(p.host, "pypi.org");
	assert_int_equal(p.port, 443);
	assert_true(p.private_ok);
	domain_pattern_release(&p);
}

static void
test_match(void **state)
{
	struct strv	l = STRV_INIT;
	bool		priv;

	(void)state;
	strv_push(&l, "pypi.org");
	strv_push(&l, "*.pythonhosted.org");
	strv_push(&l, "github.com:443");
	strv_push(&l, "private:localhost:4873");
	assert_int_equal(domains_match(&l, "pypi.org", 443, &priv), 0);
	assert_false(priv);
	assert_int_equal(domains_match(&l, "pypi.org", 22, &priv), 0);
	assert_int_equal(domains_match(&l, "files.pythonhosted.org", 443,
	    &priv), 1);
	/* The wildcard is for names below, not the domain itself. */
	assert_int_equal(domains_match(&l, "pythonhosted.org", 443, &priv), -1);
	assert_int_equal(domains_match(&l, "evilpythonhosted.org", 443,
	    &priv), -1);
	assert_int_equal(domains_match(&l, "github.com", 443, &priv), 2);
	assert_int_equal(domains_match(&l, "github.com", 22, &priv), -1);
	assert_int_equal(domains_match(&l, "api.github.com", 443, &priv), -1);
	assert_int_equal(domains_match(&l, "localhost", 4873, &priv), 3);
	assert_true(priv);
	assert_int_equal(domains_match(&l, "localhost", 80, &priv), -1);
	assert_int_equal(domains_match(&l, "pypi.org.evil.com", 443, &priv),
	    -1);
	/* A private: pattern wins over a plain one for the same host. */
	strv_push(&l, "private:pypi.org:443");
	assert_int_equal(domains_match(&l, "pypi.org", 443, &priv), 4);
	assert_true(priv);
	strv_release(&l);
}

/* The class of a textual address. */
static const char *
cls(const char *a)
{
	struct sockaddr_in	s4;
	struct sockaddr_in6	s6;

	memset(&s4, 0, sizeof s4);
	memset(&s6, 0, sizeof s6);
	if (inet_pton(AF_INET, a, &s4.sin_addr) == 1) {
		s4.sin_family = AF_INET;
		return domains_addr_class((struct sockaddr *)&s4, sizeof s4);
	}
	assert_int_equal(inet_pton(AF_INET6, a, &s6.sin6_addr), 1);
	s6.sin6_family = AF_INET6;
	return domains_addr_class((struct sockaddr *)&s6, sizeof s6);
}

static void
test_classes(void **state)
{
	static const char *const private[] = { "127.0.0.1", "127.8.9.1",
	    "0.0.0.0", "10.1.2.3", "172.16.0.1", "172.31.255.255",
	    "192.168.1.1", "169.254.169.254", "169.254.1.1", "100.64.0.1",
	    "100.100.100.200", "224.0.0.1", "255.255.255.255", "::1", "::",
	    "fe80::1", "fc00::1", "fd00:ec2::254", "::ffff:127.0.0.1",
	    "::ffff:10.0.0.1", "::ffff:169.254.169.254", "64:ff9b::a9fe:a9fe",
	    "ff02::1", "192.0.0.170", NULL };
	static const char *const public[] = { "8.8.8.8", "1.1.1.1",
	    "172.32.0.1", "172.15.255.255", "100.63.255.255", "100.128.0.1",
	    "151.101.0.223", "2606:4700::1111", "::ffff:8.8.8.8", NULL };

	(void)state;
	for (const char *const *a = private; *a != NULL; a++)
		if (cls(*a) == NULL)
			fail_msg("%s taken for public", *a);
	for (const char *const *a = public; *a != NULL; a++)
		if (cls(*a) != NULL)
			fail_msg("%s taken for %s", *a, cls(*a));
	assert_string_equal(cls("127.0.0.1"), "a loopback address");
	assert_string_equal(cls("169.254.169.254"), "a cloud metadata address");
	assert_string_equal(cls("::ffff:127.0.0.1"), "a loopback address");
}

static void
test_env(void **state)
{
	struct strv	env = STRV_INIT;
	char		*d;

	(void)state;
	domains_proxy_env(&env);
	assert_true(strv_contains(&env, "HTTPS_PROXY=http://127.0.0.1:3128"));
	assert_true(strv_contains(&env, "http_proxy=http://127.0.0.1:3128"));
	assert_true(strv_contains(&env, "ALL_PROXY=socks5h://127.0.0.1:3128"));
	assert_true(strv_contains(&env, "NO_PROXY=localhost,127.0.0.1,::1"));
	assert_true(strv_contains(&env, "NODE_USE_ENV_PROXY=1"));
	strv_release(&env);
	d = domains_describe(true, NULL);
	assert_string_equal(d, "any host");
	free(d);
	d = domains_describe(false, NULL);
	assert_string_equal(d, "off");
	free(d);
	strv_push(&env, "a.org");
	strv_push(&env, "b.org:443");
	d = domains_describe(false, &env);
	assert_string_equal(d, "only a.org, b.org:443");
	free(d);
	strv_release(&env);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_env),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
