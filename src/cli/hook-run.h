/* hook-run: a Bash call that is itself `bwgate run --domain ... -- CMD`
   (hook-run.c). */
#ifndef BWGATE_HOOK_RUN_H
#define BWGATE_HOOK_RUN_H

#include "strv.h"

/*
 * The agent asks for hosts (a local server on the host's loopback:
 * --domain private:127.0.0.1:PORT) or the network through the Bash tool
 * by calling `bwgate run --domain D... [--network] -- CMD ARG...`: one
 * simple command of literal words, no redirection, no assignment, and no
 * other option. The request then goes to the console as that bwgate run
 * on the host (a request like any other, decided by the operator), not
 * into a sandbox where no console is reachable. Fills out with run's
 * arguments after "run" and returns 1; 0 when the command is not of
 * that form.
 */
int	hook_run_args(const char *command, struct strv *out);

#endif
