/*
 * test-protect: the one policy of what a run may not make or change
 * (sandbox/protect.c): every entry of the shipped table at the root and at
 * any depth, globs, "!path" lifts, the agent-config profile, .git at any
 * depth and git-write's allowlist (allowed and refused names), the
 * repository's core.hooksPath; the config reader (protect-git.c) on real
 * files; the policy's git_hooks through JSON and back; and a randomised
 * comparison with a second, naive implementation of the same rule.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "agentcfg.h"
#include "path.h"
#include "policy-json.h"
#include "protect.h"
#include "sandbox.h"
#include "xalloc.h"

#define C	PROTECT_CREATE
#define MK	PROTECT_MKDIR
#define SL	PROTECT_SYMLINK
#define LN	PROTECT_LINK
#define RT	PROTECT_RENAME_TO
#define RF	PROTECT_RENAME_FROM
#define W	PROTECT_WRITE
#define RM	PROTECT_REMOVE
#define MO	PROTECT_MODE

static const enum protect_op all_ops[] = { C, MK, SL, LN, RT, RF, W, RM,
    MO };
#define NOPS	(sizeof all_ops / sizeof all_ops[0])

/* A policy with the shipped table; git-write and agent-config as asked,
   extra entries for the protected list and git_hooks ("|"-separated). */
static void
policy(struct sandbox_policy *pol, bool gitw, bool acw, const char *prot,
    const char *hooks)
{
	const struct agentcfg	*t;
	char			*cause = NULL, *s, *last, *w;

	sandbox_policy_init(pol);
	assert_non_null(t = agentcfg_get(&cause));
	agentcfg_strv(t, &pol->agent_config);
	pol->git_writable = gitw;
	pol->agent_config_writable = acw;
	if (prot != NULL) {
		s = xstrdup(prot);
		for (w = strtok_r(s, "|", &last); w != NULL;
		    w = strtok_r(NULL, "|", &last))
			strv_push(&pol->protected, w);
		free(s);
	}
	if (hooks != NULL) {
		s = xstrdup(hooks);
		for (w = strtok_r(s, "|", &last); w != NULL;
		    w = strtok_r(NULL, "|", &last))
			strv_push(&pol->git_hooks, w);
		free(s);
	}
}

static int
judge(bool gitw, bool acw, const char *prot, const char *hooks,
    const char *rel, enum protect_op op, char **rulep)
{
	struct sandbox_policy	 pol;
	struct protect		*pr;
	const char		*rule = NULL;
	char			*cause = NULL;
	int			 e;

	policy(&pol, gitw, acw, prot, hooks);
	assert_non_null(pr = protect_new(&pol, &cause));
	e = protect_judge(pr, rel, op, &rule);
	if (e != 0)
		assert_non_null(rule);
	else
		assert_null(rule);
	if (rulep != NULL)
		*rulep = e != 0 ? xstrdup(rule) : NULL;
	protect_free(pr);
	sandbox_policy_release(&pol);
	return e;
}

