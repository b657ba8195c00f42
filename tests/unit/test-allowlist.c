/*
 * test-allowlist: verdicts of the shipped rules for hundreds of command
 * strings (safe read-only work and every bypass class we know of), the
 * layering of user and project rules (deny wins; project allow rules need
 * trust), rule file validation errors, profiles, the option grammar and
 * SHA-256.
 */
#include "autoconf.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "allowlist.h"
#include "optparse.h"
#include "rules.h"
#include "sandbox.h"
#include "sha256.h"
#include "xalloc.h"

#define A VERDICT_ALLOW
#define Q VERDICT_ASK
#define D VERDICT_DENY

struct vector {
	const char	*command;
	enum verdict	 verdict;
};

/* Read-only work the shipped rules allow. */
static const struct vector safe[] = {
	{ "ls", A }, { "ls -la", A }, { "ls -la src", A }, { "ls -1", A },
	{ "ls --color=never", A }, { "ls -R", A }, { "ls --sort=size", A },
	{ "ls -lt --time-style=long-iso", A }, { "dir", A }, { "ls --alm", A },
	{ "ls -- -weird", A }, { "ls --colo=auto", A },
	{ "cat README", A }, { "cat -n a b", A }, { "cat -- -file", A },
	{ "cat < in.txt", A }, { "cat -", A }, { "tac x", A }, { "nl -ba x", A },
	{ "head -n 5 x", A }, { "head -5 x", A }, { "head -c 100 x", A },
	{ "head --lines=3 a b", A }, { "tail -n 20 x", A }, { "tail -20 x", A },
	{ "tail -f log", A }, { "wc -l x", A }, { "wc -w a b", A },
	{ "grep foo x", A }, { "grep -rn foo src", A }, { "grep -e -x f", A },
	{ "grep -E 'a|b' f", A }, { "grep -i --color=auto x f", A },
	{ "grep -v -- -x f", A }, { "egrep x f", A }, { "fgrep x f", A },
	{ "grep -A3 -B2 x f", A }, { "grep --include='*.c' -r main .", A },
	{ "grep -3 x f", A }, { "grep -c x f", A }, { "grep -lZ x f", A },
	{ "rg foo", A }, { "rg -n foo src", A }, { "rg --files", A },
	{ "rg -tpy import", A }, { "rg -i -g '!*.min.js' x", A },
	{ "rg --json x", A }, { "rg -uu x", A },
	{ "find .", A }, { "find . -name '*.c'", A },
	{ "find . -type f -mmin -5", A }, { "find . -maxdepth 2 -type d", A },
	{ "find . -name x -print0", A },
	{ "find . \\( -name a -o -name b \\) -prune -o -print", A },
	{ "find . -printf '%p\\n'", A }, { "find -L . -newer x", A },
	{ "find . ! -name x", A }, { "find . -name -exec", A },
	{ "sed -n 1,10p x", A }, { "sed -n '/re/p' x", A },
	{ "sed -n '$p' x", A }, { "sed -n -e 1p -e 3p x", A },
	{ "sed -nE '/a|b/p' x", A }, { "sed -n '5,$p' x", A },
	{ "sed -n '1~2p' x", A }, { "sed --quiet 3p x", A },
	{ "sed -n '/a/,/b/{p;q}' x", A }, { "sed -n '$=' x", A },
	{ "sed -n '\\%x/y%p' x", A }, { "sed -n '/x/!p' x", A },
	{ "sed -n 'l;5q' x", A }, { "sed -n '0,/re/p' x", A },
	{ "sort x", A }, { "sort -u x", A }, { "sort -k2 -t, -n x", A },
	{ "sort -rn", A }, { "sort -c x", A }, { "uniq x", A }, { "uniq -c", A },
	{ "cut -d: -f1 x", A }, { "tr a-z A-Z", A }, { "tr -d '\\r'", A },
	{ "du -sh .", A }, { "df -h", A }, { "stat x", A },
	{ "stat -c %s x", A }, { "file x", A }, { "file -b --mime-type x", A },
	{ "tree", A }, { "tree -L 2", A }, { "diff a b", A },
	{ "diff -u a b", A }, { "diff -ru a b", A }, { "pwd", A },
	{ "pwd -P", A }, { "echo hello", A }, { "echo \"a b\" 'c'", A },
	{ "echo", A }, { "printf '%s\\n' a", A }, { "true", A }, { "false", A },
	{ "test -f x", A }, { "whoami", A }, { "uname -a", A }, { "id -u", A },
	{ "date", A }, { "date +%Y", A }, { "date -u +%s", A },
	{ "basename a/b", A }, { "dirname a/b", A }, { "realpath x", A },
	{ "readlink -f x", A }, { "sha256sum x", A }, { "md5sum -c s", A },
	{ "cmp a b", A }, { "comm -12 a b", A }, { "jq . x.json", A },
	{ "jq -r '.[] | .id' x", A },
	{ "git status", A }, { "git status -s", A },
	{ "git status --porcelain=v1", A }, { "git status -sb", A },
	{ "git log", A }, { "git log --oneline -n 10", A },
	{ "git log -5 --stat", A }, { "git log --format='%h %s'", A },
	{ "git log --since=2.weeks", A }, { "git log -p -- src", A },
	{ "git log --graph --decorate --all", A }, { "git diff", A },
	{ "git diff --cached", A }, { "git diff HEAD~1 HEAD -- src", A },
	{ "git diff --stat", A }, { "git diff --no-ext-diff", A },
	{ "git diff --no-textconv", A }, { "git show", A },
	{ "git show HEAD", A }, { "git show --stat HEAD~2", A },
	{ "git show HEAD:README", A }, { "git branch", A },
	{ "git branch -a", A }, { "git branch -vv", A },
	{ "git rev-parse HEAD", A }, { "git rev-parse --abbrev-ref HEAD", A },
	{ "git rev-parse --show-toplevel", A }, { "git -C . status", A },
	{ "git --no-pager log -1", A }, { "git -P diff", A },
	{ "git ls-files", A }, { "git ls-files -z", A }, { "git --version", A },
	{ "/usr/bin/ls", A }, { "/bin/cat x", A }, { "/usr/bin/git status", A },
	{ "ls | wc -l", A }, { "cat x | grep y | sort | uniq -c", A },
	{ "ls && pwd", A }, { "ls || echo no", A }, { "ls; pwd", A },
	{ "git status && git diff", A }, { "grep x f 2>/dev/null", A },
	{ "ls 2>&1", A }, { "ls >/dev/null 2>&1", A }, { "cat </dev/null", A },
	{ "ls 1>&2", A }, { "ls 2>&-", A }, { "(ls)", A }, { "{ ls; pwd; }", A },
	{ "{ ls; } >/dev/null", A }, { "ls # comment", A },
	{ "ls\npwd", A }, { "ls\n\n", A }, { "\"ls\" -la", A }, { "l\\s", A },
	{ "'ls'", A }, { "ls -l''a", A }, { "ls\t-la", A }, { "ls |& cat", A },
	{ "cat <<< hello", A }, { "git log | head -20", A },
	{ "ls \\\n -la", A }, { "echo héllo wörld", A }, { "echo 日本", A },
};

