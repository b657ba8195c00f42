/*
 * gitid: the host's git identity for the sandbox, without its $HOME.
 *
 * The sandbox's home is empty, so git inside knows no user.name or
 * user.email and `git commit` fails. gitid_env() asks the host's git
 * (`git -C PROJECT config --get user.name`, then user.email) and returns
 * GIT_AUTHOR_NAME/EMAIL and GIT_COMMITTER_NAME/EMAIL as NAME=VALUE, each
 * only when the given environment does not set it already (an agent's or
 * the operator's GIT_AUTHOR_* win). Nothing else of the home is read.
 */
#ifndef BWGATE_GITID_H
#define BWGATE_GITID_H

#include "strv.h"

/* Append the identity variables to out; have: NAME=VALUE already set
   (NULL: this process's environment). */
void	gitid_env(const char *project, const struct strv *have,
	    struct strv *out);

#endif
