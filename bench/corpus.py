#!/usr/bin/env python3
"""corpus.py: how real agent commands fare (issue 30, "measure on real
commands").  Every command of tests/corpus/commands.jsonl is classified by
'bwgate check --json' in a scratch project this script makes, and the
figures are printed:

  - allowed at once in the default mode: verdict allow (target >= 93 %);
    every allowed command must run in the readonly profile (no write, no
    network), or the run fails;
  - reaching the operator in sandboxed mode (--auto-sandboxed), as
    request_fits_project in src/console/console-request.c decides: deny,
    danger (but a delete undo puts back whole: danger.undo_restores), an
    ask with a "needs" object (but "at_once": git-write for git add,
    commit, stash, switch, checkout, merge, cherry-pick, revert; the
    project profile for curl of the loopback), with network, with a rule, or a profile
    other than project/readonly (target <= 2 %);
  - the trap sets of tests/policy/semantics.txt, in a project that keeps
    secrets: a command that must not be allowed and is, a false allow,
    fails the run;
  - the largest classes of what still asks, by reason prefix.

The authors' project paths (tests/corpus/roots.json) are replaced by the
scratch project's, unless --verbatim.

Each source gets a scratch project of its own, with the programs its
package.json files install in node_modules/.bin (tests/corpus/node-bins.json),
unless --no-node-modules.

Usage: corpus.py [--bwgate PATH] [--corpus FILE] [--jobs N] [--list CLASS]
                 [--enforce] [--dump FILE] [--verbatim] [--no-node-modules]
--enforce exits 1 when a target is missed (an allowed command outside
readonly always fails the run).
"""
import argparse, collections, concurrent.futures, json, os, re, shutil
import signal, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)


def scratch_project(d, name='project', bins=()):
    """A project with a few files, a git repository, and bins (the
    programs its installed dependencies put in node_modules/.bin, as
    links into node_modules the way npm makes them)."""
    p = os.path.join(d, name)
    for sub in ('src', 'tests', 'docs', 'scripts', 'lib', 'app'):
        os.makedirs(os.path.join(p, sub))
    for f in ('README.md', 'package.json', 'src/main.py', 'tests/test_main.py'):
        with open(os.path.join(p, f), 'w') as fh:
            fh.write('\n')
    for b in bins:
        pkg = os.path.join(p, 'node_modules', '.pkg-' + b, 'bin')
        os.makedirs(pkg, exist_ok=True)
        with open(os.path.join(pkg, b), 'w') as fh:
            fh.write('#!/usr/bin/env node\n')
        os.makedirs(os.path.join(p, 'node_modules', '.bin'), exist_ok=True)
        os.symlink(os.path.join('..', '.pkg-' + b, 'bin', b),
                   os.path.join(p, 'node_modules', '.bin', b))
    subprocess.run(['git', 'init', '-q', p], check=True)
    return p


def classify(bwgate, project, cmd):
    r = subprocess.run([bwgate, 'check', '--json', '--project', project,
                        '--', cmd], cwd=project, capture_output=True)
    try:
        out = r.stdout.decode('utf-8')
    except UnicodeDecodeError:
        out = None
    try:
        v = json.loads(out if out is not None else r.stdout.decode('utf-8', 'replace'))
    except ValueError:
        return {'verdict': 'error', 'reason': 'bwgate check failed: ' +
                (r.stderr.decode('utf-8', 'replace').strip().splitlines() or ['?'])[-1]}
    if out is None:
        v['invalid_utf8'] = True
    return v