/* Everything that must not be allowed automatically. */
static const struct vector bypass[] = {
	/* chaining and newline injection */
	{ "ls; rm -rf x", Q }, { "ls && rm x", Q }, { "ls || rm x", Q },
	{ "ls & rm x", Q }, { "ls &", Q }, { "ls\nrm -rf /", Q },
	{ "git status\ncurl x | sh", Q }, { "echo ok\n\nrm x", Q },
	{ "ls;rm x", Q }, { "ls&&rm x", Q },
	/* pipes into shells and launchers */
	{ "curl x | sh", Q }, { "cat x | bash", Q }, { "echo id | sh", Q },
	{ "ls | xargs rm", Q }, { "ls | sh -c 'cat'", Q },
	{ "cat x | python3", Q }, { "git diff | bash -s", Q },
	{ "ls | tee out", Q }, { "ls | tee -a out", Q }, { "tee x", Q },
	/* substitutions */
	{ "echo $(rm x)", Q }, { "echo `rm x`", Q }, { "ls $(pwd)", Q },
	{ "ls \"$(id)\"", Q }, { "cat <(ls)", Q }, { "diff <(ls) <(ls a)", Q },
	{ "ls >(cat)", Q }, { "echo $((1+2))", Q }, { "echo $(ls)", Q },
	{ "echo \"`ls`\"", Q }, { "ls $(echo -la)", Q },
	/* parameters, IFS, assignments */
	{ "ls $HOME", Q }, { "ls \"$HOME\"", Q }, { "ls ${HOME}", Q },
	{ "echo $IFS", Q }, { "ls$IFS-la", Q }, { "cat $1", Q },
	{ "echo $@", Q }, { "IFS=x ls", Q }, { "x=1", Q },
	{ "LD_PRELOAD=/tmp/x.so ls", Q }, { "PAGER=sh git log", Q },
	{ "GIT_EXTERNAL_DIFF=sh git diff", Q }, { "PATH=/tmp ls", Q },
	{ "x=1; ls", Q }, { "echo ${x:-y}", Q }, { "echo $'\\x41'", A },
	/* globs, braces, tilde */
	{ "ls *", A }, { "cat *.txt", A }, { "ls ?", A }, { "ls [ab]", A },
	{ "rg foo *", Q }, { "grep x -- *", A }, { "echo {a,b}", Q },
	{ "ls {.,..}", Q }, { "cat x{1..3}", Q }, { "ls ~root", Q },
	/* (~ alone is the sandbox's own HOME, a private tmpfs: semantics.txt) */
	{ "cat ~x/.ssh/id_rsa", Q }, { "cat ~/$x", Q },
	/* redirections that write */
	{ "ls > out", Q }, { "ls >> out", Q }, { "ls >| out", Q },
	{ "ls &> out", Q }, { "ls &>> out", Q }, { "echo x > ~/.bashrc", Q },
	{ "cat x 1>out", Q }, { "ls 2>err", Q }, { "cat <> x", Q },
	{ "ls >/dev/nul", Q }, { "ls > /dev/null/../x", Q }, { "ls >& out", Q },
	{ "echo hi >$x", Q }, { "cat < $x", Q }, { "ls 3>x", Q },
	{ "echo hi > .bwgate.json", Q }, { "echo > .git/hooks/pre-commit", Q },
	{ "{ ls; } > out", Q }, { "(ls) > out", Q },
	/* find */
	{ "find . -exec rm {} \\;", Q }, { "find . -execdir sh -c x \\;", Q },
	{ "find . -ok rm {} \\;", Q }, { "find . -okdir rm {} \\;", Q },
	{ "find . -delete", Q }, { "find . -fprint x", Q },
	{ "find . -fprint0 x", Q }, { "find . -fprintf x %p", Q },
	{ "find . -fls x", Q }, { "find . -name x -exec sed -i s/a/b/ {} +", Q },
	{ "find . -e''xec rm {} \\;", Q }, { "find . -\\exec rm {} +", Q },
	{ "fi\\nd . -delete", Q }, { "find . -regex x -delete", Q },
	{ "find . -newerXY x", Q }, { "find . --exec", Q },
	{ "find . -name a -o -exec touch {} \\;", Q },
	/* git */
	{ "git -c core.pager=sh log", Q }, { "git -c diff.external=x diff", Q },
	{ "git -ccore.pager=x log", Q }, { "git --config-env=core.pager=X log", Q },
	{ "git log --output=x", Q }, { "git log --output x", Q },
	{ "git diff --output=/tmp/x", Q }, { "git log --outp=x", Q },
	{ "git diff --ext-diff", Q }, { "git show --ext-diff", Q },
	{ "git diff --textconv", Q }, { "git log -p --textconv", Q },
	{ "git -p log", Q }, { "git --paginate log", Q },
	{ "git --exec-path=/tmp log", Q }, { "git --git-dir=/tmp/x log", Q },
	{ "git --work-tree=/ status", Q }, { "git log --show-signature", Q },
	{ "git push", Q }, { "git commit -m x", Q }, { "git checkout .", Q },
	{ "git reset --hard", Q }, { "git branch -D x", Q },
	{ "git branch new", Q }, { "git config core.pager x", Q },
	{ "git stash", Q }, { "git clean -fdx", Q }, { "git gc", Q },
	{ "git status --bogus", Q }, { "git log --oneli", Q },
	{ "git difftool", Q }, { "git -C x -c y=z log", Q },
	{ "git help log", Q }, { "git submodule foreach rm x", Q },
	{ "git log --ext-diff -p", Q }, { "git -c alias.st=!sh st", Q },
	{ "git grep -O x", Q }, { "git log --exec=x", Q },
	/* sed */
	{ "sed s/a/b/ x", Q }, { "sed -i s/a/b/ x", Q },
	{ "sed -n 's/a/b/p' x", Q }, { "sed -n 'w out' x", Q },
	{ "sed -n '1w out' x", Q }, { "sed -n 'e id' x", Q },
	{ "sed -n '1e' x", Q }, { "sed -n 'r /etc/passwd' x", Q },
	{ "sed -n '/x/W out' x", Q }, { "sed -n p -i x", Q },
	{ "sed -ni p x", Q }, { "sed -n --in-place p x", Q },
	{ "sed -n --in-pl p x", Q }, { "sed -n -f s.sed x", Q },
	{ "sed -n 'p;s/x/y/e' x", Q }, { "sed p x", Q },
	{ "sed -n 'y/abc/xyz/' x", Q }, { "sed -n '1!G;h;$p' x", Q },
	{ "sed -n -e p -e 'w x' f", Q }, { "sed --posix -n 'p;w x' f", Q },
	{ "sed -n '/a/p;w x' f", Q }, { "sed -n '/a\\/p/w x' f", Q },
	{ "sed -n '#n' x", Q }, { "sed -n", Q }, { "sed -n 'p' -s -i x", Q },
	{ "sed -n '{p' x", Q }, { "sed -n 'p}' x", Q },
	/* awk, interpreters, launchers */
	{ "awk '{print}' x", Q }, { "awk 'BEGIN{system(\"id\")}'", Q },
	{ "gawk x", Q }, { "awk '{print > \"out\"}' x", Q },
	{ "xargs rm", Q }, { "env", A }, { "env ls", Q }, { "env -i sh", Q },
	{ "sudo ls", Q }, { "command ls", Q }, { "builtin echo", Q },
	{ "eval ls", Q }, { "exec ls", Q }, { "source x", Q }, { ". x", Q },
	{ "nohup ls", Q }, { "timeout 5 ls", Q }, { "nice ls", Q },
	{ "time ls", A }, { "bash -c ls x", Q }, { "sh -c 'ls' x", Q },
	{ "python3 -c 'print(1)'", Q }, { "perl -e x", Q }, { "node -e x", Q },
	{ "/tmp/sh -c ls", Q }, { "hash -p /tmp/x ls", Q },
	{ "alias ls=rm", Q }, { "export PATH=/tmp", Q }, { "trap x EXIT", Q },
	/* sort, uniq, tee and other writers */
	{ "sort -o out x", Q }, { "sort --output=out x", Q },
	{ "sort --out=out x", Q }, { "sort --o=x y", Q },
	{ "sort --output out x", Q }, { "sort -uo out x", Q },
	{ "sort -T /tmp x", Q }, { "sort --compress-program=sh x", Q },
	{ "sort --compress=sh x", Q }, { "uniq in out", Q },
	{ "uniq -c in out", Q }, { "rg --pre cat foo", Q }, { "rg -z foo", Q },
	{ "rg --search-zip foo", Q }, { "rg -uz foo", Q }, { "rg --pr=x f", Q },
	{ "rg --pre=sh x", Q }, { "rg --hostname-bin=x y", Q },
	{ "file -C -m x", Q }, { "file -z x.gz", Q }, { "diff -l a b", Q },
	{ "diff --pag a b", Q }, { "tree -o out", Q }, { "tree -R -H x", Q },
	{ "date -s 2020-01-01", Q }, { "date 0101", Q }, { "printf -v x y", Q },
	{ "cp a b", Q }, { "mv a b", Q }, { "rm x", Q }, { "touch x", Q },
	{ "mkdir x", Q }, { "chmod 777 x", Q }, { "dd if=x of=y", Q },
	{ "ln -s a b", Q }, { "truncate -s0 x", Q }, { "install a b", Q },
	{ "make", Q }, { "npm install", Q }, { "curl https://x", Q },
	{ "wget x", Q }, { "ssh host", Q }, { "vim x", Q }, { "less x", Q },
	{ "head -n", Q }, { "ls --bogus", Q }, { "cat --bogus x", Q },
	{ "grep --frobnicate x", Q }, { "ls -y", Q }, { "pwd x", Q },
	{ "head --l=3 --li x", A }, { "ls --al", Q },
	/* command names that are not what they look like */
	{ "./ls", Q }, { "./cat x", Q }, { "/tmp/x/cat", Q }, { "../bin/ls", Q },
	{ "bin/ls", Q }, { "/usr/bin/../../tmp/ls", Q }, { "/usr//bin/ls", Q },
	{ "/usr/./bin/ls", Q }, { "/usr/local/../../tmp/cat", Q },
	{ "/home/u/bin/ls", Q }, { "\"r\"m -rf x", Q }, { "\\rm x", Q },
	{ "r\\m x", Q }, { "'rm' x", Q }, { "/usr/bin/", Q }, { "''", Q },
	/* control characters, CR and invisible Unicode */
	{ "ls\r", Q }, { "ls\rrm -rf /", Q }, { "ls\x1b[2K", Q },
	{ "ls\x07", Q }, { "ls\x7f", Q }, { "ls\x01", Q }, { "ls\x0b", Q },
	{ "ls\x0c", Q }, { "ls\xc2\xa0-la", Q }, { "l\xe2\x80\x8bs", Q },
	{ "ls \xe2\x80\xae", Q }, { "ls \xe2\x81\xa6x\xe2\x81\xa9", Q },
	{ "\xef\xbb\xbfls", Q }, { "ls \xff", Q }, { "ls \xc0\xaf", Q },
	{ "ls\xe3\x80\x80x", Q }, { "ls \xf3\xa0\x80\x81", Q },
	{ "ls \xe2\x80\x8d", Q }, { "ls \xe2\x80\x8e", Q },
	{ "ls \xe2\x80\x8f", Q }, { "ls \xe2\x80\xaa", Q },
	{ "ls \xe2\x80\xab", Q }, { "ls \xe2\x80\xac", Q },
	{ "ls \xe2\x80\xad", Q }, { "ls \xe2\x81\xa7", Q },
	{ "ls \xe2\x81\xa8", Q }, { "ls \xc2\xad", Q }, { "ls \xe2\x80\xa8", Q },
	{ "ls \xed\xa0\x80", Q }, { "ls \xc2\x85", Q }, { "ls \xe2\x81\xa0", Q },
	{ "echo '\xe2\x80\xae'", Q },
	/* here-documents and here-strings */
	{ "cat <<EOF\n$(rm x)\nEOF\n", Q }, { "cat <<< $(id)", Q },
	{ "cat <<< \"$HOME\"", Q }, { "sh <<EOF\nrm x\nEOF\n", Q },
	/* control flow and other unmodelled constructs */
	{ "for i in $x; do ls; done", Q }, { "if true; then ls; fi", Q },
	{ "while true; do ls; done", Q }, { "f() { ls; }", Q },
	{ "[[ -f x ]]", Q }, { "(( x = 1 ))", Q },
	{ "case x in x) ls;; esac", Q }, { "coproc ls", Q },
	{ "until false; do ls; done", Q }, { "a=(1 2)", Q },
	/* unparsable */
	{ "ls '", Q }, { "echo \"x", Q }, { "ls (", Q }, { "ls |", Q },
	{ "&& ls", Q }, { "ls ;;", Q }, { "", Q }, { "   ", Q },
	{ "$(", Q }, { "ls `", Q }, { "cat <<EOF\nx\n", Q },
};

