/* hook-perms: Claude Code's own Bash permission rules for the hook
   (hook-perms.c). */
#ifndef BWGATE_HOOK_PERMS_H
#define BWGATE_HOOK_PERMS_H

enum hook_perm {
	HOOK_PERM_NONE,		/* no rule of the user's matches */
	HOOK_PERM_ASK,		/* a permissions.ask rule: Claude Code asks */
	HOOK_PERM_DENY,		/* a permissions.deny rule, or unreadable */
};

/* Check command (the model's, before the rewrite) against the settings
   Claude Code reads for cwd; *why says which rule (caller frees). */
enum hook_perm	hook_perms_check(const char *command, const char *cwd,
		    char **why);

#endif
