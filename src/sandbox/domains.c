/* domains: host patterns and address classes for the proxy (domains.h). */
#include "autoconf.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domains.h"
#include "xalloc.h"

#define DOMAINS_HOST_MAX	253

/* A name: labels of [a-z0-9_-], 1..63 each, dots between. */
static bool
domains_name_valid(const char *s)
{
	size_t	label = 0, len = strlen(s);

	if (len == 0 || len > DOMAINS_HOST_MAX)
		return false;
	for (const char *p = s; ; p++) {
		if (*p == '.' || *p == '\0') {
			/* No empty label, none longer than 63, no hyphen at
			   either end. */
			if (label == 0 || label > 63 || p[-1] == '-' ||
			    p[-(long)label] == '-')
				return false;
			if (*p == '\0')
				return true;
			label = 0;
			continue;
		}
		if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) ||
		    *p == '-' || *p == '_'))
			return false;
		label++;
	}
}

bool
domains_host_valid(const char *host, char *norm, size_t size)
{
	struct in6_addr	a6;
	size_t		n = strlen(host);

	if (n == 0 || n >= size || n > DOMAINS_HOST_MAX + 2)
		return false;
	if (host[0] == '[') {
		if (host[n - 1] != ']' || n < 3)
			return false;
		memcpy(norm, host + 1, n - 2);
		norm[n - 2] = '\0';
		return inet_pton(AF_INET6, norm, &a6) == 1;
	}
	if (strchr(host, ':') != NULL) {	/* bare IPv6 (SOCKS) */
		snprintf(norm, size, "%s", host);
		return inet_pton(AF_INET6, norm, &a6) == 1;
	}
	for (size_t i = 0; i <= n; i++)
		norm[i] = (char)tolower((unsigned char)host[i]);
	if (n > 1 && norm[n - 1] == '.')
		norm[n - 1] = '\0';
	return domains_name_valid(norm);
}

int
domain_pattern_parse(const char *s, struct domain_pattern *p, char **cause)
{
	char		 buf[DOMAINS_HOST_MAX + 16], norm[DOMAINS_HOST_MAX + 16];
	const char	*rest = s, *colon;
	char		*end;
	long		 port = 0;
	size_t		 hl;

	memset(p, 0, sizeof *p);
	if (strncmp(rest, "private:", 8) == 0) {
		p->private_ok = true;
		rest += 8;
	}
	/* HOST, [V6], HOST:PORT, [V6]:PORT */
	if (rest[0] == '[') {
		const char *close = strchr(rest, ']');

		colon = close != NULL && close[1] == ':' ? close + 1 : NULL;
		if (close == NULL || (close[1] != '\0' && colon == NULL))
			goto bad;
	} else
		colon = strrchr(rest, ':');
	hl = colon != NULL ? (size_t)(colon - rest) : strlen(rest);
	if (hl == 0 || hl >= sizeof buf)
		goto bad;
	memcpy(buf, rest, hl);
	buf[hl] = '\0';
	if (colon != NULL) {
		errno = 0;
		port = strtol(colon + 1, &end, 10);
		if (errno != 0 || *end != '\0' || colon[1] == '\0' ||
		    !isdigit((unsigned char)colon[1]) || port < 1 ||
		    port > 65535)
			goto bad;
	}
	if (strncmp(buf, "*.", 2) == 0) {
		if (!domains_host_valid(buf + 2, norm, sizeof norm) ||
		    strchr(norm, ':') != NULL)
			goto bad;
		p->host = xasprintf("*.%s", norm);
	} else {
		if (!domains_host_valid(buf, norm, sizeof norm))
			goto bad;
		p->host = xstrdup(norm);
	}
	p->port = (int)port;
	return 0;
bad:
	*cause = xasprintf("'%s' is not a host pattern (HOST, *.DOMAIN, "
	    "[private:]HOST:PORT)", s);
	return -1;
}

void
domain_pattern_release(struct domain_pattern *p)
{
	free(p->host);
	p->host = NULL;
}

