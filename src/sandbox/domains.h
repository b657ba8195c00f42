/*
 * domains: the hosts a command may reach through its proxy (pure).
 *
 * A pattern is "[private:]HOST[:PORT]": HOST is a name ("pypi.org"), a
 * name under a domain ("*.pythonhosted.org": any name below it, not the
 * domain itself), an IPv4 address or a bracketed IPv6 address; without
 * PORT any port matches. Only a "private:" pattern may lead to loopback,
 * private, link-local or cloud-metadata addresses (a local registry, a dev
 * server); any other is refused there, whatever the name resolves to.
 * Named groups ("@npm") are expanded before patterns get here (the policy
 * layer's netgroups.h).
 *
 *	if (domains_check(&pol.domains, &cause) != 0) ... refuse the request
 *	const char *why = NULL;
 *	int i = domains_match(&pol.domains, "pypi.org", 443);
 *	if (i >= 0 && (why = domains_addr_refusal(sa, private)) == NULL) ...
 */
#ifndef BWGATE_DOMAINS_H
#define BWGATE_DOMAINS_H

#include <stdbool.h>
#include <sys/socket.h>

#include "strv.h"

/* The address and port of the proxy inside every sandbox with domains. */
#define DOMAINS_PROXY_ADDR	"127.0.0.1"
#define DOMAINS_PROXY_PORT	3128
#define DOMAINS_PROXY_URL	"http://127.0.0.1:3128"
/* Room for a normalised host (a name of 253 or an IPv6 address). */
#define DOMAINS_HOST_BUF	272

struct domain_pattern {
	char	*host;		/* lower case, no trailing dot; "*.x" kept */
	int	 port;		/* 0: any */
	bool	 private_ok;
};

/* Parse one pattern; -1 with cause naming it. */
int	 domain_pattern_parse(const char *, struct domain_pattern *,
	    char **cause);
void	 domain_pattern_release(struct domain_pattern *);
/* Check every pattern of a list; -1 with cause naming the first bad one. */
int	 domains_check(const struct strv *, char **cause);
/* Is host a valid name or address to ask for (CONNECT, SOCKS)? Fills
   norm (lower case, no trailing dot, IPv6 without brackets). */
bool	 domains_host_valid(const char *host, char *norm, size_t size);
/* The index of the first pattern allowing host:port (host normalised),
   or -1; *private_ok says whether it was a "private:" one. */
int	 domains_match(const struct strv *, const char *host, int port,
	    bool *private_ok);
/* Why an address may not be reached without "private:" ("a loopback
   address", ...), or NULL when it may. IPv4-mapped IPv6 is judged as
   IPv4. Unknown families are refused. An address of one of this host's
   own interfaces (getifaddrs, every family) is "an address of this
   host": a service bound to 0.0.0.0 answers there. */
const char *domains_addr_class(const struct sockaddr *, socklen_t);
/* Are two addresses the same (family, address; the port is ignored)? */
bool	 domains_addr_same(const struct sockaddr *, const struct sockaddr *);
/* The pattern --domain accepts for host:port ("[::1]:8080" for IPv6),
   with "private:" in front when asked (caller frees). */
char	*domains_pattern(const char *host, int port, bool private_ok);
/* For people: "off", "any host", or "only a, b, c" (caller frees). */
char	*domains_describe(bool any, const struct strv *domains);
/* The environment variables that send clients to the proxy, as
   NAME=VALUE (appended). */
void	 domains_proxy_env(struct strv *out);

#endif