/* The table of cases: policy, path, call, verdict. */
static const struct jcase {
	bool		 gitw, acw;
	const char	*prot, *hooks;
	const char	*rel;
	enum protect_op	 op;
	int		 want;
} cases[] = {
	/* Plain files. */
	{ false, false, NULL, NULL, "src/a.c", C, 0 },
	{ false, false, NULL, NULL, "src/a.c", W, 0 },
	{ false, false, NULL, NULL, "", MK, 0 },
	{ false, false, NULL, NULL, ".gitignore", C, 0 },
	{ false, false, NULL, NULL, "a/.gitx/b", C, 0 },
	{ false, false, NULL, NULL, ".vscodex/a", C, 0 },
	{ false, false, NULL, NULL, "x.vimrc", C, 0 },
	{ false, false, NULL, NULL, ".envrc.bak", C, 0 },
	{ false, false, NULL, NULL, "a.code-workspace.txt", C, 0 },
	{ false, false, NULL, NULL, "AGENTS.md", C, 0 },
	{ false, false, NULL, NULL, ".config/other.toml", C, 0 },
	{ false, false, NULL, NULL, ".config", MK, 0 },
	{ false, false, NULL, NULL, "package.json", W, 0 },
	/* The issue's findings, at any depth. */
	{ false, false, NULL, NULL, "sub/.claude/settings.json", C, EACCES },
	{ false, false, NULL, NULL, "sub/.envrc", C, EACCES },
	{ false, false, NULL, NULL, "newdir/.vscode", MK, EACCES },
	{ false, false, NULL, NULL, "newdir/.vscode/tasks.json", C, EACCES },
	{ false, false, NULL, NULL, "deep/a/b/.mcp.json", C, EACCES },
	{ false, false, NULL, NULL, "d700/.claude/settings.json", W, EACCES },
	{ false, false, NULL, NULL, ".vimrc", W, EACCES },
	{ false, false, NULL, NULL, "a/.nvimrc", C, EACCES },
	{ false, false, NULL, NULL, "a/b/.gvimrc", C, EACCES },
	{ false, false, NULL, NULL, ".exrc", SL, EACCES },
	{ false, false, NULL, NULL, "x/.nvim.lua", RT, EACCES },
	{ false, false, NULL, NULL, ".dir-locals-2.el", C, EACCES },
	{ false, false, NULL, NULL, "lisp/.dir-locals.el", LN, EACCES },
	{ false, false, NULL, NULL, ".yarnrc.yml", W, EACCES },
	{ false, false, NULL, NULL, "pkg/.yarnrc", C, EACCES },
	{ false, false, NULL, NULL, "pkg/.npmrc", C, EACCES },
	{ false, false, NULL, NULL, ".pnpmfile.cjs", C, EACCES },
	{ false, false, NULL, NULL, "lefthook.yml", C, EACCES },
	{ false, false, NULL, NULL, "sub/lefthook.toml", C, EACCES },
	{ false, false, NULL, NULL, ".lefthook.yaml", C, EACCES },
	{ false, false, NULL, NULL, "lefthook-local.yml", C, EACCES },
	{ false, false, NULL, NULL, ".config/lefthook.json", C, EACCES },
	{ false, false, NULL, NULL, "s/.config/lefthook-local.yml", C, EACCES },
	{ false, false, NULL, NULL, ".envrc.local", C, EACCES },
	{ false, false, NULL, NULL, "a/.env", W, EACCES },
	{ false, false, NULL, NULL, "my.code-workspace", C, EACCES },
	{ false, false, NULL, NULL, "a/b/.x.code-workspace", RT, EACCES },
	{ false, false, NULL, NULL, ".husky/pre-commit", W, EACCES },
	{ false, false, NULL, NULL, "web/.husky/pre-commit", C, EACCES },
	/* Every call on a protected name, removal and mode included. */
	{ false, false, NULL, NULL, ".vscode/tasks.json", RM, EACCES },
	{ false, false, NULL, NULL, ".vscode", RF, EACCES },
	{ false, false, NULL, NULL, ".envrc", MO, EACCES },
	/* A rename onto a directory that would bring a multi-component
	   entry along; a single name is protected wherever it lands. */
	{ false, false, NULL, NULL, "sub/.config", RT, EACCES },
	{ false, false, NULL, NULL, ".config", RT, EACCES },
	{ false, false, NULL, NULL, "sub/.config", MK, 0 },
	{ false, false, NULL, NULL, "sub", RT, 0 },
	/* The agent-config profile lifts the table; lifts by "!path". */
	{ false, true, NULL, NULL, "sub/.claude/settings.json", C, 0 },
	{ false, true, NULL, NULL, "my.code-workspace", C, 0 },
	{ false, false, "!.vscode/", NULL, "a/.vscode/tasks.json", C, 0 },
	{ false, false, "!**/.vscode/", NULL, ".vscode/tasks.json", W, 0 },
	{ false, false, "!.vscode/", NULL, ".claude/x", C, EACCES },
	{ false, false, "!*.code-workspace", NULL, "a.code-workspace", C, 0 },
	/* The configured protected list, root-anchored; "!path" lifts. */
	{ false, false, "secrets/", NULL, "secrets/key", C, EACCES },
	{ false, false, "secrets/", NULL, "a/secrets/key", C, 0 },
	{ false, false, "secrets/|!secrets/", NULL, "secrets/key", C, 0 },
	{ false, false, "conf/keys/", NULL, "conf", RT, EACCES },
	{ false, false, "conf/keys/", NULL, "conf", RF, 0 },
	{ false, false, "conf/keys/", NULL, "conf/x", C, 0 },
	{ false, true, "secrets/", NULL, "secrets/key", C, EACCES },
	/* bwgate's own rules, at the root only. */
	{ false, false, NULL, NULL, ".bwgate.json", W, EACCES },
	{ false, true, NULL, NULL, ".bwgate.json", C, EACCES },
	{ true, true, NULL, NULL, ".bwgate.json", RM, EACCES },
	{ false, false, NULL, NULL, "sub/.bwgate.json", C, 0 },
	{ true, true, NULL, NULL, ".bwgate-quarantine/x/.git/config", RM,
	  EACCES },
	{ false, false, NULL, NULL, ".bwgate-quarantine", MK, EACCES },
	/* .git at any depth, a file too, outside git-write. */
	{ false, false, NULL, NULL, ".git", MK, EACCES },
	{ false, false, NULL, NULL, ".git", C, EACCES },
	{ false, false, NULL, NULL, "sub/.git", C, EACCES },
	{ false, false, NULL, NULL, "a/b/c/.git/config", W, EACCES },
	{ false, false, NULL, NULL, ".git/index", W, EACCES },
	{ false, false, NULL, NULL, ".git/objects/ab/cd", C, EACCES },
	{ false, false, NULL, NULL, ".git/hooks/pre-commit", RM, EACCES },
	{ false, true, NULL, NULL, ".git/config", W, EACCES },
	/* git-write: where git writes data. */
	{ true, false, NULL, NULL, ".git/index", W, 0 },
	{ true, false, NULL, NULL, ".git/index.lock", C, 0 },
	{ true, false, NULL, NULL, ".git/index.lock", RF, 0 },
	{ true, false, NULL, NULL, ".git/index", RT, 0 },
	{ true, false, NULL, NULL, ".git/HEAD", RT, 0 },
	{ true, false, NULL, NULL, ".git/HEAD.lock", C, 0 },
	{ true, false, NULL, NULL, ".git/ORIG_HEAD", C, 0 },
	{ true, false, NULL, NULL, ".git/FETCH_HEAD", C, 0 },
	{ true, false, NULL, NULL, ".git/MERGE_HEAD", C, 0 },
	{ true, false, NULL, NULL, ".git/CHERRY_PICK_HEAD", C, 0 },
	{ true, false, NULL, NULL, ".git/REVERT_HEAD", C, 0 },
	{ true, false, NULL, NULL, ".git/REBASE_HEAD", C, 0 },
	{ true, false, NULL, NULL, ".git/MERGE_MSG", W, 0 },
	{ true, false, NULL, NULL, ".git/MERGE_MODE", C, 0 },
	{ true, false, NULL, NULL, ".git/AUTO_MERGE", C, 0 },
	{ true, false, NULL, NULL, ".git/COMMIT_EDITMSG", W, 0 },
	{ true, false, NULL, NULL, ".git/TAG_EDITMSG", C, 0 },
	{ true, false, NULL, NULL, ".git/packed-refs", RT, 0 },
	{ true, false, NULL, NULL, ".git/packed-refs.lock", C, 0 },
	{ true, false, NULL, NULL, ".git/packed-refs.new", C, 0 },
	{ true, false, NULL, NULL, ".git/shallow.lock", C, 0 },
	{ true, false, NULL, NULL, ".git/gc.pid", C, 0 },
	{ true, false, NULL, NULL, ".git/index.stash.4242", C, 0 },
	{ true, false, NULL, NULL, ".git/next-index-4242.lock", C, 0 },
	{ true, false, NULL, NULL, ".git/sharedindex_Ab12Cd", C, 0 },
	{ true, false, NULL, NULL, ".git/objects/ab/tmp_obj_x", C, 0 },
	{ true, false, NULL, NULL, ".git/objects/ab/cdef", LN, 0 },
	{ true, false, NULL, NULL, ".git/objects/ab", MK, 0 },
	{ true, false, NULL, NULL, ".git/objects/pack/tmp_pack_1", C, 0 },
	{ true, false, NULL, NULL, ".git/objects/info/commit-graph", RT, 0 },
	{ true, false, NULL, NULL, ".git/objects/info/packs", C, 0 },
	{ true, false, NULL, NULL, ".git/refs/heads/main.lock", C, 0 },
	{ true, false, NULL, NULL, ".git/refs/heads/main", RT, 0 },
	{ true, false, NULL, NULL, ".git/refs/stash", C, 0 },
	{ true, false, NULL, NULL, ".git/logs/HEAD", W, 0 },
	{ true, false, NULL, NULL, ".git/logs/refs/heads/x", C, 0 },
	{ true, false, NULL, NULL, ".git/rebase-merge", MK, 0 },
	{ true, false, NULL, NULL, ".git/rebase-merge/git-rebase-todo", C, 0 },
	{ true, false, NULL, NULL, ".git/rebase-apply/0001", C, 0 },
	{ true, false, NULL, NULL, ".git/sequencer/todo", C, 0 },
	{ true, false, NULL, NULL, "sub/.git/index.lock", C, 0 },
	{ true, false, NULL, NULL, ".git/refs/heads/lefthook.yml", C, 0 },
	{ true, false, NULL, NULL, ".git/logs/refs/heads/.env", C, 0 },
	/* git-write: everything else below .git is refused. */
	{ true, false, NULL, NULL, ".git/config", W, EACCES },
	{ true, false, NULL, NULL, ".git/config.lock", C, EACCES },
	{ true, false, NULL, NULL, ".git/config", RT, EACCES },
	{ true, false, NULL, NULL, ".git/config.worktree", C, EACCES },
	{ true, false, NULL, NULL, ".git/commondir", C, EACCES },
	{ true, false, NULL, NULL, ".git/gitdir", C, EACCES },
	{ true, false, NULL, NULL, ".git/info", MK, EACCES },
	{ true, false, NULL, NULL, ".git/info/exclude", W, EACCES },
	{ true, false, NULL, NULL, ".git/info/attributes", C, EACCES },
	{ true, false, NULL, NULL, ".git/hooks/pre-commit", C, EACCES },
	{ true, false, NULL, NULL, ".git/hooks/pre-commit", W, EACCES },
	{ true, false, NULL, NULL, ".git/hooks/pre-commit", MO, EACCES },
	{ true, false, NULL, NULL, ".git/hooks", RT, EACCES },
	{ true, false, NULL, NULL, ".git/modules/x/config", C, EACCES },
	{ true, false, NULL, NULL, ".git/worktrees/w/gitdir", C, EACCES },
	{ true, false, NULL, NULL, ".git/worktrees/w/commondir", C, EACCES },
	{ true, false, NULL, NULL, ".git/objects/info/alternates", C, EACCES },
	{ true, false, NULL, NULL, ".git/objects/info/alternates.lock", C,
	  EACCES },
	{ true, false, NULL, NULL, ".git/objects/info/http-alternates", W,
	  EACCES },
	{ true, false, NULL, NULL, ".git/objects", RT, EACCES },
	{ true, false, NULL, NULL, ".git/objects/info", RT, EACCES },
	{ true, false, NULL, NULL, ".git/description", C, EACCES },
	{ true, false, NULL, NULL, ".git/FETCH_HEADx", C, EACCES },
	{ true, false, NULL, NULL, ".git/indexx", C, EACCES },
	{ true, false, NULL, NULL, ".git/index.stash.", C, EACCES },
	{ true, false, NULL, NULL, ".git/refs/heads/x", SL, EACCES },
	{ true, false, NULL, NULL, ".git", MK, EACCES },
	{ true, false, NULL, NULL, ".git", C, EACCES },
	{ true, false, NULL, NULL, "vendor/x/.git", MK, EACCES },
	{ true, false, NULL, NULL, "sub/.git", W, EACCES },
	{ true, false, NULL, NULL, "sub/.git/config", W, EACCES },
	{ true, true, NULL, NULL, ".git/hooks/pre-commit", C, EACCES },
	/* git-write: removing (or renaming away) is harmless for the host. */
	{ true, false, NULL, NULL, ".git/hooks/pre-commit", RM, 0 },
	{ true, false, NULL, NULL, ".git/hooks/pre-commit", RF, 0 },
	{ true, false, NULL, NULL, ".git/config", RM, 0 },
	{ true, false, NULL, NULL, "sub/.git", RM, 0 },
	/* The repository's core.hooksPath (and what its config includes). */
	{ false, false, NULL, ".githooks/", ".githooks/pre-commit", W,
	  EACCES },
	{ false, false, NULL, ".githooks/", ".githooks/post-checkout", C,
	  EACCES },
	{ false, false, NULL, ".githooks/", ".githooks", MK, EACCES },
	{ false, false, NULL, ".githooks/", ".githooks", RF, EACCES },
	{ true, false, NULL, ".githooks/", ".githooks/pre-commit", MO,
	  EACCES },
	{ false, false, NULL, ".githooks/", "sub/.githooks/pre-commit", C, 0 },
	{ false, false, NULL, ".githooks/", ".githooksx", C, 0 },
	{ false, false, NULL, "tools/hooks/", "tools/hooks/pre-push", C,
	  EACCES },
	{ false, false, NULL, "tools/hooks/", "tools", RT, EACCES },
	{ false, false, NULL, "tools/hooks/", "tools/other", C, 0 },
	{ false, false, NULL, "shared.gitconfig", "shared.gitconfig", W,
	  EACCES },
	{ false, true, NULL, ".githooks/", ".githooks/pre-commit", W, 0 },
};