/* Environment for each test: data dir, private config dir. */
static char	*tmpdir;

static void
write_file(const char *path, const char *text, mode_t mode)
{
	int	fd;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

static int
setup(void **state)
{
	const char	*src = getenv("BWGATE_SRCDIR");
	char		*dir, *cfg;

	dir = xasprintf("%s/share/bwgate", src != NULL ? src : "..");
	setenv("BWGATE_DATADIR", dir, 1);
	free(dir);
	tmpdir = xstrdup("/tmp/test-allowlist.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	cfg = xasprintf("%s/config", tmpdir);
	mkdir(cfg, 0700);
	setenv("XDG_CONFIG_HOME", cfg, 1);
	free(cfg);
	cfg = xasprintf("%s/config/bwgate", tmpdir);
	mkdir(cfg, 0700);
	free(cfg);
	cfg = xasprintf("%s/project", tmpdir);
	mkdir(cfg, 0755);
	free(cfg);
	setenv("HOME", tmpdir, 1);
	*state = NULL;
	return 0;
}

static int
teardown(void **state)
{
	char	*cmd = xasprintf("rm -rf '%s'", tmpdir);

	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(tmpdir);
	return 0;
}

/* Classify every vector; report all mismatches, then fail. */
static void
run_vectors(const struct allowlist *al, const struct vector *v, size_t n)
{
	struct classification	c = CLASSIFICATION_INIT;
	size_t			i, bad = 0;

	for (i = 0; i < n; i++) {
		allowlist_classify(al, v[i].command, &c);
		/* danger is an ask that needs more: good for a bypass. */
		if (c.verdict != v[i].verdict && !(v[i].verdict ==
		    VERDICT_ASK && c.verdict == VERDICT_DANGER)) {
			print_error("'%s': expected %s, got %s (%s)\n",
			    v[i].command, verdict_name(v[i].verdict),
			    verdict_name(c.verdict), c.reason);
			bad++;
		}
		assert_non_null(c.reason);
		assert_non_null(c.profile);
		if (c.verdict == VERDICT_ALLOW) {
			assert_non_null(c.rule);
			assert_string_equal(c.profile, "readonly");
		}
		classification_release(&c);
	}
	if (bad > 0)
		fail_msg("%zu of %zu vectors misclassified", bad, n);
}

static struct allowlist *
load(const char *project)
{
	char			*cause = NULL;
	struct allowlist	*al = allowlist_load(project, &cause);

	if (al == NULL)
		fail_msg("allowlist_load: %s", cause);
	return al;
}

static void
test_safe(void **state)
{
	struct allowlist	*al = load(NULL);

	run_vectors(al, safe, sizeof safe / sizeof *safe);
	allowlist_free(al);
}

static void
test_bypass(void **state)
{
	struct allowlist	*al = load(NULL);

	run_vectors(al, bypass, sizeof bypass / sizeof *bypass);
	allowlist_free(al);
}

/* Long inputs: a huge argument, a long pipeline, deep nesting. */
static void
test_long(void **state)
{
	struct allowlist	*al = load(NULL);
	struct classification	 c = CLASSIFICATION_INIT;
	struct vector		 v[4];
	char			*big, *pipe, *deep;
	size_t			 i;

	big = xmalloc(70010);
	memcpy(big, "ls ", 3);
	memset(big + 3, 'a', 70000);
	big[70003] = '\0';
	pipe = xmalloc(200 * 6 + 10);
	strcpy(pipe, "ls");
	for (i = 0; i < 200; i++)
		strcat(pipe, " | cat");
	deep = xmalloc(1000 * 3 + 10);
	deep[0] = '\0';
	strcat(deep, "echo ");
	for (i = 0; i < 500; i++)
		strcat(deep, "$(");
	for (i = 0; i < 500; i++)
		strcat(deep, ")");
	v[0].command = big; v[0].verdict = Q;
	v[1].command = pipe; v[1].verdict = A;
	v[2].command = deep; v[2].verdict = Q;
	v[3].command = "ls -la && git status && git diff | head -n 100"; 
	v[3].verdict = A;
	run_vectors(al, v, 4);
	allowlist_classify(al, pipe, &c);
	assert_int_equal(c.commands.n, 201);
	classification_release(&c);
	free(big);
	free(pipe);
	free(deep);
	allowlist_free(al);
}

/* Reasons, rule names and the command list. */
static void
test_details(void **state)
{
	struct allowlist	*al = load(NULL);
	struct classification	 c = CLASSIFICATION_INIT;
	struct strv		 argv = STRV_INIT;
	cJSON			*j;

	allowlist_classify(al, "ls -la | wc -l", &c);
	assert_int_equal(c.verdict, VERDICT_ALLOW);
	assert_int_equal(c.commands.n, 2);
	assert_non_null(strstr(c.rule, "allowlist.json:ls"));
	assert_non_null(strstr(c.rule, "allowlist.json:wc"));
	j = classification_json(&c);
	assert_string_equal(cJSON_GetObjectItem(j, "verdict")->valuestring,
	    "allow");
	assert_string_equal(cJSON_GetObjectItem(j, "profile")->valuestring,
	    "readonly");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j,
	    "commands")), 2);
	cJSON_Delete(j);

	allowlist_classify(al, "sort -o out x", &c);
	assert_int_equal(c.verdict, VERDICT_ASK);
	assert_null(c.rule);
	assert_non_null(strstr(c.reason, "'-o'"));
	assert_string_equal(c.profile, "project");

	allowlist_classify(al, "rg --pre=sh x", &c);
	assert_non_null(strstr(c.reason, "--pre"));
	allowlist_classify(al, "./cat x", &c);
	assert_non_null(strstr(c.reason, "./cat"));
	allowlist_classify(al, "ls\xc2\xa0-la", &c);
	assert_non_null(strstr(c.reason, "U+00A0"));
	allowlist_classify(al, "ls\r", &c);
	assert_non_null(strstr(c.reason, "carriage return"));
	allowlist_classify(al, "bash -c ls x", &c);
	assert_non_null(strstr(c.reason, "shell"));
	j = classification_json(&c);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(j, "rule")));
	cJSON_Delete(j);

	/* An argv is quoted: its words stay words. */
	strv_push(&argv, "ls");
	strv_push(&argv, "a b; rm -rf x");
	allowlist_classify_argv(al, &argv, &c);
	assert_int_equal(c.verdict, VERDICT_ALLOW);
	assert_int_equal(c.commands.n, 1);
	strv_release(&argv);
	strv_push(&argv, "rm");
	strv_push(&argv, "x");
	allowlist_classify_argv(al, &argv, &c);
	assert_int_equal(c.verdict, VERDICT_ASK);
	strv_release(&argv);
	classification_release(&c);
	assert_string_equal(verdict_name(VERDICT_DENY), "deny");
	allowlist_free(al);
}

