#!/bin/sh
# demo.sh: bwgate on a throwaway project (what ./quickstart runs).
#
# Runs a few agent-like commands through the sandbox and prints each one's
# result and change report. Usage: demo.sh [PATH-TO-BWGATE]
set -u
bwgate=${1:-bwgate}
demo=$(mktemp -d "${TMPDIR:-/tmp}/bwgate-demo.XXXXXX")
trap 'rm -rf "$demo"' EXIT
mkdir -p "$demo/.git/hooks" "$demo/src"
printf '[core]\n' > "$demo/.git/config"
printf 'int main(void) { return 0; }\n' > "$demo/src/main.c"
printf 'hello\n' > "$demo/README"
cd "$demo" || exit 1

run() {
	printf '\n\033[1m$ bwgate exec --'
	printf " '%s'" "$@"
	printf '\033[0m\n'
	"$bwgate" exec --project "$demo" -- "$@"
	printf '(exit status %d)\n' "$?"
}

echo "bwgate demo in $demo (a throwaway project)"
"$bwgate" doctor
run sh -c 'ls -la && cat README'
run sh -c 'mkdir -p build/obj && echo built > build/obj/main.o && echo changed >> README'
run sh -c 'mv README README.md && rm src/main.c'
run sh -c 'echo pwned > /etc/motd'
run sh -c 'echo "#!/bin/sh" > .git/hooks/pre-commit'
run sh -c 'cat ~/.ssh/id_rsa'
run sh -c 'exit 3'