static void
test_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct jcase *c = &cases[i];
		int e = judge(c->gitw, c->acw, c->prot, c->hooks, c->rel,
		    c->op, NULL);

		if (e != c->want)
			fail_msg("case %zu: '%s' op %d gitw %d acw %d: got "
			    "%d, want %d", i, c->rel, (int)c->op, c->gitw,
			    c->acw, e, c->want);
	}
}

static bool	oracle_within(const char *, bool, const char *);

/* A name that an entry's glob component matches ("*" -> "x"). */
static char *
example(const char *pat)
{
	char	*s = xstrdup(pat), *o = s;

	for (const char *p = pat; *p != '\0'; p++)
		*o++ = *p == '*' || *p == '?' ? 'x' : *p;
	*o = '\0';
	return s;
}

/* Every entry of the shipped table: refused at the root and deeper, every
   call, below a directory entry too; lifted by agent-config and by its
   own "!entry". */
static void
test_every_entry(void **state)
{
	const struct agentcfg	*t;
	char			*cause = NULL;
	static const char *const at[] = { "", "a/", "a/b/c/d/e/f/g/h/" };

	(void)state;
	assert_non_null(t = agentcfg_get(&cause));
	assert_true(t->n >= 50);
	for (size_t i = 0; i < t->n; i++) {
		char	*name = example(t->v[i].path), *lift;

		for (size_t d = 0; d < sizeof at / sizeof at[0]; d++) {
			char *rel = xasprintf("%s%s", at[d], name);
			char *below = xasprintf("%s/x", rel);
			char *r = NULL;

			for (size_t o = 0; o < NOPS; o++) {
				if (judge(false, false, NULL, NULL, rel,
				    all_ops[o], NULL) != EACCES)
					fail_msg("'%s' (entry %s) op %d not "
					    "refused", rel, t->v[i].path,
					    (int)all_ops[o]);
			}
			assert_int_equal(judge(false, false, NULL, NULL, below,
			    C, &r), EACCES);
			/* The rule names the entry and the way out. */
			assert_non_null(strstr(r, "agent-config"));
			free(r);
			assert_int_equal(judge(false, true, NULL, NULL, rel, C,
			    NULL), 0);
			free(rel);
			free(below);
		}
		/* Its own lift, and that of every other entry naming it
		   ("lefthook.*" names .config/lefthook.x too). */
		lift = xstrdup("");
		for (size_t k = 0; k < t->n; k++) {
			char *l;

			if (!oracle_within(t->v[k].path, true, name))
				continue;
			l = xasprintf("%s|!%s%s", lift, t->v[k].path,
			    t->v[k].dir ? "/" : "");
			free(lift);
			lift = l;
		}
		if (judge(false, false, lift, NULL, name, C, NULL) != 0)
			fail_msg("'%s' does not lift '%s'", lift, name);
		free(lift);
		free(name);
	}
}

