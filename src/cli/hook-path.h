/* hook-path: where a Write/Edit call's file_path leads (hook-path.c). */
#ifndef BWGATE_HOOK_PATH_H
#define BWGATE_HOOK_PATH_H

/*
 * The file a Write, Edit or MultiEdit call names, resolved as Claude Code
 * resolves it and then through the real file system: "~" and "~/..."
 * against home, a relative path against the call's cwd, "." and ".." by
 * name (Node's path.resolve), then the longest existing prefix made
 * canonical (every link followed) and the rest appended. NULL with cause
 * when it cannot be told (no cwd for a relative path, a link to nothing).
 */
char	*hook_path_resolve(const char *file_path, const char *cwd,
	    const char *home, char **cause);

#endif