static char *
user_file(void)
{
	return xasprintf("%s/config/bwgate/allowlist.json", tmpdir);
}

static char *
project_file(void)
{
	return xasprintf("%s/project/.bwgate.json", tmpdir);
}

static char *
project_dir(void)
{
	return xasprintf("%s/project", tmpdir);
}

static enum verdict
verdict_of(const struct allowlist *al, const char *cmd)
{
	struct classification	c = CLASSIFICATION_INIT;
	enum verdict		v;

	allowlist_classify(al, cmd, &c);
	v = c.verdict;
	classification_release(&c);
	return v;
}

/* The verdict of 'cd DIR+TAIL && git status' is want. */
static void
cd_git(const struct allowlist *al, const char *dir, const char *tail,
    enum verdict want)
{
	char	*cmd = xasprintf("cd %s%s && git status", dir, tail);

	if (verdict_of(al, cmd) != want)
		fail_msg("%s: verdict %d, expected %d", cmd,
		    (int)verdict_of(al, cmd), (int)want);
	free(cmd);
}

/* Quoted pattern words hold blanks, quotes and glob characters exactly;
   the user's rules for one project apply only to that project. */
static void
test_quoted_and_per_project(void **state)
{
	char			*cause = NULL, *pf, *dir = project_dir();
	char			*other;
	struct allowlist	*al;

	pf = allowlist_user_project_file(dir, &cause);
	assert_non_null(pf);
	assert_non_null(strstr(pf, "/config/bwgate/projects/project-"));
	other = xasprintf("%s/config/bwgate/projects", tmpdir);
	mkdir(other, 0700);
	free(other);
	write_file(pf, "{ \"rules\": [\n"
	    " { \"id\": \"q\", \"pattern\": [\"mytool -m 'a b'\",\n"
	    "   \"mytool 'it'\\\\''s' '' 'x*'\"], \"verdict\": \"allow\",\n"
	    "   \"reason\": \"t\", \"match\": [\"mytool -m 'a b'\"],\n"
	    "   \"no_match\": [\"mytool -m 'a c'\", \"mytool -m a b\"] }\n"
	    "] }\n", 0600);
	al = load(dir);
	assert_int_equal(verdict_of(al, "mytool -m 'a b'"), A);
	assert_int_equal(verdict_of(al, "mytool -m \"a b\""), A);
	assert_int_equal(verdict_of(al, "mytool -m a b"), Q);
	assert_int_equal(verdict_of(al, "mytool \"it's\" '' 'x*'"), A);
	assert_int_equal(verdict_of(al, "mytool \"it's\" '' xy"), Q);
	/* 'cd PROJECT' (that very word) keeps git in the project's own
	   repository; any other directory may hold another one. */
	cd_git(al, dir, "", A);
	cd_git(al, dir, "/sub", Q);
	cd_git(al, dir, "/..", Q);
	cd_git(al, dir, "x", Q);
	assert_int_equal(verdict_of(al, "cd /tmp && git status"), Q);
	allowlist_free(al);
	/* Not in another project, nor without one. */
	other = xasprintf("%s/elsewhere", tmpdir);
	mkdir(other, 0755);
	al = load(other);
	assert_int_equal(verdict_of(al, "mytool -m 'a b'"), Q);
	allowlist_free(al);
	al = load(NULL);
	assert_int_equal(verdict_of(al, "mytool -m 'a b'"), Q);
	allowlist_free(al);
	/* An unterminated quote is an error naming the pattern. */
	write_file(pf, "{ \"rules\": [ { \"id\": \"q\", \"pattern\": "
	    "\"mytool 'a\", \"verdict\": \"allow\", \"reason\": \"t\" } ] "
	    "}\n", 0600);
	assert_null(allowlist_load(dir, &cause));
	assert_non_null(strstr(cause, "unterminated quote"));
	free(cause);
	unlink(pf);
	free(pf);
	free(other);
	free(dir);
}