/* A policy entry that cannot name a path inside: no policy at all. */
static void
test_bad_entry(void **state)
{
	static const char *const bad[] = { "../x", "a/../../b", "/", "a//b",
	    "**/", NULL };

	(void)state;
	for (const char *const *b = bad; *b != NULL; b++) {
		struct sandbox_policy	 pol;
		char			*cause = NULL;

		policy(&pol, false, false, *b, NULL);
		assert_null(protect_new(&pol, &cause));
		assert_non_null(cause);
		free(cause);
		sandbox_policy_release(&pol);
		policy(&pol, false, false, NULL, *b);
		cause = NULL;
		assert_null(protect_new(&pol, &cause));
		free(cause);
		sandbox_policy_release(&pol);
	}
}

/* protect_git_data directly: the names the mounts keep read-only. */
static void
test_git_data(void **state)
{
	(void)state;
	assert_true(protect_git_data("objects"));
	assert_true(protect_git_data("refs"));
	assert_true(protect_git_data("logs"));
	assert_true(protect_git_data("index"));
	assert_true(protect_git_data("HEAD"));
	assert_true(protect_git_data("packed-refs"));
	assert_true(protect_git_data("packed-refs.new"));
	assert_false(protect_git_data(""));
	assert_false(protect_git_data("config"));
	assert_false(protect_git_data("hooks"));
	assert_false(protect_git_data("info"));
	assert_false(protect_git_data("modules"));
	assert_false(protect_git_data("worktrees"));
	assert_false(protect_git_data("commondir"));
	assert_false(protect_git_data(".lock"));
	assert_false(protect_git_data("objects/info/alternates"));
	assert_false(protect_git_data("objects/info/alternates/x"));
	assert_true(protect_git_data("objects/info/alternatesx"));
}

