#!/usr/bin/env python3
"""extract.py MIRROR...: pull the shell commands agents ran out of the
transcripts public repositories commit: SpecStory's (.specstory/history/*.md)
and Automaker's (.automaker/features/*/agent-output.md, where a call is
'🔧 Tool: Bash' followed by 'Input: {"command": ...}').

Each MIRROR is a bare git directory of a public repository (owner+name/repo).
Every version of every transcript in the history is read; a command is the
code that follows a shell tool call marker ("Tool use: **Bash**" for Claude
Code, "**run_terminal_cmd**" for Cursor's agent, "**shell**" /
"**shell_command**" / "**exec_command**" for Codex CLI): the first fenced
block, or an inline `...` line, before the call's result.  Commands that
hold what looks like a secret or an e-mail address are dropped.  Prints
JSON lines {"command", "source", "harness"} to stdout, deduplicated;
--cap N keeps a fixed sample of N commands per repository (by SHA-1).
"""
import hashlib, json, re, subprocess, sys

MARK = re.compile(r'Tool use: \*\*(Bash|run_terminal_cmd|shell|shell_command|exec_command)\*\*')
SECRET = re.compile(r'(?i)(api[_-]?key|secret|token|passw|bearer|authorization:|'
                    r'sk-[A-Za-z0-9]{8}|ghp_|github_pat_|AKIA[0-9A-Z]{8}|'
                    r'[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+\.[A-Za-z]{2,}|'
                    r'(?:\d{1,3}\.){3}\d{1,3})')
OLD_CURSOR = re.compile(r'(?m)^---\n\n```bash\n((?:(?!\n```).)*)\n```\n\n```\n', re.S)
WINDOWS = re.compile(r'(^|[\s"\'])[A-Za-z]:[\\/]|\.\\\w|\\venv\\|'
                     r'\b(Start-Sleep|Select-String|Get-Content|Get-ChildItem|'
                     r'Remove-Item|New-Item|Write-Host|Test-Path|Out-File)\b|'
                     r'timeout /t|^(cmd(\.exe)? /c|powershell|dir |\$env:)', re.I)
HARNESS = {'Bash': 'claude-code', 'run_terminal_cmd': 'cursor',
           'shell': 'codex', 'shell_command': 'codex', 'exec_command': 'codex'}


def secret_like(cmd):
    """A credential, a key's value or an e-mail address: drop the command."""
    if SECRET.search(cmd) or re.search(r'(?i)(key|pat|pwd|credential)s?\s*[=:]', cmd) \
            or 'BEGIN' in cmd and 'PRIVATE' in cmd:
        return True
    for run in re.findall(r'[A-Za-z0-9+/_=-]{24,}', cmd):
        if re.search(r'[A-Z]', run) and re.search(r'[a-z]', run) \
                and re.search(r'[0-9]', run) and '/' not in run.strip('/'):
            return True
    return False


def commands_in(text):
    for m in MARK.finditer(text):
        rest = text[m.end():m.end() + 20000]
        stop = MARK.search(rest)
        if stop:
            rest = rest[:stop.start()]
        lines = rest.split('\n')
        cmd = None
        for i, line in enumerate(lines[:40]):
            s = line.strip()
            if s.startswith('```'):
                lang = s[3:].strip()
                if lang not in ('bash', 'sh', 'shell', 'zsh', 'powershell', ''):
                    break
                if lang == 'powershell':
                    break
                body = []
                for l2 in lines[i + 1:]:
                    if l2.strip() == '```':
                        break
                    body.append(l2)
                else:
                    break
                cmd = '\n'.join(body).strip()
                break
            if len(s) > 2 and s.startswith('`') and s.endswith('`') and s.count('`') == 2:
                cmd = s[1:-1].strip()
                break
            if s.startswith('</details>'):
                break
        if cmd:
            yield HARNESS[m.group(1)], cmd
    # Older Cursor exports: a tool call is a bash block of its own between
    # '---' separators, followed at once by the terminal's output block.
    for m in OLD_CURSOR.finditer(text):
        yield 'cursor', m.group(1).strip()


AUTOMAKER = re.compile(r'🔧 Tool: Bash\nInput: ')


def automaker_commands(text):
    """Automaker's agent-output.md: '🔧 Tool: Bash' then 'Input: {json}'."""
    dec = json.JSONDecoder()
    for m in AUTOMAKER.finditer(text):
        try:
            obj, _ = dec.raw_decode(text, m.end())
        except ValueError:
            continue
        cmd = obj.get('command') if isinstance(obj, dict) else None
        if isinstance(cmd, str) and cmd.strip():
            cmd = cmd.strip()
            codex = re.match(r'^(/bin/)?(ba|z)?sh -lc ', cmd)
            yield ('codex' if codex else 'claude-code'), cmd


def blobs(mirror):
    out = subprocess.run(['git', '-C', mirror, 'rev-list', '--all', '--objects',
                          '--', '.specstory/history', '.automaker/features'],
                         capture_output=True, text=True).stdout
    seen = set()
    for line in out.splitlines():
        parts = line.split(' ', 1)
        if len(parts) == 2 and (parts[1].startswith('.specstory/history/')
                                or parts[1].startswith('.automaker/features/')) \
                and parts[1].endswith('.md') and parts[0] not in seen:
            seen.add(parts[0])
            yield parts[0], parts[1]


def main():
    cap = 0
    args = sys.argv[1:]
    if args[:1] == ['--cap']:
        cap, args = int(args[1]), args[2:]
    seen = set()
    for mirror in args:
        kept = []
        repo = mirror.rstrip('/').split('/')[-2].replace('+', '/', 1)
        for oid, path in blobs(mirror):
            got = subprocess.run(['git', '-C', mirror, 'cat-file', 'blob', oid],
                                 capture_output=True)
            if got.returncode != 0:  # absent from the snapshot
                continue
            # Transcripts saved on Windows end lines with CR LF: the
            # commands in them did not.
            text = got.stdout.decode('utf-8', 'replace').replace('\r\n', '\n')
            found = automaker_commands(text) if path.startswith('.automaker/') \
                else commands_in(text)
            for harness, cmd in found:
                if cmd in seen or secret_like(cmd) or len(cmd) > 4000 \
                        or '\x1b' in cmd or '\ufffd' in cmd:
                    continue
                # Windows shells: not what bwgate runs.
                if WINDOWS.search(cmd):
                    continue
                seen.add(cmd)
                kept.append({'command': cmd, 'source': f'{repo}:{path}',
                             'harness': harness})
        if cap and len(kept) > cap:
            # A fixed sample, so that no one repository outweighs the rest.
            pick = set(sorted(range(len(kept)), key=lambda i: hashlib.sha1(
                kept[i]['command'].encode()).hexdigest())[:cap])
            kept = [k for i, k in enumerate(kept) if i in pick]
        for k in kept:
            print(json.dumps(k, ensure_ascii=False))


main()
