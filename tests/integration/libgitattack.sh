# libgitattack.sh: sourced after libtest.sh by the tests that attack git
# metadata. Git reads only $T's configuration; MARK is made by code that
# a planted config would run on the operator's next `git status`.
#
#	evil_repo DIR		a repository's metadata at DIR (host side)
#	poison CONFIG		a command that makes CONFIG run code on
#				`git status` (core.fsmonitor touching MARK)
#	host_git_status DIR	real git on the host, as the operator would

export GIT_CONFIG_GLOBAL="$T/gitconfig" GIT_CONFIG_NOSYSTEM=1
git config --global init.defaultBranch main
MARK="$T/fsmonitor-ran"

evil_repo() {
	mkdir -p "$1/objects" "$1/refs/heads"
	echo "ref: refs/heads/main" > "$1/HEAD"
	printf '[core]\n\trepositoryformatversion = 0\n' > "$1/config"
}
poison() {
	printf "printf '\\\\tfsmonitor = \"touch %s; false\"\\\\n' >> %s" "$MARK" "$1"
}
host_git_status() { (cd "$1" && git status >/dev/null 2>&1); }