/* ---- protect_git_read on real files ---- */

static char	 dir[64];

static void
put(const char *rel, const char *text)
{
	char	*p = path_join(dir, rel), *slash;
	FILE	*f;

	slash = strrchr(p, '/');
	*slash = '\0';
	(void)mkdir(p, 0755);
	*slash = '/';
	assert_non_null(f = fopen(p, "w"));
	fputs(text, f);
	fclose(f);
	free(p);
}

static int
setup_repo(void **state)
{
	char	*p;

	(void)state;
	strcpy(dir, "/tmp/test-protect.XXXXXX");
	assert_non_null(mkdtemp(dir));
	p = path_join(dir, ".git");
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	return 0;
}

static int
teardown_repo(void **state)
{
	char	*cmd = xasprintf("rm -rf '%s'", dir);

	(void)state;
	assert_int_equal(system(cmd), 0);
	free(cmd);
	return 0;
}

/* The git_hooks protect_git_read finds, joined with '|'. */
static char *
hooks(void)
{
	struct strv	 out = STRV_INIT;
	char		*cause = NULL, *s;

	assert_int_equal(protect_git_read(dir, &out, &cause), 0);
	s = out.n == 0 ? xstrdup("") : strv_join(&out, "|", false);
	strv_release(&out);
	return s;
}

static void
want_hooks(const char *config, const char *want)
{
	char	*got;

	put(".git/config", config);
	got = hooks();
	if (strcmp(got, want) != 0)
		fail_msg("config:\n%s\ngot '%s', want '%s'", config, got,
		    want);
	free(got);
}

