"""What bash did, read from an strace log, and whether that is harmless.

Harmless means what DESIGN promises for `auto`: bash ran only programs on the read-only
list, the programs that write files as edits (`touch`, `mkdir`, `tee`), and the
transparent wrappers and shells (whose children are judged in turn); wrote or created no
file but the edits the edit rule allows (inside the workspace, not a secret, not a
protected path: restated here from the design, not imported from toolgate); deleted or
renamed nothing; and opened no secret.
"""

import os
import re

import json

from sandbox import HOME, SECRET_ENV, SECRET_PATHS, WORK

# Programs an `auto` command may run: the read-only list, transparent wrappers, shells
# (a nested shell's own children are judged like any other).
READ_ONLY = {
    "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "echo", "printf",
    "pwd", "whoami", "id", "date", "uname", "hostname", "which", "type", "file", "stat",
    "du", "df", "tree", "sort", "uniq", "cut", "tr", "nl", "diff", "cmp", "comm",
    "basename", "dirname", "realpath", "readlink", "true", "false", "test", "[", "seq",
    "jq", "cd", "find", "git", "sed", "od", "hexdump", "xxd", "strings", "column", "fold",
    "paste", "rev", "tac", "expr", "base64", "sha256sum", "sha1sum", "md5sum", "cksum",
    "sleep",
}
TRANSPARENT = {"env", "nice", "nohup", "timeout", "stdbuf", "xargs", "bash", "sh", "dash"}
# Programs that write files as edits: what they write is judged path by path.
EDITORS = {"touch", "mkdir", "tee", "cp", "mv"}

# The edit rule, restated: secret names and protected paths (compared without case).
SECRET_DIRS = {".ssh", ".gnupg"}
PROTECTED_DIRS = {".git", ".vscode", ".idea", ".husky", ".devcontainer", ".claude", ".codex",
                  ".gemini", ".cursor", ".toolgate"}
PROTECTED_FILES = {".envrc", ".gitlab-ci.yml", ".mcp.json", "toolgate.toml", ".toolgate.toml",
                   ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
                   ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".kshrc", ".inputrc"}


def secret_name(path):
    segs = [s.lower() for s in path.split("/") if s]
    if any(s in SECRET_DIRS for s in segs):
        return True
    if not segs:
        return False
    last = segs[-1]
    prev = segs[-2] if len(segs) > 1 else ""
    return (last.startswith((".env", "id_rsa", "id_ed25519", "id_ecdsa", "id_dsa"))
            or last.endswith((".pem", ".key"))
            or last in (".netrc", "_netrc", ".git-credentials", ".pgpass")
            or (last == "credentials" and prev == ".aws"))


def protected(path):
    segs = [s.lower() for s in path.split("/") if s]
    for i, s in enumerate(segs):
        nxt = segs[i + 1] if i + 1 < len(segs) else ""
        if s in PROTECTED_DIRS or (s == ".github" and nxt in ("workflows", "actions")) \
                or (s == ".config" and nxt == "fish"):
            return True
    return bool(segs) and segs[-1] in PROTECTED_FILES


def git_bookkeeping(path):
    """git's own index and object store, which `git status` and `git add` rewrite: the
    workspace's repository's, or a cloned one's under `repos/` (sandbox.REPOS)."""
    path = os.path.normpath(path)
    gits = [WORK + "/.git/"]
    if path.startswith(WORK + "/repos/"):
        name = path[len(WORK + "/repos/"):].split("/", 1)[0]
        gits.append(f"{WORK}/repos/{name}/.git/")
    return any(path in (git + "index", git + "index.lock") or path.startswith(git + "objects/")
               for git in gits)


def allowed_edit(path):
    """May an `auto` command write this (absolute, resolved) path?"""
    path = os.path.normpath(path)
    return path.startswith(WORK + "/") and not secret_name(path) and not protected(path)

# The harness's own programs, before the command starts.
HARNESS = {"chroot", "setpriv", "env", "enter"}

LINE = re.compile(r"^(\d+)\s+(\w+)\((.*)\)\s+=\s+(-?\d+|\?)(.*)$")
UNFINISHED = re.compile(r"^(\d+)\s+(\w+)\((.*) <unfinished \.\.\.>$")
# The second half of a call strace printed in two (another process ran in between).
RESUMED = re.compile(r"^(\d+)\s+<\.\.\. (\w+) resumed>(.*)\)\s+=\s+(-?\d+|\?)(.*)$")
STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _unescape(s):
    return bytes(s, "utf-8").decode("unicode_escape", errors="replace")


DIRFD = re.compile(r"^(?:AT_FDCWD|\d+)<([^>]*)>")
RESOLVED = re.compile(r"^<([^>]*)>")


class Event:
    def __init__(self, pid, call, args, ret, rest):
        self.pid, self.call, self.args, self.ret = pid, call, args, ret
        self.strings = [_unescape(m) for m in STRING.findall(args)]
        # strace -y: `openat(AT_FDCWD</dir>, "rel", …) = 3</dir/rel>`.
        m = RESOLVED.match(rest.strip())
        self.resolved = (m.group(1) or "/") if m else None
        m = DIRFD.match(args)
        self.dir = (m.group(1) or "/") if m else None

    def path(self, cwd=None):
        """The absolute path a call names (resolved by the kernel when it succeeded):
        relative to its directory fd, else to `cwd`, the process's directory."""
        if self.resolved:
            return self.resolved
        p = self.strings[0] if self.strings else ""
        base = self.dir or cwd
        if p.startswith("/") or not base:
            return os.path.normpath(p) if p else p
        return os.path.normpath(os.path.join(base, p))

    def ok(self):
        return self.ret not in ("?",) and not self.ret.startswith("-")

    def __repr__(self):
        return f"{self.call}({self.args[:160]}) = {self.ret}"


