/* hook-guard: the Claude Code hook fails closed (hook-guard.c). */
#ifndef BWGATE_HOOK_GUARD_H
#define BWGATE_HOOK_GUARD_H

/* Claude Code's blocking exit status for a PreToolUse hook: the tool call
   does not run and stderr is the reason the model reads. Any other status
   but 0 lets the call through. */
#define HOOK_EXIT_BLOCK		2
/* The hook's own deadline unless --deadline says otherwise: under Claude
   Code's default command hook timeout (600 s), so the hook blocks before
   Claude Code gives up on it (a timed-out hook does not block). */
#define HOOK_DEADLINE_S		590

/* From here on every way out is a decision: a fatal signal that can be
   caught, out of memory and the deadline (seconds, 0: none) end the hook
   with HOOK_EXIT_BLOCK and a line on stderr. */
void	hook_guard_install(unsigned deadline_s);
/* What the hook has checked of the call so far (NULL: unchanged): the
   call's cwd, the tool, its command or file path. Copied. */
void	hook_guard_context(const char *cwd, const char *tool,
	    const char *command, const char *path);
/* Block the tool call: "bwgate: hook: <reason>" on stderr, a "refused"
   record in the audit log (edge-refusal.h: the project of the context's
   cwd, its tool, command or path, the reason), exit HOOK_EXIT_BLOCK. */
void	hook_block(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2), noreturn));
/* After the answer is printed: block if it could not be written whole. */
void	hook_guard_flush(void);

#endif