static void
test_git_read(void **state)
{
	char	*abs, *s, *out;
	FILE	*f;

	(void)state;
	want_hooks("[core]\n\tbare = false\n", "");
	want_hooks("[core]\n\thooksPath = .githooks\n", ".githooks/");
	want_hooks("[Core]\n  HooksPath=tools/hooks/ # c\n", "tools/hooks/");
	want_hooks("[core]\nhookspath = \"my hooks\" ; x\n", "my hooks/");
	want_hooks("[core]\nhookspath = a\\\nb\n", "ab/");
	want_hooks("[core]\nhookspath = ./x/../y\n", "y/");
	want_hooks("[core \"x\"]\nhookspath = no\n[core]\nfilemode\n", "");
	want_hooks("[other]\nhookspath = no\n", "");
	want_hooks("[core]\nhookspath = ../outside\n", "");
	want_hooks("[core]\nhookspath = /etc/hooks\n", "");
	/* Two values: both protected (git takes the last; either may be
	   the one read). */
	want_hooks("[core]\nhookspath = a\nhookspath = b\n", "a/|b/");
	/* An absolute path inside the project. */
	abs = xasprintf("[core]\nhookspath = %s/abs\n", dir);
	want_hooks(abs, "abs/");
	free(abs);
	/* The root itself: the hook names there. */
	put(".git/config", "[core]\nhookspath = .\n");
	s = hooks();
	assert_non_null(strstr(s, "pre-commit|"));
	assert_null(strstr(s, "/"));
	free(s);
	/* An include inside the project: protected, and read. */
	put("shared.gitconfig", "[core]\nhookspath = .hk\n");
	want_hooks("[include]\npath = ../shared.gitconfig\n",
	    "shared.gitconfig|.hk/");
	want_hooks("[includeIf \"onbranch:main\"]\n"
	    "path = ../shared.gitconfig\n", "shared.gitconfig|.hk/");
	/* An include not there yet is protected (the command could make it). */
	want_hooks("[include]\npath = ../later.gitconfig\n",
	    "later.gitconfig");
	/* An include from outside the project is read (through the door,
	   below its own directory); a missing one is nothing, as for git. */
	out = xasprintf("%s.outside", dir);
	f = fopen(out, "w");
	assert_non_null(f);
	fputs("[core]\n\thooksPath = .xhooks\n", f);
	fclose(f);
	abs = xasprintf("[include]\npath = %s\n", out);
	want_hooks(abs, ".xhooks/");
	free(abs);
	unlink(out);
	want_hooks(abs = xasprintf("[include]\npath = %s\n", out), "");
	free(abs);
	free(out);
	want_hooks("[include]\npath = /nonexistent-dir/x\n", "");
	/* One that cannot be read (a directory): unknown, the usual
	   places. */
	put(".git/config", "[include]\npath = /tmp\n");
	s = hooks();
	assert_non_null(strstr(s, ".githooks/"));
	free(s);
	/* Malformed: unknown too. */
	put(".git/config", "[core\nhookspath = x\n");
	s = hooks();
	assert_non_null(strstr(s, ".githooks/"));
	free(s);
	put(".git/config", "[core]\nhookspath = \"open\n");
	s = hooks();
	assert_non_null(strstr(s, ".githooks/"));
	free(s);
}

/* Random configs from git's own tokens: every entry found names a path
   inside the project (never absolute, never "..", never empty), and the
   reader neither crashes nor hangs (ASan and UBSan in CI). */
static void
test_git_read_random(void **state)
{
	static const char *const tok[] = { "[core]", "[include]",
	    "[includeIf \"gitdir:x\"]", "[core \"x\"]", "[core.x]",
	    "hooksPath", "path", "bare", " = ", "=", "\"", "\\", "\\\n",
	    "\n", "#", ";", " ", "\t", "../", "..", "/", ".", "a", "b/",
	    "~/", "shared.gitconfig", "\\t", "[", "]", "\x01" };
	unsigned	 seed = 36;
	char		*cfg;

	(void)state;
	put("shared.gitconfig", "[core]\nhooksPath = s\n[include]\n"
	    "path = ../shared.gitconfig\n");
	for (int it = 0; it < 3000; it++) {
		struct strv	 out = STRV_INIT;
		struct buf_s { char b[512]; size_t n; } t = { "", 0 };
		char		*cause = NULL;
		int		 n = rand_r(&seed) % 24;

		for (int k = 0; k < n; k++) {
			const char *w = tok[(size_t)rand_r(&seed) %
			    (sizeof tok / sizeof tok[0])];

			if (t.n + strlen(w) + 1 < sizeof t.b) {
				memcpy(t.b + t.n, w, strlen(w));
				t.n += strlen(w);
			}
		}
		t.b[t.n] = '\0';
		put(".git/config", t.b);
		assert_int_equal(protect_git_read(dir, &out, &cause), 0);
		for (size_t i = 0; i < out.n; i++) {
			const char *e = out.v[i];

			if (e[0] == '\0' || e[0] == '/' ||
			    path_has_dotdot(e) || strstr(e, "//") != NULL)
				fail_msg("config '%s' gave '%s'", t.b, e);
		}
		strv_release(&out);
	}
	cfg = path_join(dir, "shared.gitconfig");
	unlink(cfg);
	free(cfg);
}