/* User rules: allow, ask and deny layered over the shipped ones. */
static void
test_user_layer(void **state)
{
	char			*u = user_file();
	struct allowlist	*al;
	struct classification	 c = CLASSIFICATION_INIT;

	write_file(u, "{ \"rules\": [\n"
	    " { \"id\": \"make-test\", \"pattern\": \"make test\",\n"
	    "   \"verdict\": \"allow\", \"profile\": \"build\",\n"
	    "   \"reason\": \"runs the tests\", \"match\": [\"make test\"],\n"
	    "   \"no_match\": [\"make install\", \"make test x\"] },\n"
	    " { \"id\": \"meson\", \"pattern\": \"meson compile *\",\n"
	    "   \"verdict\": \"allow\", \"reason\": \"builds\" },\n"
	    " { \"id\": \"no-rm\", \"pattern\": \"rm *\", \"verdict\": \"deny\",\n"
	    "   \"reason\": \"never delete\" },\n"
	    " { \"id\": \"shadow\", \"pattern\": \"cat /etc/shadow\",\n"
	    "   \"verdict\": \"deny\", \"reason\": \"secrets\" },\n"
	    " { \"id\": \"lsR\", \"pattern\": \"ls -R *\", \"verdict\": \"ask\",\n"
	    "   \"reason\": \"too big\" },\n"
	    " { \"id\": \"build-sh\", \"pattern\": \"bash build.sh\",\n"
	    "   \"verdict\": \"allow\", \"reason\": \"the build script\" },\n"
	    " { \"id\": \"touch\", \"pattern\": \"touch *\",\n"
	    "   \"verdict\": \"allow\", \"profile\": \"project\",\n"
	    "   \"reason\": \"writes the project\" }\n"
	    "] }\n", 0644);
	al = load(NULL);
	assert_int_equal(verdict_of(al, "make test"), A);
	/* xargs and find -exec pass only what runs read-only: touch is
	   allowed, but with the project writable. */
	assert_int_equal(verdict_of(al, "touch x"), A);
	assert_int_equal(verdict_of(al, "ls | xargs touch"), Q);
	assert_int_equal(verdict_of(al, "find . -exec touch {} +"), Q);
	assert_int_equal(verdict_of(al, "find . -name x -exec touch {} \\;"),
	    Q);
	assert_int_equal(verdict_of(al, "find . -exec touch x \\;"), Q);
	assert_int_equal(verdict_of(al, "find . -exec touch x +"), Q);
	assert_int_equal(verdict_of(al, "ls | xargs cat"), A);
	assert_int_equal(verdict_of(al, "find . -exec cat x \\;"), A);
	assert_int_equal(verdict_of(al, "make install"), Q);
	assert_int_equal(verdict_of(al, "make test; make install"), Q);
	assert_int_equal(verdict_of(al, "make test > log"), Q);
	assert_int_equal(verdict_of(al, "./make test"), Q);
	assert_int_equal(verdict_of(al, "meson compile"), A);
	assert_int_equal(verdict_of(al, "meson compile -C build"), A);
	assert_int_equal(verdict_of(al, "meson compile $x"), Q);
	assert_int_equal(verdict_of(al, "meson setup"), Q);
	assert_int_equal(verdict_of(al, "rm x"), D);
	assert_int_equal(verdict_of(al, "ls; rm x"), D);
	assert_int_equal(verdict_of(al, "echo $(rm x)"), D);
	assert_int_equal(verdict_of(al, "/tmp/rm x"), D);
	assert_int_equal(verdict_of(al, "ls\r; rm x"), D);
	/* Deny rules see through commands that run commands. */
	assert_int_equal(verdict_of(al, "env rm x"), D);
	assert_int_equal(verdict_of(al, "env FOO=1 /bin/rm x"), D);
	assert_int_equal(verdict_of(al, "ls | xargs rm"), D);
	assert_int_equal(verdict_of(al, "sudo -u root rm -rf /"), D);
	assert_int_equal(verdict_of(al, "timeout 5 rm x"), D);
	assert_int_equal(verdict_of(al, "nice -n 5 rm x"), D);
	assert_int_equal(verdict_of(al, "command rm x"), D);
	assert_int_equal(verdict_of(al, "bash -c 'rm -rf x'"), D);
	assert_int_equal(verdict_of(al, "sh -c 'ls; rm x'"), D);
	assert_int_equal(verdict_of(al, "sh -xc 'rm x'"), D);
	assert_int_equal(verdict_of(al, "env ls"), Q);
	/* A shell's literal string alone is judged as the string. */
	assert_int_equal(verdict_of(al, "sh -c 'ls'"), A);
	assert_int_equal(verdict_of(al, "sh -c 'ls' x"), Q);
	assert_int_equal(verdict_of(al, "cat /etc/shadow"), D);
	assert_int_equal(verdict_of(al, "cat /etc/passwd"), A);
	assert_int_equal(verdict_of(al, "ls -R"), Q);
	assert_int_equal(verdict_of(al, "ls -R src"), Q);
	assert_int_equal(verdict_of(al, "bash build.sh"), A);
	assert_int_equal(verdict_of(al, "bash build.sh x"), Q);
	allowlist_classify(al, "make test", &c);
	assert_string_equal(c.profile, "build");
	assert_non_null(strstr(c.rule, "config/bwgate/allowlist.json:make-test"));
	allowlist_classify(al, "ls | make test", &c);
	assert_string_equal(c.profile, "build");
	allowlist_classify(al, "rm -rf x", &c);
	assert_string_equal(c.reason, "never delete");
	assert_non_null(strstr(c.rule, ":no-rm"));
	classification_release(&c);
	allowlist_free(al);
	unlink(u);
	free(u);
}

/* A project file that widens the sandbox is refused as a whole, with a
   clear error; the other layers still load (narrow.h). */
static void
test_project_narrow(void **state)
{
	char			*p = project_file(), *dir = project_dir();
	char			*link, *text, *cause = NULL;
	struct allowlist	*al;
	struct sandbox_policy	 pol;
	static const struct {
		const char	*json;
		const char	*why;
	} bad[] = {
		{ "{\"profiles\":{\"w\":{\"network\":true}},\"rules\":[]}",
		    "grants the network" },
		{ "{\"profiles\":{\"w\":{\"writable\":[\"/\"]}},\"rules\":[]}",
		    "outside the project" },
		{ "{\"profiles\":{\"w\":{\"writable\":[\"~/.ssh\"]}},"
		    "\"rules\":[]}", "outside the project" },
		{ "{\"profiles\":{\"w\":{\"writable\":[\"@/out/x\"]}},"
		    "\"rules\":[]}", "outside the project" },
		{ "{\"profiles\":{\"w\":{\"git_writable\":true}},\"rules\":[]}",
		    "writable .git" },
		{ "{\"profiles\":{\"readonly\":{}},\"rules\":[]}",
		    "replaces the profile" },
		{ "{\"rules\":[{\"id\":\"m\",\"pattern\":\"make *\","
		    "\"verdict\":\"allow\",\"profile\":\"network\","
		    "\"reason\":\"r\"}]}", "grants the network" },
	};

	/* A link inside the project that leads out of it. */
	link = xasprintf("%s/out", dir);
	unlink(link);
	assert_int_equal(symlink("/etc", link), 0);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *at = strchr(bad[i].json, '@');

		if (at != NULL)
			text = xasprintf("%.*s%s%s", (int)(at - bad[i].json),
			    bad[i].json, dir, at + 1);
		else
			text = xstrdup(bad[i].json);
		write_file(p, text, 0644);
		free(text);
		al = load(dir);
		assert_non_null(allowlist_project_error(al));
		if (strstr(allowlist_project_error(al), bad[i].why) == NULL)
			fail_msg("case %zu: %s", i,
			    allowlist_project_error(al));
		assert_null(allowlist_project(al, NULL));
		/* The shipped rules still decide. */
		assert_int_equal(verdict_of(al, "ls"), A);
		allowlist_free(al);
	}
	unlink(link);
	free(link);

	/* Narrowing is fine: a read-only profile, a path inside. */
	text = xasprintf("{\"profiles\":{\"ro\":{\"project_readonly\":true,"
	    "\"writable\":[\"%s/build\"]}},\"rules\":[{\"id\":\"m\","
	    "\"pattern\":\"make *\",\"verdict\":\"allow\",\"profile\":"
	    "\"ro\",\"reason\":\"r\"}]}", dir);
	write_file(p, text, 0644);
	free(text);
	al = load(dir);
	assert_null(allowlist_project_error(al));
	assert_non_null(allowlist_project(al, NULL));
	sandbox_policy_init(&pol);
	assert_int_equal(allowlist_profile_apply(al, "readonly", &pol,
	    &cause), 0);
	assert_true(pol.project_readonly);
	sandbox_policy_release(&pol);
	allowlist_free(al);
	unlink(p);
	free(p);
	free(dir);
}

