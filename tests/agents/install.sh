#!/bin/sh
# install.sh: install the real Claude Code, Codex CLI and Gemini CLI that
# tests/agents/ drives, at the versions pinned in
# tests/agents/package-lock.json, into DIR (the build tree's
# tests/agents-clients). Only the npm registry is used:
# each package's native binary is one of its optional dependencies there.
#
#	tests/agents/install.sh DIR
#
# Nothing from the registry runs at install time (--ignore-scripts): the
# binaries are linked into DIR/bin by name instead of by Claude Code's
# postinstall. Nothing is done when DIR already holds this lock file's
# install. Ends with the three versions, or an error naming what is missing.
set -eu
src=$(cd "$(dirname "$0")" && pwd)
dir=${1:?usage: install.sh DIR}

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	echo "install.sh: node and npm are needed (./quickstart installs them)" >&2
	exit 1
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
if ! cmp -s "$src/package-lock.json" "$dir/package-lock.json" ||
    [ ! -x "$dir/bin/claude" ] || [ ! -x "$dir/bin/codex" ] ||
    [ ! -x "$dir/bin/gemini" ]; then
	rm -rf "$dir/node_modules" "$dir/bin" "$dir/package-lock.json"
	cp "$src/package.json" "$dir/package.json"
	cp "$src/package-lock.json" "$dir/package-lock.json.new"
	mv "$dir/package-lock.json.new" "$dir/package-lock.json"
	# Claude Code's package asks for node >= 22 for its JavaScript
	# wrapper; the native binary used here needs no node at all.
	if ! (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund \
	    --engine-strict=false --loglevel=error) >"$dir/npm.log" 2>&1; then
		cat "$dir/npm.log" >&2
		rm -f "$dir/package-lock.json"
		echo "install.sh: npm ci failed in '$dir'" >&2
		exit 1
	fi
	case "$(uname -m)" in
	x86_64) arch=x64 ;;
	aarch64) arch=arm64 ;;
	*) echo "install.sh: no Claude Code binary for $(uname -m)" >&2; exit 1 ;;
	esac
	libc=
	if ! ldd --version 2>&1 | grep -qi 'gnu\|glibc'; then
		libc=-musl
	fi
	claude="$dir/node_modules/@anthropic-ai/claude-code-linux-$arch$libc/claude"
	codex="$dir/node_modules/@openai/codex/bin/codex.js"
	gemini="$dir/node_modules/@google/gemini-cli/bundle/gemini.js"
	for f in "$claude" "$codex" "$gemini"; do
		if [ ! -f "$f" ]; then
			rm -f "$dir/package-lock.json"
			echo "install.sh: '$f' is missing after npm ci" >&2
			exit 1
		fi
	done
	mkdir -p "$dir/bin"
	ln -sf "$claude" "$dir/bin/claude"
	ln -sf "$codex" "$dir/bin/codex"
	ln -sf "$gemini" "$dir/bin/gemini"
fi
"$dir/bin/claude" --version
"$dir/bin/codex" --version
"$dir/bin/gemini" --version