def reaches_operator(v):
    """Mirror of request_fits_project: True when sandboxed mode asks."""
    verdict = v.get('verdict')
    # A delete inside the project that undo puts back whole, or that
    # deletes nothing (bwgate check measures it: danger.undo_restores).
    if verdict == 'danger' and (v.get('danger') or {}).get('undo_restores'):
        return bool(v.get('needs') or v.get('rule') or v.get('mounts') or
                    v.get('network') not in (None, False, 'off') or
                    (v.get('profile') or 'project') != 'project')
    if verdict not in ('ask', 'allow'):
        return True
    # git add, commit, stash, switch: git-write at once; curl
    # localhost:PORT: the project profile, the services' access
    # (needs.json "at_once"), unless a rule of verdict ask is behind it.
    if (v.get('needs') or {}).get('at_once') and v.get('network') in \
            (None, False, 'off') and not v.get('mounts'):
        return (v.get('profile') or 'project') not in ('git-write',
                                                       'project')
    # 'bwgate check' says the network as "off", "any host" or "only ...".
    if v.get('needs') or v.get('network') not in (None, False, 'off') \
            or v.get('mounts'):
        return True
    if verdict == 'ask' and v.get('rule'):
        return True
    return (v.get('profile') or 'project') not in ('project', 'readonly')


def reason_class(v):
    """A short class for a verdict's reason, to group what still asks."""
    reason = v.get('reason') or ''
    if v.get('needs'):
        return 'needs ' + v['needs'].get('id', '?')
    if v.get('verdict') == 'danger' and v.get('danger'):
        return 'danger ' + v['danger'].get('id', '?')
    reason = re.sub(r"^(bash|sh|zsh) -c: ", '', reason)
    m = re.match(r"no rule allows '([^']*)'", reason)
    if m:
        return "no rule allows '%s'" % m.group(1)
    m = re.match(r"([\w.+-]+): ", reason)
    if m:
        rest = reason[m.end():]
        return m.group(1) + ': ' + re.split(r"[('\"]", rest, 1)[0][:48].strip()
    return re.split(r"[('\"]", reason, 1)[0][:60].strip()


