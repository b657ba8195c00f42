/*
 * agentshape: the shapes real agents wrap their commands in, read through.
 *
 * Codex runs every command as bash -lc '...', Claude Code often as
 * bash -c '...' or sh -c '...'. When a whole command string is one shell
 * given a literal string with -c (and only options that change nothing the
 * rules judge: -l, -e, -u, -x, -v, -o pipefail ...), the allowlist judges
 * the string as if it had been sent alone (allowlist.c). zsh expands
 * differently from bash (glob qualifiers run code, =cmd, ${(e)...}): its
 * string is read through only when it holds none of those characters.
 *
 *	const char *inner = agentshape_shell_string(&script, &shell);
 */
#ifndef BWGATE_AGENTSHAPE_H
#define BWGATE_AGENTSHAPE_H

#include "shparse.h"

/* The literal string of a script that is only "SHELL [OPTIONS] -c STRING",
   with shell set to the shell's name; NULL if it is anything else. */
const char	*agentshape_shell_string(const struct sh_script *,
		    const char **shell);

#endif