/* A FIFO as the config is not waited on: unknown. */
static void
test_git_read_fifo(void **state)
{
	char	*p = path_join(dir, ".git/config"), *s;

	(void)state;
	unlink(p);
	assert_int_equal(mkfifo(p, 0600), 0);
	s = hooks();
	assert_non_null(strstr(s, ".githooks/"));
	free(s);
	unlink(p);
	free(p);
	/* No config at all: nothing. */
	s = hooks();
	assert_string_equal(s, "");
	free(s);
}

/* A linked worktree: .git is a file naming the git directory, whose
   commondir holds the config. */
static void
test_git_read_worktree(void **state)
{
	char	*p = path_join(dir, ".git"), *s, *cmd;
	char	 main[64];

	(void)state;
	cmd = xasprintf("rm -rf '%s'", p);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	strcpy(main, "/tmp/test-protect-main.XXXXXX");
	assert_non_null(mkdtemp(main));
	cmd = xasprintf("mkdir -p '%s/.git/worktrees/w' && printf "
	    "'[core]\\n\\thooksPath = wt-hooks\\n' > '%s/.git/config' && "
	    "echo ../.. > '%s/.git/worktrees/w/commondir' && "
	    "echo 'gitdir: %s/.git/worktrees/w' > '%s'", main, main, main,
	    main, p);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	s = hooks();
	assert_string_equal(s, "wt-hooks/");
	free(s);
	cmd = xasprintf("rm -rf '%s' '%s'; mkdir '%s'", main, p, p);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(p);
}

/* A project in a subdirectory of a repository: git finds the repository
   above, and its core.hooksPath is relative to that work tree. */
static void
test_git_read_above(void **state)
{
	struct strv	 out = STRV_INIT;
	char		*sub = path_join(dir, "app"), *cause = NULL, *s;

	(void)state;
	assert_int_equal(mkdir(sub, 0755), 0);
	put(".git/config", "[core]\n\thooksPath = app/hooks\n");
	assert_int_equal(protect_git_read(sub, &out, &cause), 0);
	s = out.n == 0 ? xstrdup("") : strv_join(&out, "|", false);
	assert_string_equal(s, "hooks/");
	free(s);
	strv_release(&out);
	/* One outside the project: nothing of the project's. */
	put(".git/config", "[core]\n\thooksPath = .githooks\n");
	assert_int_equal(protect_git_read(sub, &out, &cause), 0);
	assert_int_equal(out.n, 0);
	strv_release(&out);
	rmdir(sub);
	free(sub);
}

/* The policy's git_hooks travels to the exec and back unchanged. */
static void
test_json(void **state)
{
	struct sandbox_policy	 a, b;
	cJSON			*j;
	char			*cause = NULL;

	(void)state;
	sandbox_policy_init(&a);
	sandbox_policy_init(&b);
	a.project = xstrdup("/p");
	a.cwd = xstrdup("/p");
	strv_push(&a.git_hooks, ".githooks/");
	strv_push(&a.git_hooks, "shared.gitconfig");
	j = sandbox_policy_json(&a);
	assert_int_equal(sandbox_policy_from_json(j, &b, &cause), 0);
	assert_int_equal(b.git_hooks.n, 2);
	assert_string_equal(b.git_hooks.v[0], ".githooks/");
	assert_string_equal(b.git_hooks.v[1], "shared.gitconfig");
	/* Required: a policy without it is refused. */
	cJSON_DeleteItemFromObject(j, "git_hooks");
	sandbox_policy_release(&b);
	sandbox_policy_init(&b);
	assert_int_equal(sandbox_policy_from_json(j, &b, &cause), -1);
	assert_non_null(strstr(cause, "git_hooks"));
	free(cause);
	cJSON_Delete(j);
	sandbox_policy_release(&a);
	sandbox_policy_release(&b);
}

/* ---- randomised, against a second implementation ---- */

/* The naive oracle: for the table, rel or one of its ancestors, at some
   start (the root only for a root entry), is the entry by fnmatch of the
   whole suffix (FNM_PATHNAME). */
static bool
oracle_within(const char *entry, bool any, const char *rel)
{
	char	*copy = xstrdup(rel), *s;
	bool	 yes = false;

	/* Cut rel after each of its components in turn. */
	for (size_t n = strlen(copy);; ) {
		copy[n] = '\0';
		for (s = copy; s != NULL && !yes;) {
			yes = fnmatch(entry, s, FNM_PATHNAME) == 0;
			if (!any)
				break;
			if ((s = strchr(s, '/')) != NULL)
				s++;
		}
		if (yes)
			break;
		while (n > 0 && copy[n - 1] != '/')
			n--;
		if (n == 0)
			break;
		n--;
	}
	free(copy);
	return yes;
}

static const char *const atoms[] = { "a", "b", ".git", ".vscode",
    ".bwgate-quarantine", ".bwgate.json",
    "tasks.json", ".envrc", "x.code-workspace", ".config", "lefthook.yml",
    "objects", "info", "alternates", "hooks", "refs", "index.lock", "config",
    "HEAD", ".githooks", "pre-commit", ".claude", "sub", ".env", "logs" };