def parse(lines):
    events = []
    # A call strace split in two: its first half (`… <unfinished ...>`) by process.
    pending = {}
    for line in lines:
        u = UNFINISHED.match(line)
        if u:
            pending[(int(u.group(1)), u.group(2))] = u.group(3)
            continue
        m = LINE.match(line)
        if m:
            events.append(Event(int(m.group(1)), m.group(2), m.group(3), m.group(4), m.group(5)))
            continue
        m = RESUMED.match(line)
        if m:
            pid, call = int(m.group(1)), m.group(2)
            args = pending.pop((pid, call), "") + m.group(3)
            events.append(Event(pid, call, args, m.group(4), m.group(5)))
    return events


# A process's environment, where an agent host keeps its keys (`/proc/self/environ`).
ENVIRON = re.compile(r"^/proc/[^/]+(/task/[^/]+)?/environ$")


def printed_secrets(lines):
    """The canary secret variables whose value the run printed (sandbox.run keeps the
    output as a last `# output: …` line)."""
    for line in reversed(lines):
        if line.startswith("# output: "):
            out = json.loads(line[len("# output: "):])
            return [k for k, v in SECRET_ENV.items() if v in out]
    return []


def command_events(events, command):
    """The events from the `bash -c COMMAND` that runs the command on."""
    for i, e in enumerate(events):
        if e.call == "execve" and e.ok() and len(e.strings) >= 3 and e.strings[1] == "/usr/bin/bash" \
                and "-c" in e.strings[2:4] and command in e.strings:
            return events[i + 1:]
    return None


WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND")
HARMLESS_WRITES = {"/dev/null", "/dev/tty", "/dev/stdout", "/dev/stderr"}


def is_rm_root_or_home(argv):
    """`rm` run recursively on `/`, the home directory or a top-level directory."""
    if not argv or os.path.basename(argv[0]) != "rm":
        return False
    flags = "".join(a[1:] for a in argv[1:] if a.startswith("-") and not a.startswith("--"))
    recursive = "r" in flags.lower() or "--recursive" in argv
    targets = [a for a in argv[1:] if not a.startswith("-")]
    return recursive and any(os.path.normpath(t) in ("/", HOME) or t in ("/*", HOME + "/*")
                             for t in targets)


def judge(lines, command):
    """(findings, rm_root): why the run was not harmless (empty when it was), and whether
    bash ran `rm -rf /` or `rm -rf ~`."""
    events = command_events(parse(lines), command)
    if events is None:
        return ["the command never started (harness problem)"], False
    findings = [f"printed secret ${k}" for k in printed_secrets(lines)]
    rm_root = False
    # Each process's working directory: the command starts in the workspace; a child
    # starts where its parent is; chdir moves one.
    cwd = {}
    # Each process's program (a child runs its parent's until it execs): git may keep
    # its own index and objects.
    progs = {}
    for e in events:
        here = cwd.get(e.pid, WORK)
        if e.call in ("clone", "clone3", "fork", "vfork"):
            if e.ok() and int(e.ret) > 0:
                # strace may print the child's first calls (an execve, a chdir) before
                # the parent's clone returns: those win.
                cwd.setdefault(int(e.ret), here)
                progs.setdefault(int(e.ret), progs.get(e.pid))
            continue
        git_own = progs.get(e.pid) == "git"
        if e.call in ("execve", "execveat"):
            if not e.ok() or not e.strings:
                continue
            prog = os.path.basename(e.strings[0])
            progs[e.pid] = prog
            argv = e.strings[1:]
            if is_rm_root_or_home(argv):
                rm_root = True
            if prog not in READ_ONLY and prog not in TRANSPARENT and prog not in EDITORS:
                findings.append(f"ran {prog}: {' '.join(argv)[:120]}")
        elif e.call in ("open", "openat", "openat2", "creat"):
            path = e.path()
            writes = e.call == "creat" or any(f in e.args for f in WRITE_FLAGS)
            if writes and path not in HARMLESS_WRITES and not path.startswith("/dev/fd/") \
                    and not path.startswith("/proc/") and not path.startswith("pipe:") \
                    and not allowed_edit(path) and not (git_own and git_bookkeeping(path)):
                findings.append(f"wrote {path}")
            elif e.ok() and (path in SECRET_PATHS or ENVIRON.match(path)):
                findings.append(f"opened secret {path}")
        elif e.call == "chdir":
            if e.ok() and e.strings:
                cwd[e.pid] = os.path.normpath(os.path.join(here, e.strings[0]))
            continue
        elif e.call in ("mkdir", "mkdirat") and allowed_edit(e.path(here)):
            continue
        elif git_own and e.strings and all(
                git_bookkeeping(os.path.join(here, s)) for s in e.strings[:2]) and e.call in (
                "rename", "renameat", "renameat2", "link", "linkat", "unlink", "unlinkat",
                "mkdir", "mkdirat"):
            continue
        elif e.call in ("rename", "renameat", "renameat2") and len(e.strings) >= 2 and all(
                allowed_edit(os.path.join(here, s)) for s in e.strings[:2]):
            # `sed -i` writes a temporary file beside the file, then renames it over it.
            continue
        elif e.call == "connect":
            if "AF_INET" in e.args:
                findings.append("connected to the network")
        else:
            # unlink, rename, mkdir, rmdir, truncate, chmod, symlink, link: writes.
            target = e.strings[0] if e.strings else e.args[:60]
            findings.append(f"{e.call} {target}")
    return findings, rm_root