int
domains_check(const struct strv *list, char **cause)
{
	struct domain_pattern	p;

	for (size_t i = 0; i < list->n; i++) {
		if (domain_pattern_parse(list->v[i], &p, cause) != 0)
			return -1;
		domain_pattern_release(&p);
	}
	return 0;
}

/* Does a parsed pattern allow host:port? */
static bool
domain_pattern_allows(const struct domain_pattern *p, const char *host,
    int port)
{
	if (p->port != 0 && p->port != port)
		return false;
	if (strncmp(p->host, "*.", 2) == 0) {
		size_t hl = strlen(host), sl = strlen(p->host + 1);

		/* ".example.com" at the end, with a label before it. */
		return hl > sl && strcmp(host + hl - sl, p->host + 1) == 0;
	}
	return strcmp(p->host, host) == 0;
}

int
domains_match(const struct strv *list, const char *host, int port,
    bool *private_ok)
{
	struct domain_pattern	p;
	char			*cause = NULL;
	int			 found = -1;

	*private_ok = false;
	for (size_t i = 0; i < list->n; i++) {
		if (domain_pattern_parse(list->v[i], &p, &cause) != 0) {
			free(cause);
			cause = NULL;
			continue;	/* checked before; never matches */
		}
		if (domain_pattern_allows(&p, host, port)) {
			/* A private: pattern wins over a plain one. */
			if (found < 0 || (p.private_ok && !*private_ok)) {
				found = (int)i;
				*private_ok = p.private_ok;
			}
		}
		domain_pattern_release(&p);
	}
	return found;
}

/* The class of an IPv4 address (host order), or NULL when public. */
static const char *
domains_v4_class(uint32_t a)
{
	if ((a >> 24) == 127)
		return "a loopback address";
	if ((a >> 24) == 0)
		return "an unspecified address";
	if ((a >> 24) == 10 || (a >> 20) == (172 << 4 | 1) ||
	    (a >> 16) == (192 << 8 | 168))
		return "a private address";
	if (a == 0xa9fea9fe)	/* 169.254.169.254 */
		return "a cloud metadata address";
	if ((a >> 16) == (169 << 8 | 254))
		return "a link-local address";
	if (a == 0x646464c8)			/* 100.100.100.200 */
		return "a cloud metadata address";
	if ((a >> 22) == (100 << 2 | 1))	/* 100.64.0.0/10 */
		return "a shared (carrier-grade NAT) address";
	if ((a >> 8) == 0xc00000)		/* 192.0.0.0/24 */
		return "a special-purpose address";
	if ((a >> 28) >= 14)
		return "a multicast or reserved address";
	return NULL;
}

bool
domains_addr_same(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)(const void *)a)->
		    sin_addr.s_addr == ((const struct sockaddr_in *)
		    (const void *)b)->sin_addr.s_addr;
	if (a->sa_family == AF_INET6)
		return memcmp(&((const struct sockaddr_in6 *)(const void *)a)->
		    sin6_addr, &((const struct sockaddr_in6 *)(const void *)b)->
		    sin6_addr, sizeof(struct in6_addr)) == 0;
	return false;
}

/*
 * Is sa one of this host's own addresses? Asked each time (interfaces
 * come and go during a run); an IPv4-mapped IPv6 address is compared as
 * the IPv4 one. If the list cannot be read, every address counts as the
 * host's own (refused without "private:"): fail closed.
 */
static bool
domains_host_own(const struct sockaddr *sa)
{
	struct ifaddrs		*ifs, *i;
	struct sockaddr_in	 v4;
	bool			 own = false;

	if (sa->sa_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(
	    &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr)) {
		memset(&v4, 0, sizeof v4);
		v4.sin_family = AF_INET;
		memcpy(&v4.sin_addr, ((const struct sockaddr_in6 *)
		    (const void *)sa)->sin6_addr.s6_addr + 12, 4);
		sa = (const struct sockaddr *)&v4;
	}
	if (getifaddrs(&ifs) != 0)
		return true;
	for (i = ifs; i != NULL && !own; i = i->ifa_next)
		own = i->ifa_addr != NULL && domains_addr_same(i->ifa_addr, sa);
	freeifaddrs(ifs);
	return own;
}

