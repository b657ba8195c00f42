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

/*
 * Commands that run a command over what they read or find: xargs and
 * find -exec. Each gives the command(s) it runs as new simple commands,
 * with one glob word ("*", SH_W_GLOB) where the input or the found names
 * go, so the rules judge them as they judge a pattern: only a read-only
 * grammar in which no word can become an option that runs or writes
 * passes (allowlist-view.c). The words are shallow copies of the
 * original's: release with agentshape_cmds_release, never the words.
 */
/* xargs [-0 -r -t -x -n N -L N -P N -s N -d C ...] [COMMAND [ARGS]]:
   COMMAND ARGS * (echo * without a command), carrying xargs's
   assignments and redirections. NULL if anything else (-I, -a, -p ...). */
struct sh_cmd	*agentshape_xargs(const struct sh_cmd *);
/* find ... -exec|-execdir CMD ... ;|+ ...: the find without its -exec
   parts (out[0], with find's redirections) and each part's command with
   {} as the glob word (out[1..]); *n the count. NULL if there is no
   -exec, an -ok, or a part without its end. */
struct sh_cmd	*agentshape_find_exec(const struct sh_cmd *, size_t *n);
void		 agentshape_cmds_release(struct sh_cmd *, size_t n);

/*
 * for loops over a word list: "for f in a *.py; do wc -l "$f"; done" is
 * judged as its body once per word of the list, with $f, ${f}, "$f" and
 * "${f}" replaced by that word (a pattern stays a pattern). The view has
 * the script's commands with each loop body unrolled so; only when the one
 * construct the parser did not model is 'for', the loops are not nested,
 * their lists hold only literal words and patterns, and an unquoted $f
 * cannot be split (a literal word with blanks or glob characters). Its
 * commands share the script's words: release it with
 * agentshape_view_release before the script.
 */
struct agentshape_view {
	struct sh_script	 s;
	bool			*owned;	/* per command: its words array is
					   the view's */
};
bool	agentshape_unroll_for(const struct sh_script *,
	    struct agentshape_view *);
void	agentshape_view_release(struct agentshape_view *);
