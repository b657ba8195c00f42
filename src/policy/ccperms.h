/*
 * ccperms: Claude Code's own permission rules for its Bash tool, as the
 * user wrote them in settings.json ("permissions": {"deny": [...], "ask":
 * [...]}), applied to a command before bwgate's hook rewrites it. Claude
 * Code checks its rules against the command it finally runs, which after
 * the rewrite is `bwgate sh -c '...'`: without this, a hook that answers
 * with a rewritten command would switch the user's rules off.
 *
 * A rule is "Bash" (every command), "Bash(prefix:*)" (a command that
 * starts with prefix), "Bash(text with *)" (* matches any text; "ls *"
 * also matches "ls" alone) or "Bash(exact command)". A command matches
 * when the whole string does, or one of the simple commands bash would
 * run does (words after quote removal, joined by spaces: `'touch' x` is
 * "touch x"), inside substitutions and pipelines too. A command that
 * cannot be parsed is checked whole only. Matching errs towards matching:
 * a rule is a refusal the user asked for.
 */
#ifndef BWGATE_CCPERMS_H
#define BWGATE_CCPERMS_H

#include <stdbool.h>

#include "strv.h"

/* Does one rule match one command text? Rules for other tools never do. */
bool		 ccperms_rule_matches(const char *rule, const char *command);
/* The first rule of rules matching the command string or one of its
   simple commands, or NULL. */
const char	*ccperms_match(const struct strv *rules, const char *command);

#endif
