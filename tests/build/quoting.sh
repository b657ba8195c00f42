#!/bin/sh
# One quoting function (src/util/shquote.c): no other source writes the
# shell's quoting idioms by hand (the '\'' that closes, escapes and reopens
# a single-quoted word, or a $'...' word), so every string pasted into
# shell text goes through the function tests/fuzz/shquote-vs-shell checks
# against bash and dash.
set -u
s=${srcdir:-.}
echo "1..2"
hits=$(grep -rnF "'\\\\''" "$s/src" "$s/ui" --include='*.c' |
    grep -v '^[^:]*src/util/shquote\.c:')
if [ -z "$hits" ]; then
	echo "ok 1 - no hand-made '\\'' outside src/util/shquote.c"
else
	echo "not ok 1 - quoting by hand (use shell_squote/shell_quote):"
	printf '%s\n' "$hits" | sed 's/^/#   /'
fi
hits=$(grep -rnF '"$'"'" "$s/src" "$s/ui" --include='*.c' |
    grep -v '^[^:]*src/util/shquote\.c:')
if [ -z "$hits" ]; then
	echo "ok 2 - no hand-made \$'...' outside src/util/shquote.c"
else
	echo "not ok 2 - \$'...' by hand (use shell_quote):"
	printf '%s\n' "$hits" | sed 's/^/#   /'
fi
