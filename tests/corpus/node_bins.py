#!/usr/bin/env python3
"""node_bins.py: which programs each source project has in its
node_modules/.bin once its dependencies are installed, for bench/corpus.py
(npx TOOL runs offline when TOOL is there: share/bwgate/needs.json,
"unless_local").

Reads every package.json (outside node_modules) of each mirror's HEAD and
maps the packages it declares (dependencies, devDependencies) to the
programs they install, for the packages the corpus's npx commands name.
The map is by hand (a package's "bin" is in its own package.json, not in
the project's); a package not in it adds nothing.

    python3 tests/corpus/node_bins.py MIRROR... > tests/corpus/node-bins.json
"""
import json, os, subprocess, sys

BINS = {
    'typescript': ['tsc', 'tsserver'], '@playwright/test': ['playwright'],
    'playwright': ['playwright'], 'next': ['next'],
    'drizzle-kit': ['drizzle-kit'], 'eslint': ['eslint'],
    'convex': ['convex'], 'tsx': ['tsx'], 'jest': ['jest'],
    'tailwindcss': ['tailwindcss'], 'supabase': ['supabase'],
    '@graphql-codegen/cli': ['graphql-codegen', 'gql-gen'],
    'prettier': ['prettier'], 'vitest': ['vitest'],
    'task-master-ai': ['task-master', 'task-master-ai'],
}


def git(gitdir, *args):
    return subprocess.run(['git', '--git-dir', gitdir] + list(args),
                          capture_output=True, text=True, check=True).stdout


def main():
    out = {}
    for m in sys.argv[1:]:
        name = os.path.basename(os.path.dirname(os.path.abspath(m))).replace('+', '/', 1)
        bins = set()
        for f in git(m, 'ls-tree', '-r', '--name-only', 'HEAD').splitlines():
            if os.path.basename(f) != 'package.json' or 'node_modules/' in f:
                continue
            try:
                d = json.loads(git(m, 'show', 'HEAD:' + f))
            except (ValueError, subprocess.CalledProcessError):
                continue
            for k in ('dependencies', 'devDependencies'):
                for p in d.get(k) or {}:
                    bins.update(BINS.get(p, []))
        if bins:
            out[name] = sorted(bins)
    json.dump({'description': 'Programs in each source project\'s '
               'node_modules/.bin after its dependencies are installed, by '
               'the package.json files of its repository (HEAD); made by '
               'node_bins.py. bench/corpus.py puts them in the scratch '
               'project of that source.', 'bins': out},
              sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == '__main__':
    main()