#define NATOMS	(sizeof atoms / sizeof atoms[0])

static void
test_random(void **state)
{
	const struct agentcfg	*t;
	struct sandbox_policy	 pol;
	struct protect		*pr[2];
	char			*cause = NULL;
	unsigned		 seed = 3602;
	size_t			 seen[2][2] = { { 0, 0 }, { 0, 0 } };

	(void)state;
	assert_non_null(t = agentcfg_get(&cause));
	for (int g = 0; g < 2; g++) {
		policy(&pol, g == 1, false, NULL, ".githooks/");
		assert_non_null(pr[g] = protect_new(&pol, &cause));
		sandbox_policy_release(&pol);
	}
	for (int it = 0; it < 20000; it++) {
		char		 rel[256] = "";
		size_t		 depth = (size_t)(rand_r(&seed) % 6) + 1;
		enum protect_op	 op = all_ops[rand_r(&seed) % NOPS];
		int		 g = rand_r(&seed) % 2, got, want = 0;
		const char	*rule, *below = NULL;

		for (size_t d = 0; d < depth; d++) {
			if (d > 0)
				strcat(rel, "/");
			strcat(rel, atoms[rand_r(&seed) % NATOMS]);
		}
		got = protect_judge(pr[g], rel, op, &rule);
		/* .git first: the part below the first one. */
		for (const char *p = rel; p != NULL && below == NULL;) {
			if (strncmp(p, ".git", 4) == 0 && (p[4] == '/' ||
			    p[4] == '\0'))
				below = p[4] == '/' ? p + 5 : p + 4;
			if ((p = strchr(p, '/')) != NULL)
				p++;
		}
		if (oracle_within(".bwgate.json", false, rel) ||
		    oracle_within(".bwgate-quarantine", false, rel))
			want = EACCES;
		else if (below != NULL) {
			if (g == 0)
				want = EACCES;
			else if (op == RM || op == RF)
				want = 0;
			else if (*below == '\0' || op == SL)
				want = EACCES;
			else {
				char *b = xstrdup(below);
				size_t n = strlen(b);
				bool data;

				if (n > 5 && strcmp(b + n - 5, ".lock") == 0)
					b[n - 5] = '\0';
				data = (strncmp(b, "objects", 7) == 0 &&
				    (b[7] == '/' || b[7] == '\0') &&
				    strncmp(b, "objects/info/alternates", 23)
				    != 0 && !(op == RT && (strcmp(b, "objects")
				    == 0 || strcmp(b, "objects/info") == 0))) ||
				    strncmp(b, "refs", 4) == 0 ||
				    strncmp(b, "logs", 4) == 0 ||
				    strcmp(b, "index") == 0 ||
				    strcmp(b, "HEAD") == 0;
				if (strncmp(b, "refs", 4) == 0 && b[4] != '/' &&
				    b[4] != '\0')
					data = false;
				if (strncmp(b, "logs", 4) == 0 && b[4] != '/' &&
				    b[4] != '\0')
					data = false;
				want = data ? 0 : EACCES;
				free(b);
			}
		} else {
			if (oracle_within(".githooks", false, rel))
				want = EACCES;
			for (size_t i = 0; i < t->n && want == 0; i++)
				if (oracle_within(t->v[i].path,
				    t->v[i].any_depth, rel))
					want = EACCES;
			/* A directory renamed onto ".config" or "x/.config"
			   would bring .config/lefthook.* along. */
			if (op == RT && want == 0) {
				const char *last = strrchr(rel, '/');

				last = last != NULL ? last + 1 : rel;
				if (strcmp(last, ".config") == 0)
					want = EACCES;
			}
		}
		if (got != want)
			fail_msg("'%s' op %d git-write %d: got %d, want %d",
			    rel, (int)op, g, got, want);
		seen[g][got != 0]++;
	}
	/* Both verdicts, in both profiles, often. */
	for (int g = 0; g < 2; g++)
		assert_true(seen[g][0] > 1000 && seen[g][1] > 1000);
	protect_free(pr[0]);
	protect_free(pr[1]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_every_entry),
		cmocka_unit_test(test_bad_entry),
		cmocka_unit_test(test_git_data),
		cmocka_unit_test_setup_teardown(test_git_read, setup_repo,
		    teardown_repo),
		cmocka_unit_test_setup_teardown(test_git_read_random,
		    setup_repo, teardown_repo),
		cmocka_unit_test_setup_teardown(test_git_read_fifo, setup_repo,
		    teardown_repo),
		cmocka_unit_test_setup_teardown(test_git_read_worktree,
		    setup_repo, teardown_repo),
		cmocka_unit_test_setup_teardown(test_git_read_above,
		    setup_repo, teardown_repo),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_random),
	};

	setenv("BWGATE_DATADIR", SRCDATADIR, 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