char *
domains_pattern(const char *host, int port, bool private_ok)
{
	bool	v6 = strchr(host, ':') != NULL;

	return xasprintf("%s%s%s%s:%d", private_ok ? "private:" : "",
	    v6 ? "[" : "", host, v6 ? "]" : "", port);
}

/* The class of an address by its number alone. */
static const char *
domains_addr_number_class(const struct sockaddr *sa, socklen_t len)
{
	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const void *)sa;

		return domains_v4_class(ntohl(in->sin_addr.s_addr));
	}
	if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const void *)sa;
		const uint8_t *b = in6->sin6_addr.s6_addr;
		static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0,
		    0, 0, 0xff, 0xff };
		static const uint8_t ec2[16] = { 0xfd, 0, 0x0e, 0xc2, 0, 0,
		    0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, };

		if (memcmp(b, mapped, 12) == 0 || (memcmp(b, mapped, 10) ==
		    0 && b[10] == 0 && b[11] == 0 && (b[12] | b[13]) != 0)) {
			uint32_t a = (uint32_t)b[12] << 24 |
			    (uint32_t)b[13] << 16 | (uint32_t)b[14] << 8 | b[15];

			return domains_v4_class(a);
		}
		if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr))
			return "a loopback address";
		if (IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr))
			return "an unspecified address";
		if (memcmp(b, ec2, 4) == 0)
			return "a cloud metadata address";
		if ((b[0] & 0xfe) == 0xfc)
			return "a private address";
		if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
			return "a link-local address";
		if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0)
			return "a site-local address";
		if (b[0] == 0xff)
			return "a multicast address";
		/* 64:ff9b::/96 (NAT64) embeds IPv4 */
		if (b[0] == 0 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b) {
			uint32_t a = (uint32_t)b[12] << 24 |
			    (uint32_t)b[13] << 16 | (uint32_t)b[14] << 8 | b[15];

			return domains_v4_class(a);
		}
		return NULL;
	}
	return "not an internet address";
}

const char *
domains_addr_class(const struct sockaddr *sa, socklen_t len)
{
	const char	*cls = domains_addr_number_class(sa, len);

	if (cls == NULL && domains_host_own(sa))
		cls = "an address of this host";
	return cls;
}

char *
domains_describe(bool any, const struct strv *domains)
{
	char	*list, *s;

	if (any)
		return xstrdup("any host");
	if (domains == NULL || domains->n == 0)
		return xstrdup("off");
	list = strv_join(domains, ", ", false);
	s = xasprintf("only %s", list);
	free(list);
	return s;
}

void
domains_proxy_env(struct strv *out)
{
	static const char *const names[] = { "HTTP_PROXY", "HTTPS_PROXY",
	    "http_proxy", "https_proxy", NULL };

	for (const char *const *n = names; *n != NULL; n++)
		strv_pushf(out, "%s=%s", *n, DOMAINS_PROXY_URL);
	strv_pushf(out, "ALL_PROXY=socks5h://%s:%d", DOMAINS_PROXY_ADDR,
	    DOMAINS_PROXY_PORT);
	strv_pushf(out, "all_proxy=socks5h://%s:%d", DOMAINS_PROXY_ADDR,
	    DOMAINS_PROXY_PORT);
	strv_push(out, "NO_PROXY=localhost,127.0.0.1,::1");
	strv_push(out, "no_proxy=localhost,127.0.0.1,::1");
	/* Node 24+ reads the variables only when told to. */
	strv_push(out, "NODE_USE_ENV_PROXY=1");
	/* npm and yarn have their own names for it. */
	strv_pushf(out, "npm_config_proxy=%s", DOMAINS_PROXY_URL);
	strv_pushf(out, "npm_config_https_proxy=%s", DOMAINS_PROXY_URL);
	strv_pushf(out, "YARN_HTTP_PROXY=%s", DOMAINS_PROXY_URL);
	strv_pushf(out, "YARN_HTTPS_PROXY=%s", DOMAINS_PROXY_URL);
	/* The proxy tells them; they have no resolver inside. */
	strv_pushf(out, "BWGATE_PROXY=%s", DOMAINS_PROXY_URL);
}
