/*
 * cmd-consoles: `bwgate consoles [--json]`: the consoles running for this
 * user, one per project, found by their sockets in the runtime directory
 * and asked over their control sockets (a stale socket is skipped).
 */
#include "autoconf.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "client.h"
#include "cmd.h"
#include "display.h"
#include "jsonutil.h"
#include "path.h"
#include "protocol.h"
#include "rundir.h"
#include "xalloc.h"

/* Paths may hold anything: through the one display function. */
static void
consoles_print_safe(const char *s)
{
	fputs(display_str(s), stdout);
}

/* Ask one console who it is; NULL if nobody answers. */
static cJSON *
consoles_ask(const char *agent)
{
	char		*ctl = client_control_path(agent), *cause = NULL;
	struct client	*cl = client_connect(ctl, &cause);
	struct ucred	 cred;
	socklen_t	 len = sizeof cred;
	cJSON		*j = NULL, *out = NULL;
	const char	*type;

	free(ctl);
	free(cause);
	cause = NULL;
	if (cl == NULL)
		return NULL;
	if (client_send(cl, proto_msg_json(&(struct proto_msg){
	    .type = PROTO_LIST }), &cause) != 0)
		goto done;
	while ((j = client_recv(cl, &cause)) != NULL) {
		type = cJSON_GetStringValue(cJSON_GetObjectItem(j, "type"));
		if (type != NULL && strcmp(type, "list") == 0)
			break;
		cJSON_Delete(j);
	}
	if (j == NULL)
		goto done;
	out = cJSON_CreateObject();
	cJSON_AddStringToObject(out, "project", cJSON_GetStringValue(
	    cJSON_GetObjectItem(j, "project")));
	cJSON_AddStringToObject(out, "socket", agent);
	if (getsockopt(client_fd(cl), SOL_SOCKET, SO_PEERCRED, &cred,
	    &len) == 0)
		cJSON_AddNumberToObject(out, "pid", cred.pid);
	cJSON_AddNumberToObject(out, "requests", cJSON_GetArraySize(
	    cJSON_GetObjectItem(j, "requests")));
	cJSON_Delete(j);
done:
	free(cause);
	client_free(cl);
	return out;
}

int
cmd_consoles(int argc, char **argv)
{
	char		*dir, *cause = NULL, *path;
	bool		 json = argc > 1 && strcmp(argv[1], "--json") == 0;
	DIR		*d;
	struct dirent	*de;
	cJSON		*all = cJSON_CreateArray(), *e;
	size_t		 n;

	if (argc > 2 || (argc == 2 && !json)) {
		fprintf(stderr, "usage: bwgate consoles [--json]\n");
		cJSON_Delete(all);
		return EXIT_BWGATE_FAILED;
	}
	if ((dir = rundir_get(false, &cause)) == NULL) {
		fprintf(stderr, "bwgate: %s\n", cause);
		free(cause);
		cJSON_Delete(all);
		return EXIT_BWGATE_FAILED;
	}
	if ((d = opendir(dir)) != NULL) {
		while ((de = readdir(d)) != NULL) {
			n = strlen(de->d_name);
			if (strncmp(de->d_name, "agent", 5) != 0 || n < 10 ||
			    strcmp(de->d_name + n - 5, ".sock") != 0 ||
			    strstr(de->d_name, ".control.") != NULL ||
			    strstr(de->d_name, ".link.") != NULL ||
			    strstr(de->d_name, ".uplink.") != NULL)
				continue;
			path = path_join(dir, de->d_name);
			if ((e = consoles_ask(path)) != NULL)
				cJSON_AddItemToArray(all, e);
			free(path);
		}
		closedir(d);
	}
	free(dir);
	if (json) {
		char *s = json_line(all);

		printf("%s\n", s);
		free(s);
	} else {
		cJSON_ArrayForEach(e, all) {
			printf("pid %-8.0f %3.0f requests  ",
			    cJSON_GetNumberValue(cJSON_GetObjectItem(e,
			    "pid")), cJSON_GetNumberValue(
			    cJSON_GetObjectItem(e, "requests")));
			consoles_print_safe(cJSON_GetStringValue(
			    cJSON_GetObjectItem(e, "project")));
			printf("\n    BWGATE_SOCKET=");
			consoles_print_safe(cJSON_GetStringValue(
			    cJSON_GetObjectItem(e, "socket")));
			printf("\n");
		}
		if (cJSON_GetArraySize(all) == 0)
			printf("no console is running\n");
	}
	cJSON_Delete(all);
	return 0;
}
