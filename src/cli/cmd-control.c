/*
 * cmd-control: the operator's command-line clients of the control socket:
 * `bwgate list`, `bwgate approve ID`, `bwgate deny ID`, `bwgate kill ID`,
 * `bwgate host ID once|project|deny`, `bwgate reload`, `bwgate hosts`,
 * `bwgate stop ID` (a service).
 * Exit status: 0 done, 1 the console refused (the reason on stderr), 125
 * the console cannot be reached.
 */
#include "autoconf.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "display.h"
#include "client.h"
#include "cmd.h"
#include "jsonutil.h"
#include "protocol.h"
#include "xalloc.h"

/* The actions, as a table: name, protocol type, options they take. */
struct control_cmd {
	const char	*name;
	enum proto_type	 ptype;
	bool		 takes_id;
	bool		 takes_note;
	bool		 takes_mounts;
	bool		 takes_answer;	/* ID then once, project or deny */
};

static const struct control_cmd control_cmds[] = {
	{ "list", PROTO_LIST, false, false, false, false },
	{ "approve", PROTO_APPROVE, true, true, true, false },
	{ "deny", PROTO_DENY, true, true, false, false },
	{ "kill", PROTO_KILL, true, false, false, false },
	{ "host", PROTO_HOST, true, true, false, true },
	{ "reload", PROTO_RELOAD, false, false, false, false },
	{ "hosts", PROTO_HOSTS, false, false, false, false },
	{ "stop", PROTO_STOP, true, false, false, false },
	{ NULL, PROTO_LIST, false, false, false, false }
};