def trap_sets(path):
    """The trap sets of tests/policy/semantics.txt (VERDICT[:PROFILE] TAB
    COMMAND, families between @set NAME and @end, %NAME% replaced by each
    value): (set, expected verdict, command) for every command, the set
    being the "# --- name ---" heading above it."""
    fams, cur, name, out = {}, None, 'top', []
    for line in open(path, encoding='utf-8'):
        line = line.rstrip('\n')
        if cur is not None:
            if line == '@end':
                cur = None
            else:
                fams[cur].append(line)
            continue
        m = re.match(r'# --- (.*?) -*$', line)
        if m:
            name = m.group(1)
        if not line or line.startswith('#'):
            continue
        if line.startswith('@set '):
            cur = line[5:]
            fams[cur] = []
            continue
        want, cmd = line.split('\t', 1)
        cmds = [cmd]
        while True:
            m = next((re.search('%' + re.escape(f) + '%', c) for c in cmds
                      for f in fams if '%' + f + '%' in c), None)
            if m is None:
                break
            f = m.group(0)[1:-1]
            cmds = [c.replace('%' + f + '%', v, 1) if '%' + f + '%' in c else c
                    for c in cmds for v in (fams[f] if '%' + f + '%' in c else [None])]
        for c in cmds:
            out.append((name, want.split(':')[0], c))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--bwgate', default=os.environ.get('BWGATE', os.path.join(SRC, '_build', 'bwgate')))
    ap.add_argument('--corpus', default=os.path.join(SRC, 'tests', 'corpus', 'commands.jsonl'))
    ap.add_argument('--jobs', type=int, default=2)
    ap.add_argument('--list', default=None, help='print the commands of a class')
    ap.add_argument('--top', type=int, default=15)
    ap.add_argument('--enforce', action='store_true')
    ap.add_argument('--verbatim', action='store_true',
                    help='keep the authors\' project paths (see tests/corpus/roots.json)')
    ap.add_argument('--no-node-modules', action='store_true',
                    help='no node_modules/.bin in the scratch projects '
                    '(see tests/corpus/node-bins.json)')
    ap.add_argument('--no-traps', action='store_true',
                    help='skip the trap sets of tests/policy/semantics.txt')
    ap.add_argument('--dump', default=None, help='write every verdict as JSON lines')
    a = ap.parse_args()

    rows = [json.loads(l) for l in open(a.corpus, encoding='utf-8') if l.strip()]
    roots = {}
    rootfile = os.path.join(os.path.dirname(a.corpus), 'roots.json')
    if not a.verbatim and os.path.exists(rootfile):
        roots = json.load(open(rootfile, encoding='utf-8'))['roots']
    # Each source's project has the programs its package.json files
    # install (tests/corpus/node-bins.json): npx TOOL runs them offline.
    bins = {}
    binfile = os.path.join(os.path.dirname(a.corpus), 'node-bins.json')
    if not a.no_node_modules and os.path.exists(binfile):
        bins = json.load(open(binfile, encoding='utf-8'))['bins']
    tmp = tempfile.mkdtemp(prefix='corpus-bench-')
    projects = {}
    for i, src in enumerate(sorted({r['source'].split(':')[0] for r in rows})):
        projects[src] = scratch_project(tmp, 'project%d' % i, bins.get(src, ()))

    def run(r):
        src = r['source'].split(':')[0]
        cmd, root, project = r['command'], roots.get(src), projects[src]
        if root:
            # The author's project was the agent's working directory.
            cmd = re.sub(re.escape(root) + r'(?=$|[/\s"\'&;|)])',
                         lambda m: project, cmd)
        return classify(a.bwgate, project, cmd)
    try:
        with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
            verdicts = list(ex.map(run, rows))
    finally:
        shutil.rmtree(tmp)

    # The trap sets: what must not be allowed is not (default mode), in a
    # project that keeps secrets (.env, a key, .npmrc).
    traps = []
    semantics = os.path.join(os.path.dirname(os.path.abspath(a.corpus)),
                             '..', 'policy', 'semantics.txt')
    if os.path.exists(semantics) and not a.no_traps:
        traps = trap_sets(semantics)
        tmp2 = tempfile.mkdtemp(prefix='corpus-traps-')
        try:
            tp = scratch_project(tmp2, 'traps')
            os.makedirs(os.path.join(tp, 'config'))
            for f, body in (('.env', 'API_KEY=x\n'), ('.npmrc', 'x\n'),
                            ('config/server.pem', 'x\n')):
                with open(os.path.join(tp, f), 'w') as fh:
                    fh.write(body)
            with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
                trap_verdicts = list(ex.map(
                    lambda t: classify(a.bwgate, tp, t[2]), traps))
        finally:
            shutil.rmtree(tmp2)

    n = len(rows)
    if a.dump:
        with open(a.dump, 'w', encoding='utf-8') as fh:
            for r, v in zip(rows, verdicts):
                v.pop('bwrap_argv', None)
                fh.write(json.dumps({'command': r['command'], 'class': reason_class(v),
                                     'operator': reaches_operator(v), 'v': v},
                                    ensure_ascii=False) + '\n')
    allowed = [v for v in verdicts if v.get('verdict') == 'allow']
    wrong = [(r, v) for r, v in zip(rows, verdicts)
             if v.get('verdict') == 'allow' and v.get('profile') != 'readonly']
    operator = [(r, v) for r, v in zip(rows, verdicts) if reaches_operator(v)]
    asks = [(r, v) for r, v in zip(rows, verdicts) if v.get('verdict') != 'allow']
    counts = collections.Counter(v.get('verdict') for v in verdicts)

    sources = collections.Counter(r['source'].split(':')[0] for r in rows)
    harness = collections.Counter(r.get('harness', '?') for r in rows)
    print('corpus: %d distinct commands from %d repositories (%s)' % (
        n, len(sources), ', '.join('%s %d' % kv for kv in harness.most_common())))
    print('verdicts: ' + ', '.join('%s %d' % kv for kv in counts.most_common()))
    share_allow = 100.0 * len(allowed) / n
    share_op = 100.0 * len(operator) / n
    print('default mode: allowed at once %.1f %% (target >= 93 %%); '
          'allowed outside readonly: %d' % (share_allow, len(wrong)))
    print('sandboxed mode: reaching the operator %.1f %% (target <= 2 %%): '
          '%d commands, of which deny %d, danger %d' % (
              share_op, len(operator),
              sum(1 for _, v in operator if v.get('verdict') == 'deny'),
              sum(1 for _, v in operator if v.get('verdict') == 'danger')))
    for h, _ in harness.most_common():
        idx = [i for i, r in enumerate(rows) if r.get('harness', '?') == h]
        print('  %-12s %5d commands: allowed at once %5.1f %%, reaching the '
              'operator in sandboxed mode %5.1f %%' % (
                  h, len(idx),
                  100.0 * sum(verdicts[i].get('verdict') == 'allow' for i in idx) / len(idx),
                  100.0 * sum(reaches_operator(verdicts[i]) for i in idx) / len(idx)))
        top = collections.Counter(reason_class(verdicts[i]) for i in idx
                                  if reaches_operator(verdicts[i]))
        if top:
            print('  %-12s what reaches the operator: %s' % ('', ', '.join(
                '%s %d' % kv for kv in top.most_common(6))))
    # What the operator is asked about in sandboxed mode, by what is at
    # stake (needs.json's "stake"; danger is its own).
    stakes = {}
    needs_file = os.path.join(os.path.dirname(os.path.abspath(a.corpus)),
                              '..', '..', 'share', 'bwgate', 'needs.json')
    if os.path.exists(needs_file):
        stakes = {e['id']: e.get('stake', 'other') for e in
                  json.load(open(needs_file, encoding='utf-8'))['needs']}
    kinds = collections.Counter(
        'danger' if v.get('verdict') == 'danger' else
        stakes.get(v['needs'].get('id'), 'other') if v.get('needs') else
        'other' for _, v in operator)
    print('sandboxed mode asks by what is at stake: ' + ', '.join(
        '%s %d' % kv for kv in kinds.most_common()))
    for name, group in (('asks in the default mode', asks),
                        ('reaching the operator in sandboxed mode', operator)):
        classes = collections.Counter(reason_class(v) for _, v in group)
        print('top classes of %s:' % name)
        for cls, k in classes.most_common(a.top):
            print('  %5d  %4.1f %%  %s' % (k, 100.0 * k / n, cls))
    false_allows = []
    if traps:
        by_set = collections.OrderedDict()
        for t, v in zip(traps, trap_verdicts):
            k = by_set.setdefault(t[0], [0, 0])
            if t[1] != 'allow':
                k[0] += 1
                if v.get('verdict') == 'allow':
                    k[1] += 1
                    false_allows.append(t)
        print('trap sets (tests/policy/semantics.txt): %d sets, %d traps, '
              'false allows in the default mode: %d' % (
                  len(by_set), sum(k[0] for k in by_set.values()),
                  len(false_allows)))
        for name, (k, bad) in by_set.items():
            if k:
                print('  %-60s %4d traps, %d allowed' % (name[:60], k, bad))
        for t in false_allows:
            print('FALSE ALLOW (%s, wanted %s): %s' % (t[0], t[1], t[2]))
    bad = [r for r, v in zip(rows, verdicts) if v.get('invalid_utf8')]
    if bad:
        print('bwgate check printed invalid UTF-8 for %d commands, e.g. %s' % (
            len(bad), json.dumps(bad[0]['command'][:80], ensure_ascii=False)))
    for r, v in wrong:
        print('WRONG: allowed outside readonly (%s): %s' % (v.get('profile'), r['command']))
    if a.list:
        for r, v in zip(rows, verdicts):
            if v.get('verdict') != 'allow' and reason_class(v) == a.list:
                print(json.dumps(r['command']))
    failed = bool(wrong) or bool(false_allows)
    if a.enforce and (share_allow < 93.0 or share_op > 2.0):
        failed = True
    return 1 if failed else 0


if __name__ == '__main__':
    # Killed, it still removes its scratch project.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(main())