/* Project rules: deny and ask always count; allow only once trusted. */
static void
test_project_trust(void **state)
{
	char			*p = project_file(), *dir = project_dir();
	char			*cause = NULL;
	struct allowlist	*al;
	struct classification	 c = CLASSIFICATION_INIT;
	const char		*text =
	    "{ \"profiles\": { \"mine\": { \"project_readonly\": true } },\n"
	    "  \"rules\": [\n"
	    " { \"id\": \"make\", \"pattern\": \"make *\", \"verdict\": \"allow\",\n"
	    "   \"profile\": \"mine\", \"reason\": \"the project says so\" },\n"
	    " { \"id\": \"no-grep\", \"command\": \"grep\", \"verdict\": \"deny\",\n"
	    "   \"options\": [\"-r\"], \"required\": [\"-r\"],\n"
	    "   \"reason\": \"no recursive grep\" }\n"
	    "] }\n";
	bool			 trusted = true;

	write_file(p, text, 0644);
	al = load(dir);
	assert_string_equal(allowlist_project(al, &trusted), p);
	assert_false(trusted);
	allowlist_classify(al, "make", &c);
	assert_int_equal(c.verdict, VERDICT_ASK);
	assert_non_null(strstr(c.reason, "not trusted"));
	assert_int_equal(verdict_of(al, "grep -r x"), D);
	assert_int_equal(verdict_of(al, "grep x f"), A);
	{
		struct sandbox_policy pol;

		sandbox_policy_init(&pol);
		assert_int_equal(allowlist_profile_apply(al, "mine", &pol,
		    &cause), -1);
		sandbox_policy_release(&pol);
	}
	free(cause);
	cause = NULL;
	allowlist_free(al);

	/* Trust this exact content. */
	{
		char hex[SHA256_HEX_LEN + 1];

		sha256_hex(text, strlen(text), hex);
		assert_int_equal(allowlist_trust_record(p, hex, &cause), 0);
	}
	al = load(dir);
	allowlist_project(al, &trusted);
	assert_true(trusted);
	allowlist_classify(al, "make all", &c);
	assert_int_equal(c.verdict, VERDICT_ALLOW);
	assert_string_equal(c.profile, "mine");
	assert_int_equal(verdict_of(al, "grep -r x"), D);
	allowlist_free(al);

	/* Any change makes it untrusted again. */
	write_file(p, "{ \"rules\": [\n"
	    " { \"id\": \"make\", \"pattern\": \"make *\", \"verdict\": \"allow\",\n"
	    "   \"reason\": \"the project says so\" },\n"
	    " { \"id\": \"x\", \"pattern\": \"curl *\", \"verdict\": \"allow\",\n"
	    "   \"reason\": \"sneaked in\" }\n"
	    "] }\n", 0644);
	al = load(dir);
	assert_int_equal(verdict_of(al, "make all"), Q);
	assert_int_equal(verdict_of(al, "curl x"), Q);
	allowlist_free(al);

	/* A world-writable project file is refused outright. */
	write_file(p, text, 0646);
	assert_null(allowlist_load(dir, &cause));
	assert_non_null(strstr(cause, "world-writable: refused"));
	free(cause);
	cause = NULL;
	/* Group-writable: refused unless the group is the owner's private
	   group (umask 002 systems). */
	write_file(p, text, 0664);
	{
		struct passwd	*pw = getpwuid(getuid());
		struct group	*gr = getgrgid(getgid());
		bool		 private = pw != NULL && gr != NULL &&
				    strcmp(gr->gr_name, pw->pw_name) == 0 &&
				    gr->gr_mem[0] == NULL;

		al = allowlist_load(dir, &cause);
		if (private)
			assert_non_null(al);
		else {
			assert_null(al);
			assert_non_null(strstr(cause, "group-writable"));
		}
		allowlist_free(al);
		free(cause);
		cause = NULL;
	}
	if (getuid() == 0 || getgid() != 1) {
		/* A group the owner does not own alone (root can pick any;
		   others may be in none: then chown fails and that part of
		   the check is covered by the world-writable case above). */
		if (chown(p, (uid_t)-1, 1) == 0) {
			assert_int_equal(chmod(p, 0664), 0);
			assert_null(allowlist_load(dir, &cause));
			assert_non_null(strstr(cause, "group-writable: "
			    "refused"));
			free(cause);
			cause = NULL;
		}
	}
	assert_int_equal(allowlist_trust_record(p, NULL, &cause), 0);
	classification_release(&c);
	unlink(p);
	free(p);
	free(dir);
}

/* Profiles map onto policy fields. */
static void
test_profiles(void **state)
{
	struct allowlist	*al = load(NULL);
	struct sandbox_policy	 pol;
	char			*cause = NULL, *cache;

	cache = xasprintf("%s/.cache", tmpdir);
	mkdir(cache, 0755);
	free(cache);
	cache = xasprintf("%s/.cache/ccache", tmpdir);
	mkdir(cache, 0755);

	sandbox_policy_init(&pol);
	assert_int_equal(allowlist_profile_apply(al, "readonly", &pol, &cause),
	    0);
	assert_true(pol.project_readonly);
	assert_false(pol.network);
	assert_false(pol.git_writable);
	assert_string_equal(pol.profile, "readonly");
	sandbox_policy_release(&pol);

	sandbox_policy_init(&pol);
	assert_int_equal(allowlist_profile_apply(al, "project", &pol, &cause),
	    0);
	assert_false(pol.project_readonly);
	assert_false(pol.network);
	sandbox_policy_release(&pol);

	sandbox_policy_init(&pol);
	assert_int_equal(allowlist_profile_apply(al, "network", &pol, &cause),
	    0);
	assert_true(pol.network);
	assert_false(pol.project_readonly);
	sandbox_policy_release(&pol);

	sandbox_policy_init(&pol);
	assert_int_equal(allowlist_profile_apply(al, "git-write", &pol,
	    &cause), 0);
	assert_true(pol.git_writable);
	sandbox_policy_release(&pol);

	sandbox_policy_init(&pol);
	assert_int_equal(allowlist_profile_apply(al, "build", &pol, &cause),
	    0);
	assert_true(strv_contains(&pol.rw_paths, cache));
	assert_int_equal(pol.rw_paths.n, 1);	/* only the existing one */
	sandbox_policy_release(&pol);

	sandbox_policy_init(&pol);
	assert_int_equal(allowlist_profile_apply(al, "readonly+network", &pol,
	    &cause), 0);
	assert_false(pol.project_readonly);
	assert_true(pol.network);
	sandbox_policy_release(&pol);

	sandbox_policy_init(&pol);
	assert_int_equal(allowlist_profile_apply(al, "nosuch", &pol, &cause),
	    -1);
	assert_non_null(strstr(cause, "nosuch"));
	free(cause);
	sandbox_policy_release(&pol);
	free(cache);
	allowlist_free(al);
}