static const struct option control_options[] = {
	{ "socket", required_argument, NULL, 's' },
	{ "note", required_argument, NULL, 'm' },
	{ "json", no_argument, NULL, 'j' },
	{ "network", no_argument, NULL, 'n' },
	{ "domain", required_argument, NULL, 'd' },
	{ "rw", required_argument, NULL, 'w' },
	{ "ro", required_argument, NULL, 'r' },
	{ "hide", required_argument, NULL, 'H' },
	{ "profile", required_argument, NULL, 'p' },
	{ "danger", no_argument, NULL, 'D' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static void
control_usage(FILE *f, const struct control_cmd *cc)
{
	if (strcmp(cc->name, "list") == 0 || strcmp(cc->name, "hosts") == 0)
		fprintf(f, "usage: bwgate %s [--socket PATH] [--json]\n",
		    cc->name);
	else if (!cc->takes_id)
		fprintf(f, "usage: bwgate %s [--socket PATH]\n", cc->name);
	else if (cc->takes_answer)
		fprintf(f, "usage: bwgate %s [--socket PATH] [--note TEXT] "
		    "ID once|project|deny\n", cc->name);
	else if (cc->takes_mounts)
		fprintf(f, "usage: bwgate %s [--socket PATH] [--note TEXT] "
		    "[--profile NAME] [--network] [--danger]\n"
		    "                      [--domain HOST]... [--rw PATH]... "
		    "[--ro PATH]... [--hide PATH]... ID\n", cc->name);
	else if (cc->takes_note)
		fprintf(f, "usage: bwgate %s [--socket PATH] [--note TEXT] "
		    "ID\n", cc->name);
	else
		fprintf(f, "usage: bwgate %s [--socket PATH] ID\n", cc->name);
}

/* Text an agent controls, made visible (the display function); frees. */
static char *
control_display(const char *s)
{
	return display_escape(s != NULL ? s : "");
}

/* Print the queue as a table. */
static void
control_print_list(const cJSON *reply)
{
	const cJSON	*a = cJSON_GetObjectItem(reply, "requests"), *r;

	printf("%-6s %-10s %-6s %-20s %s\n", "ID", "STATE", "VERDICT",
	    "AGENT", "COMMAND");
	cJSON_ArrayForEach(r, a) {
		const char *agent = cJSON_GetStringValue(
		    cJSON_GetObjectItem(r, "agent"));

		const cJSON *env = cJSON_GetObjectItem(r, "env_changed"), *e;
		char *cmd = control_display(cJSON_GetStringValue(
		    cJSON_GetObjectItem(r, "command")));

		/* Put back since: it says so, as the queue does. */
		printf("%-6.0f %-10s %-6s %-20s %s\n",
		    cJSON_GetNumberValue(cJSON_GetObjectItem(r, "id")),
		    cJSON_IsTrue(cJSON_GetObjectItem(r, "undone")) ? "undone" :
		    display_str(cJSON_GetStringValue(
		    cJSON_GetObjectItem(r, "state"))),
		    display_str(cJSON_GetStringValue(
		    cJSON_GetObjectItem(r, "verdict"))),
		    agent != NULL ? display_str(agent) : "-", cmd);
		free(cmd);
		/* A host its proxy asks about (bwgate host ID ...). */
		if (cJSON_IsString(cJSON_GetObjectItem(r, "wants"))) {
			const char *k = cJSON_GetStringValue(
			    cJSON_GetObjectItem(r, "wants_resolves_to"));

			printf("%-6s wants %s%s%s%s\n", "", display_str(
			    cJSON_GetStringValue(cJSON_GetObjectItem(r,
			    "wants"))), k != NULL ? " (resolves to " : "",
			    k != NULL ? display_str(k) : "",
			    k != NULL ? ")" : "");
		}
		/* More hosts asked about at once: answered after it. */
		cJSON_ArrayForEach(e, cJSON_GetObjectItem(r, "wants_also"))
			printf("%-6s also wants %s\n", "", display_str(
			    cJSON_GetStringValue(e)));
		/* The agent's variables that differ from the console's. */
		cJSON_ArrayForEach(e, env) {
			char *n = control_display(e->string);
			char *v = control_display(cJSON_GetStringValue(e));

			printf("%-6s env %s=%s\n", "", n, v);
			free(n);
			free(v);
		}
	}
}

/* The project's services (a request's background processes kept after
   it ended), with the last lines of their output. */
static void
control_print_services(const cJSON *reply)
{
	const cJSON	*a = cJSON_GetObjectItem(reply, "services"), *sv;
	time_t		 now = time(NULL);

	if (cJSON_GetArraySize(a) == 0)
		return;
	printf("\n%-7s %-8s %-9s %-12s %s\n", "SERVICE", "AGE", "PROCESSES",
	    "PORTS", "COMMAND");
	cJSON_ArrayForEach(sv, a) {
		char	*cmd = control_display(cJSON_GetStringValue(
			    cJSON_GetObjectItem(sv, "command")));
		long	 age = (long)(now - (time_t)cJSON_GetNumberValue(
			    cJSON_GetObjectItem(sv, "since")));
		const char *tail = cJSON_GetStringValue(
			    cJSON_GetObjectItem(sv, "output_tail"));
		char	 ages[32], ports[64] = "-";
		const cJSON *pt;
		size_t	 pl = 0;

		if (age < 0)
			age = 0;
		if (age < 3600)
			snprintf(ages, sizeof ages, "%ldm%02lds", age / 60,
			    age % 60);
		else
			snprintf(ages, sizeof ages, "%ldh%02ldm", age / 3600,
			    age / 60 % 60);
		cJSON_ArrayForEach(pt, cJSON_GetObjectItem(sv, "ports"))
			if (pl + 8 < sizeof ports)
				pl += (size_t)snprintf(ports + pl, sizeof ports -
				    pl, "%s%.0f", pl > 0 ? "," : "",
				    cJSON_GetNumberValue(pt));
		printf("%-7.0f %-8s %-9.0f %-12s %s%s\n", cJSON_GetNumberValue(
		    cJSON_GetObjectItem(sv, "id")), ages, cJSON_GetNumberValue(
		    cJSON_GetObjectItem(sv, "processes")), ports, cmd,
		    cJSON_IsTrue(cJSON_GetObjectItem(sv, "stopping")) ?
		    " (stopping)" : "");
		free(cmd);
		/* Its last lines, each made visible. */
		if (tail != NULL && *tail != '\0') {
			const char *p = tail, *end = tail + strlen(tail);

			while (p < end) {
				const char *nl = memchr(p, '\n',
					    (size_t)(end - p));
				size_t	 n = nl != NULL ? (size_t)(nl - p) :
					    (size_t)(end - p);
				char	*line = xstrndup(p, n), *d;

				d = control_display(line);
				printf("%-7s | %s\n", "", d);
				free(d);
				free(line);
				p += n + (nl != NULL);
			}
		}
	}
}

/* The linked machines, one line each (bwgate hosts). */
static void
control_print_hosts(const cJSON *reply)
{
	const cJSON	*a = cJSON_GetObjectItem(reply, "hosts"), *h;
	char		 when[64], since[96];
	struct tm	 tm;
	time_t		 t;

	if (cJSON_GetArraySize(a) == 0) {
		printf("no machine linked (bwgate connect HOST:PROJECT links "
		    "one)\n");
		return;
	}
	printf("%-20s %-26s %7s %7s %s\n", "HOST", "LINK", "PENDING",
	    "RUNNING", "PROJECT");
	cJSON_ArrayForEach(h, a) {
		const char *project = cJSON_GetStringValue(
		    cJSON_GetObjectItem(h, "project"));
		char *host = control_display(cJSON_GetStringValue(
		    cJSON_GetObjectItem(h, "host")));
		char *proj = control_display(project != NULL ? project : "?");

		t = (time_t)(cJSON_GetNumberValue(cJSON_GetObjectItem(h,
		    "since_ms")) / 1000);
		if (localtime_r(&t, &tm) == NULL ||
		    strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm) == 0)
			snprintf(when, sizeof when, "?");
		snprintf(since, sizeof since, "%s %s", strcmp(
		    display_str(cJSON_GetStringValue(cJSON_GetObjectItem(h,
		    "state"))), "linked") == 0 ? "linked" : "DOWN", when);
		printf("%-20s %-26s %7.0f %7.0f %s\n", host, since,
		    cJSON_GetNumberValue(cJSON_GetObjectItem(h, "pending")),
		    cJSON_GetNumberValue(cJSON_GetObjectItem(h, "running")),
		    proj);
		free(host);
		free(proj);
	}
}

/* Print the console's answer (a list, the hosts, an error, or a plain
   yes); the exit status. */
static int
control_print_reply(const cJSON *j, enum proto_reply rt, bool json)
{
	const char	*key = rt == PROTO_R_HOSTS ? "hosts" : "requests";
	char		*s;

	if (rt == PROTO_R_ERROR) {
		fprintf(stderr, "bwgate: %s\n", display_str(
		    cJSON_GetStringValue(cJSON_GetObjectItem(j, "message"))));
		return 1;
	}
	if (rt != PROTO_R_HOSTS && rt != PROTO_R_LIST)
		return 0;
	if (json) {
		s = json_line(cJSON_GetObjectItem(j, key));
		printf("%s\n", s);
		free(s);
	} else if (rt == PROTO_R_HOSTS)
		control_print_hosts(j);
	else {
		control_print_list(j);
		control_print_services(j);
	}
	return 0;
}

/* Run one control action. */
static int
control_run(const struct control_cmd *cc, int argc, char **argv)
{
	const char	*socket = NULL, *note = NULL, *profile = NULL;
	enum proto_reply rt = PROTO_R_UNKNOWN;
	struct strv	 rw = STRV_INIT, ro = STRV_INIT, hide = STRV_INIT;
	struct strv	 domains = STRV_INIT;
	const char	*answer = NULL;
	struct client	*cl = NULL;
	char		*path = NULL, *ctl = NULL, *cause = NULL, *end;
	bool		 json = false, network = false, danger = false;
	long		 id = 0;
	int		 c, status = EXIT_BWGATE_FAILED;
	cJSON		*msg, *j;
	struct proto_msg cm = PROTO_MSG_INIT;

	optind = 1;
	while ((c = getopt_long(argc, argv, "s:m:jnd:w:r:p:Dh", control_options,
	    NULL)) != -1) {
		switch (c) {
		case 's': socket = optarg; break;
		case 'm': note = optarg; break;
		case 'j': json = true; break;
		case 'n': network = true; break;
		case 'd': strv_push(&domains, optarg); break;
		case 'w': strv_push(&rw, optarg); break;
		case 'r': strv_push(&ro, optarg); break;
		case 'H': strv_push(&hide, optarg); break;
		case 'p': profile = optarg; break;
		case 'D': danger = true; break;
		case 'h':
			control_usage(stdout, cc);
			status = 0;
			goto out;
		default:
			control_usage(stderr, cc);
			goto out;
		}
	}
	if ((note != NULL && !cc->takes_note) || (!cc->takes_mounts &&
	    (network || rw.n > 0 || ro.n > 0 || hide.n > 0 ||
	    domains.n > 0 || profile != NULL || danger)) ||
	    (json && strcmp(cc->name, "list") != 0 &&
	    strcmp(cc->name, "hosts") != 0)) {
		fprintf(stderr, "bwgate: %s: option not accepted here\n",
		    cc->name);
		control_usage(stderr, cc);
		goto out;
	}
	if (cc->takes_answer) {
		if (optind + 2 != argc || (strcmp(argv[optind + 1], "once") !=
		    0 && strcmp(argv[optind + 1], "project") != 0 &&
		    strcmp(argv[optind + 1], "deny") != 0)) {
			control_usage(stderr, cc);
			goto out;
		}
		answer = argv[--argc];
	}
	if (cc->takes_id) {
		if (optind + 1 != argc) {
			control_usage(stderr, cc);
			goto out;
		}
		id = strtol(argv[optind], &end, 10);
		if (*argv[optind] == '\0' || *end != '\0' || id < 1 ||
		    id > (long)PROTO_MAX_ID) {
			fprintf(stderr, "bwgate: %s: '%s' is not a request "
			    "id\n", cc->name, display_str(argv[optind]));
			goto out;
		}
	} else if (optind != argc) {
		control_usage(stderr, cc);
		goto out;
	}

	if ((path = client_socket_path(socket, &cause)) == NULL) {
		fprintf(stderr, "bwgate: %s; %s\n", display_str(cause),
		    client_start_hint());
		goto out;
	}
	ctl = client_control_path(path);
	if ((cl = client_connect(ctl, &cause)) == NULL) {
		fprintf(stderr, "bwgate: %s\n", display_str(cause));
		goto out;
	}
	cm.type = cc->ptype;
	cm.id = (uint32_t)id;
	if (note != NULL)
		cm.note = xstrdup(note);
	if (profile != NULL)
		cm.profile = xstrdup(profile);
	cm.danger = danger;
	if (network)
		cm.mounts.network = 1;
	strv_append_all(&cm.mounts.rw, &rw);
	strv_append_all(&cm.mounts.ro, &ro);
	strv_append_all(&cm.mounts.hide, &hide);
	strv_append_all(&cm.mounts.domains, &domains);
	if (answer != NULL)
		cm.answer = xstrdup(answer);
	msg = proto_msg_json(&cm);
	proto_msg_release(&cm);
	if (client_send(cl, msg, &cause) != 0) {
		char *why = client_refusal(cl);

		fprintf(stderr, "bwgate: %s\n",
		    display_str(why != NULL ? why : cause));
		free(why);
		status = why != NULL ? 1 : EXIT_BWGATE_FAILED;
		goto out;
	}
	/* Skip the greeting; the next message is the answer. */
	while ((j = client_recv(cl, &cause)) != NULL) {
		if ((rt = proto_reply_type(j)) != PROTO_R_HELLO)
			break;
		cJSON_Delete(j);
	}
	if (j == NULL) {
		fprintf(stderr, "bwgate: %s\n", cause != NULL ?
		    display_str(cause) : "the console closed the connection");
		goto out;
	}
	status = control_print_reply(j, rt, json);
	cJSON_Delete(j);
out:
	client_free(cl);
	free(path);
	free(ctl);
	free(cause);
	strv_release(&rw);
	strv_release(&ro);
	strv_release(&hide);
	strv_release(&domains);
	return status;
}

/* Look an action up in the table and run it. */
static int
control_dispatch(const char *name, int argc, char **argv)
{
	for (const struct control_cmd *cc = control_cmds; cc->name != NULL;
	    cc++)
		if (strcmp(cc->name, name) == 0)
			return control_run(cc, argc, argv);
	return EXIT_BWGATE_FAILED;
}

int
cmd_list(int argc, char **argv)
{
	return control_dispatch("list", argc, argv);
}

int
cmd_approve(int argc, char **argv)
{
	return control_dispatch("approve", argc, argv);
}

int
cmd_deny(int argc, char **argv)
{
	return control_dispatch("deny", argc, argv);
}

int
cmd_kill(int argc, char **argv)
{
	return control_dispatch("kill", argc, argv);
}

int
cmd_stop(int argc, char **argv)
{
	return control_dispatch("stop", argc, argv);
}

int
cmd_host(int argc, char **argv)
{
	return control_dispatch("host", argc, argv);
}

int
cmd_hosts(int argc, char **argv)
{
	return control_dispatch("hosts", argc, argv);
}

int
cmd_reload(int argc, char **argv)
{
	return control_dispatch("reload", argc, argv);
}
