/*
 * allowlist-int: what allowlist.c (classify), allowlist-layers.c and
 * allowlist-trust.c share. Private to src/policy.
 */
#ifndef BWGATE_ALLOWLIST_INT_H
#define BWGATE_ALLOWLIST_INT_H

#include "allowlist.h"
#include "rules.h"
#include "shparse.h"


enum layer_kind {
	LAYER_DEFAULT,
	LAYER_USER,
	LAYER_USER_PROJECT,	/* the user's rules for this project only */
	LAYER_SESSION,		/* the operator's rules for one console's
				   life (allowlist_set_session_file) */
	LAYER_PROJECT,
};

struct layer {
	enum layer_kind	 kind;
	struct rulefile	 rf;
	bool		 trusted;	/* allow rules and profiles count */
};

struct secrets;

struct allowlist {
	struct layer	 layers[5];
	size_t		 nlayers;
	char		*project_error;	/* why the project file was refused */
	char		*project;	/* the project's directory as loaded
					   (canonical), or NULL */
	struct danger	*danger;	/* the danger table (danger.h) */
	struct danger	*needs;		/* the needs table: the same form,
					   share/bwgate/needs.json */
	struct danger	*deletes;	/* deletes that are not danger: the
					   same form, share/bwgate/deletes.json
					   (their at-stake line) */
	struct secrets	*secrets;	/* secrets kept in the project
					   (secrets.h) */
};

/* One simple command as the rules see it. */
struct cmdview {
	const struct sh_cmd	*cmd;
	const char		**argv;		/* word texts */
	size_t			  argc;
	const char		 *name;		/* basename of argv[0] */
	bool			  name_ok;	/* plain or in a system dir */
	const char		 *launcher;	/* why it runs other programs */
	char			 *unsafe;	/* why it cannot be allowed */
	char			 *writes;	/* a redirection that writes */
	char			 *network;	/* a /dev/tcp redirection */
	char			 *endless;	/* reads a device that never
						   ends (/dev/zero) */
	bool			 *globs;	/* per word: a glob pattern */
	char			**home;		/* per word: ~ expanded, or
						   NULL (owned) */
	const char		 *glob;		/* the first glob word */
	bool			  dirchange;	/* the string changes the
						   directory (cd, pushd, popd) */
};
/* allowlist-view.c */
/* Why the raw text cannot be allowed (caller frees), or NULL. */
char	*allowlist_text_problem(const char *);
/* Build and free the view of one simple command. */
void	 cmdview_init(struct cmdview *, const struct sh_cmd *);
void	 cmdview_release(struct cmdview *);
/* Is dir a directory of the project where git finds the project's own
   repository (allowlist-cd.c)? */
bool		 allowlist_dir_own_repo(const struct allowlist *,
		    const char *dir);
/* git -C DIR into such a directory: the view drops "-C DIR". */
void		 allowlist_git_c(const struct allowlist *, struct cmdview *,
		    bool moved);
/* Why an allowed command would read a secret kept in the project
   (allowlist-secrets.c), or NULL. */
char		*allowlist_secret_read(const struct allowlist *,
		    const struct cmdview *);
/* Why a plain name's program is not trusted, or NULL. */
char	*allowlist_resolve_check(const struct cmdview *);
/* Does the command change the directory of later ones (cd, pushd)? */
bool	 cmdview_changes_dir(const struct cmdview *);

/* allowlist.c: classify text; with only != NULL consider just that rule. */
void	 allowlist_classify_only(const struct allowlist *,
	    const struct rule *, const char *, struct classification *);

/* allowlist-danger.c: the danger verdict, or a delete's operands
   (stake, targets, measured) when the deletes table names it; allowed[i]
   says the rules allow the script's i-th command. */
void	 allowlist_danger_allowed(const struct allowlist *,
	    const struct sh_script *, const bool *, struct classification *);

/* allowlist-layers.c: a profile, later layers first; untrusted project
   files skipped. */
const struct profile *allowlist_profile(const struct allowlist *,
	    const char *);

/* allowlist-trust.c: is this content (sha256) of file trusted? */
bool	 allowlist_is_trusted(const char *, const char *, char **);

#endif