/* Rule files that must be refused, with what the error must say. */
static const struct {
	const char	*text;
	const char	*error;
} bad_files[] = {
	{ "{ \"rulez\": [] }", ":1: rulez: unknown key \"rulez\"" },
	{ "{\n \"rules\": [\n  { \"id\": \"a\",\n    \"reson\": \"x\" }\n ] }",
	  ":4: rules[0].reson (rule \"a\"): unknown key \"reson\"" },
	{ "{ \"rules\": [ { \"id\": \"a\", \"verdict\": \"allow\",\n"
	  "  \"command\": \"ls\" } ] }", "needs a \"reason\"" },
	{ "{ \"rules\": [ { \"id\": \"a\", \"verdict\": 3, \"reason\": \"r\",\n"
	  "  \"command\": \"ls\" } ] }",
	  ":1: rules[0].verdict (rule \"a\"): \"verdict\" must be a string" },
	{ "{ \"rules\": [ { \"id\": \"a\", \"verdict\": \"maybe\",\n"
	  " \"reason\": \"r\", \"command\": \"ls\" } ] }",
	  "verdict must be \"allow\", \"ask\" or \"deny\"" },
	{ "{ \"rules\": [ { \"reason\": \"r\" } ] }", "needs an \"id\"" },
	{ "{ \"rules\": [ { \"id\": \"a\", \"reason\": \"r\",\n"
	  " \"verdict\": \"allow\" } ] }", "needs \"command\" or \"pattern\"" },
	{ "{ \"rules\": [ { \"id\": \"a\", \"reason\": \"r\",\n"
	  " \"verdict\": \"allow\", \"command\": \"ls\", \"pattern\": \"ls\" } ] }",
	  "not both" },
	{ "{ \"rules\": [ { \"id\": \"a\", \"reason\": \"r\",\n"
	  " \"verdict\": \"allow\", \"pattern\": \"ls\", \"options\": [] } ] }",
	  "\"options\" needs \"command\"" },
	{ "{ \"rules\": [ { \"id\": \"a\", \"reason\": \"r\",\n"
	  " \"verdict\": \"allow\", \"command\": \"ls\",\n"
	  " \"options\": [\"-a\"], \"forbidden\": { \"-b\": \"x\" } } ] }",
	  "forbidden option \"-b\" is not in \"options\"" },
	{ "{ \"rules\": [ { \"id\": \"a\", \"reason\": \"r\",\n"
	  " \"verdict\": \"allow\", \"command\": \"ls\",\n"
	  " \"options\": [\"-a=NOPE\"] } ] }", "unknown value kind \"NOPE\"" },
	{ "{ \"rules\": [ { \"id\": \"a\", \"reason\": \"r\",\n"
	  " \"verdict\": \"allow\", \"command\": \"ls\",\n"
	  " \"options\": [\"a\"] } ] }", "is not an option name" },
	{ "{ \"rules\": [ { \"id\": \"a\", \"reason\": \"r\",\n"
	  " \"verdict\": \"allow\", \"command\": \"ls\" },\n"
	  " { \"id\": \"a\", \"reason\": \"r\",\n"
	  " \"verdict\": \"allow\", \"command\": \"ls\" } ] }", "used twice" },
	{ "{ \"rules\": [ { \"id\": \"a\", \"reason\": \"r\",\n"
	  " \"verdict\": \"allow\", \"command\": \"bash\" } ] }",
	  "cannot be allowed by name" },
	{ "{ \"rules\": [ { \"id\": \"a\", \"reason\": \"r\",\n"
	  " \"verdict\": \"allow\", \"pattern\": \"python3 *\" } ] }",
	  "cannot be allowed with wildcards" },
	{ "{ \"rules\": [ { \"id\": \"a\", \"reason\": \"r\",\n"
	  " \"verdict\": \"allow\", \"pattern\": \"*\" } ] }",
	  "must start with a plain command name" },
	{ "{ \"rules\": [ { \"id\": \"a\", \"reason\": \"r\",\n"
	  " \"verdict\": \"allow\", \"command\": \"ls\",\n"
	  " \"operands\": { \"max\": 1.5 } } ] }", "whole number" },
	{ "{ \"rules\": [ { \"id\": \"a\", \"reason\": \"r\",\n"
	  " \"verdict\": \"allow\", \"command\": \"ls\",\n"
	  " \"script\": \"awk\" } ] }", "unknown script checker" },
	{ "{ \"rules\": [ { \"id\": \"a\", \"reason\": \"r\",\n"
	  " \"verdict\": \"allow\", \"command\": \"ls\",\n"
	  " \"style\": \"bsd\" } ] }", "style must be" },
	{ "{ \"profiles\": { \"p\": { \"network\": \"yes\" } } }",
	  "profiles.p.network: \"network\" must be true or false" },
	{ "{ \"profiles\": { \"p\": { \"writable\": [\"rel/x\"] } } }",
	  "must be absolute" },
	{ "{ \"version\": 2 }", "unsupported version" },
	{ "{ \"rules\": [ \n\n  { \"id\": \"a\" ", ":3: invalid JSON" },
	{ "[]", "a rule file is a JSON object" },
};

static void
test_validation(void **state)
{
	struct rulefile	rf;
	char		*cause;
	size_t		i, bad = 0;

	for (i = 0; i < sizeof bad_files / sizeof *bad_files; i++) {
		rulefile_init(&rf);
		cause = NULL;
		if (rulefile_parse("/x/rules.json", bad_files[i].text, &rf,
		    &cause) == 0) {
			print_error("accepted: %s\n", bad_files[i].text);
			bad++;
		} else if (cause == NULL ||
		    strstr(cause, bad_files[i].error) == NULL ||
		    strncmp(cause, "'/x/rules.json':", 16) != 0) {
			print_error("error '%s' lacks '%s'\n", cause,
			    bad_files[i].error);
			bad++;
		}
		free(cause);
		rulefile_release(&rf);
	}
	if (bad > 0)
		fail_msg("%zu bad files not refused as expected", bad);
}

/* Examples are checked at load, and unknown profiles are errors. */
static void
test_examples(void **state)
{
	char			*u = user_file(), *cause = NULL;
	struct allowlist	*al;

	write_file(u, "{ \"rules\": [\n"
	    " { \"id\": \"mk\", \"pattern\": \"make test\", \"verdict\": \"allow\",\n"
	    "   \"reason\": \"tests\",\n"
	    "   \"match\": [\"make test\", \"make check\"] } ] }\n", 0644);
	assert_null(allowlist_load(NULL, &cause));
	assert_non_null(strstr(cause, ":4: rules[0].match (rule \"mk\"): "
	    "the example 'make check' does not match"));
	free(cause);
	cause = NULL;

	write_file(u, "{ \"rules\": [\n"
	    " { \"id\": \"mk\", \"pattern\": \"make *\", \"verdict\": \"allow\",\n"
	    "   \"reason\": \"tests\",\n"
	    "   \"no_match\": [\"make test\"] } ] }\n", 0644);
	assert_null(allowlist_load(NULL, &cause));
	assert_non_null(strstr(cause, "rules[0].no_match"));
	free(cause);
	cause = NULL;

	write_file(u, "{ \"rules\": [\n"
	    " { \"id\": \"mk\", \"pattern\": \"make *\", \"verdict\": \"allow\",\n"
	    "   \"reason\": \"tests\", \"profile\": \"nope\" } ] }\n", 0644);
	assert_null(allowlist_load(NULL, &cause));
	assert_non_null(strstr(cause, ":3: rules[0].profile (rule \"mk\"): "
	    "unknown profile \"nope\""));
	free(cause);
	cause = NULL;

	/* A world-writable user file is refused. */
	write_file(u, "{ }", 0666);
	assert_null(allowlist_load(NULL, &cause));
	assert_non_null(strstr(cause, "world-writable"));
	free(cause);
	cause = NULL;

	/* A deny rule's example is checked as a deny. */
	write_file(u, "{ \"rules\": [\n"
	    " { \"id\": \"d\", \"pattern\": \"rm *\", \"verdict\": \"deny\",\n"
	    "   \"reason\": \"no\", \"match\": [\"rm -rf x\", \"ls; rm x\"],\n"
	    "   \"no_match\": [\"ls\"] } ] }\n", 0644);
	al = allowlist_load(NULL, &cause);
	assert_non_null(al);
	allowlist_free(al);
	unlink(u);
	free(u);
}

/* The option grammar on its own. */
static void
test_optparse(void **state)
{
	struct opt_grammar	 g;
	struct opt_spec		*s;
	const char		*specs[] = { "-a|--all", "-o|--output=WFILE",
				    "-k|--key=ARG", "--color|--colour[=ARG]",
				    "--compress-program=PROG", "-n[=ARG]",
				    "--outline" };
	char			*cause = NULL, *why;
	size_t			 i;
	static const struct {
		const char	*argv[4];
		int		 rc;
	} cases[] = {
		{ { "-a" }, 0 }, { { "--all" }, 0 }, { { "--al" }, 0 },
		{ { "-ak1" }, 0 }, { { "-a", "-k", "1" }, 0 },
		{ { "--key=1" }, 0 }, { { "--key", "1" }, 0 },
		{ { "--ke=1" }, 0 }, { { "-k" }, -1 }, { { "--key" }, -1 },
		{ { "-o", "x" }, -1 }, { { "-ox" }, -1 }, { { "-ao", "x" }, -1 },
		{ { "--output=x" }, -1 }, { { "--out=x" }, -1 },
		{ { "--ou" }, -1 }, { { "--outl" }, 0 }, { { "--outline" }, 0 },
		{ { "--col" }, 0 }, { { "--colou=never" }, 0 },
		{ { "--comp=x" }, -1 }, { { "-z" }, -1 }, { { "--zz" }, -1 },
		{ { "--all=x" }, -1 }, { { "--", "-o" }, 0 },
		{ { "x", "-o", "y" }, -1 }, { { "-n" }, 0 }, { { "-n5" }, 0 },
		{ { "-", "x" }, 0 }, { { "-k", "-o" }, 0 },
	};

	opt_grammar_init(&g);
	g.specs = xcalloc(sizeof specs / sizeof *specs, sizeof *g.specs);
	for (i = 0; i < sizeof specs / sizeof *specs; i++) {
		assert_int_equal(opt_spec_parse(specs[i], OPT_STYLE_GNU,
		    &g.specs[i], &cause), 0);
		g.nspecs++;
	}
	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		size_t n = 0;

		while (n < 4 && cases[i].argv[n] != NULL)
			n++;
		if (opt_check(&g, cases[i].argv, n, &why) != cases[i].rc)
			fail_msg("case %zu ('%s'): %s", i, cases[i].argv[0],
			    why ? why : "accepted");
		free(why);
	}
	s = opt_grammar_find(&g, "--colour");
	assert_non_null(s);
	assert_int_equal(s->arg, OPT_ARG_OPTIONAL);
	/* No abbreviations: exact names only, but refused prefixes still
	   refused. */
	g.abbrev = false;
	{
		const char *a1[] = { "--al" }, *a2[] = { "--out=x" };

		assert_int_equal(opt_check(&g, a1, 1, &why), -1);
		free(why);
		assert_int_equal(opt_check(&g, a2, 1, &why), -1);
		assert_non_null(strstr(why, "--output"));
		free(why);
	}
	g.max_operands = 1;
	{
		const char *a[] = { "in", "out" };

		assert_int_equal(opt_check(&g, a, 2, &why), -1);
		free(why);
		assert_int_equal(opt_check(&g, a, 1, &why), 0);
	}
	opt_grammar_release(&g);
	{
		struct opt_spec sp;

		assert_int_equal(opt_spec_parse("x|--y", OPT_STYLE_GNU, &sp,
		    &cause), -1);
		free(cause);
		assert_int_equal(opt_spec_parse("-name=ARG", OPT_STYLE_FIND,
		    &sp, &cause), 0);
		opt_spec_release(&sp);
	}
}

/* sed print-script checker. */
static void
test_sed(void **state)
{
	static const char *good[] = { "p", "1p", "$p", "1,5p", "/a/p",
	    "/a/,/b/p", "1~2p", "0,/x/p", "5,+3p", "5,~4p", "/a/I p",
	    "\\,a/b,p", "$=", "l", "l 40", "q", "q5", "Q", "1{p;q}", "/a/!p",
	    "p;p", "p\np", " p ; = ", "/\\/x/p", "P", "" };
	static const char *bad[] = { "d", "s/a/b/", "w x", "1w x", "e id",
	    "1e", "r x", "R x", "W x", "y/a/b/", "a text", "i text",
	    "c text", "n", "N", "G", "h", "x", "b", "t", ":a", "#n", "{p",
	    "p}", "/a", "/a\\", "\\", "1,p", "pw x", "p w", "p;w x",
	    "v", "F", "z", "=x", "q x", "1~p", "\\\\a\\p", "/a/Wx" };
	char	*why = NULL;
	size_t	 i;

	for (i = 0; i < sizeof good / sizeof *good; i++) {
		if (opt_script_check("sed-print", good[i], &why) != 0)
			fail_msg("refused '%s': %s", good[i], why);
	}
	for (i = 0; i < sizeof bad / sizeof *bad; i++) {
		why = NULL;
		if (opt_script_check("sed-print", bad[i], &why) == 0)
			fail_msg("accepted '%s'", bad[i]);
		free(why);
	}
}

/* Line numbers for a JSON path. */
static void
test_lines(void **state)
{
	const char	*text = "{\n \"a\": 1,\n \"rules\": [\n  {\"id\": \"x\"},"
			    "\n  {\n   \"id\": \"y\",\n   \"k\": [1,\n 2]\n  }\n ]\n}";
	const char	*p1[] = { "rules", "#1", "k" };
	const char	*p2[] = { "rules", "#0" };
	const char	*p3[] = { "a" };
	const char	*p4[] = { "rules", "#5" };

	assert_int_equal(rulefile_line(text, p1, 3), 7);
	assert_int_equal(rulefile_line(text, p2, 2), 4);
	assert_int_equal(rulefile_line(text, p3, 1), 2);
	assert_int_equal(rulefile_line(text, p4, 2), 0);
}

/* SHA-256 against FIPS 180-4 test vectors. */
static void
test_sha256(void **state)
{
	char		 hex[SHA256_HEX_LEN + 1];
	char		*million;
	struct sha256	 s;
	uint8_t		 d[SHA256_LEN];

	sha256_hex("", 0, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb924"
	    "27ae41e4649b934ca495991b7852b855");
	sha256_hex("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223"
	    "b00361a396177a9cb410ff61f20015ad");
	sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	    56, hex);
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039"
	    "a33ce45964ff2167f6ecedd419db06c1");
	million = xmalloc(1000000);
	memset(million, 'a', 1000000);
	sha256_hex(million, 1000000, hex);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67"
	    "f1809a48a497200e046d39ccc7112cd0");
	/* Incremental updates give the same digest. */
	sha256_init(&s);
	sha256_update(&s, million, 333333);
	sha256_update(&s, million, 666667);
	sha256_final(&s, d);
	assert_int_equal(d[0], 0xcd);
	assert_int_equal(d[31], 0xd0);
	free(million);
}

/* A needs entry's "unless_local" (needs.json, npx's node_modules/.bin): a
   relative directory of the project, where the program run is looked up
   on the file system when the verdict is made. */
static void
test_needs_local(void **state)
{
	char			*np = xasprintf("%s/config/bwgate/needs.json",
				    tmpdir), *dir = project_dir(), *bin, *tool;
	static const char *const bad[] = { "\"../out\"", "\"/usr/bin\"",
	    "\"a/../b\"", "\"\"", "7", "\"a//b\"" };
	struct allowlist	*al;
	struct classification	 c = CLASSIFICATION_INIT;
	char			*cause = NULL, *text;

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		text = xasprintf("{\"needs\":[{\"id\":\"t\",\"command\":"
		    "\"mytool\",\"reason\":\"r\",\"unless_local\":%s}]}",
		    bad[i]);
		write_file(np, text, 0600);
		free(text);
		al = allowlist_load(dir, &cause);
		assert_null(al);
		assert_non_null(strstr(cause, "unless_local"));
		free(cause);
		cause = NULL;
	}
	write_file(np, "{\"needs\":[{\"id\":\"t\",\"command\":\"mytool\","
	    "\"reason\":\"r\",\"stake\":\"network\",\"unless_local\":"
	    "\"tools/bin\",\"match\":[\"mytool run\"]}]}", 0600);
	al = load(dir);
	allowlist_classify(al, "mytool run --fast", &c);
	assert_non_null(c.needs);
	assert_string_equal(c.needs, "t");
	classification_release(&c);
	bin = xasprintf("%s/tools/bin", dir);
	tool = xasprintf("%s/run", bin);
	text = xasprintf("%s/tools", dir);
	assert_int_equal(mkdir(text, 0755), 0);
	assert_int_equal(mkdir(bin, 0755), 0);
	write_file(tool, "", 0755);
	allowlist_classify(al, "mytool run --fast", &c);
	assert_null(c.needs);
	assert_non_null(strstr(c.reason, "mytool runs run from the "
	    "project's tools/bin"));
	classification_release(&c);
	/* Traps: an option before it, a version, a path, another name. */
	for (const char *const *t = (const char *const[]){ "mytool -p x run",
	    "mytool run@2", "mytool tools/bin/run", "mytool other",
	    "mytool \"$X\"", NULL }; *t != NULL; t++) {
		allowlist_classify(al, *t, &c);
		if (c.needs == NULL)
			fail_msg("'%s' needs nothing more", *t);
		classification_release(&c);
	}
	/* Without a project, nothing is local. */
	allowlist_free(al);
	al = load(NULL);
	allowlist_classify(al, "mytool run", &c);
	assert_non_null(c.needs);
	classification_release(&c);
	allowlist_free(al);
	unlink(tool);
	rmdir(bin);
	rmdir(text);
	unlink(np);
	free(text);
	free(tool);
	free(bin);
	free(np);
	free(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_safe),
		cmocka_unit_test(test_bypass),
		cmocka_unit_test(test_long),
		cmocka_unit_test(test_details),
		cmocka_unit_test(test_user_layer),
		cmocka_unit_test(test_project_trust),
		cmocka_unit_test(test_profiles),
		cmocka_unit_test(test_project_narrow),
		cmocka_unit_test(test_validation),
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_optparse),
		cmocka_unit_test(test_sed),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_sha256),
		cmocka_unit_test(test_quoted_and_per_project),
		cmocka_unit_test(test_needs_local),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
