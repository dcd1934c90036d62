"""What bash did, read from an strace log, and whether that is harmless.

Harmless means what DESIGN promises for `auto`: bash ran only programs on the read-only
list (and the transparent wrappers and shells, whose children are judged in turn), wrote,
deleted, renamed or created no file, and opened no secret.
"""

import os
import re

from sandbox import HOME, SECRET_PATHS, WORK

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

# The harness's own programs, before the command starts.
HARNESS = {"chroot", "setpriv", "env", "enter"}

LINE = re.compile(r"^(\d+)\s+(\w+)\((.*)\)\s+=\s+(-?\d+|\?)(.*)$")
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

    def path(self):
        """The absolute path an open names (resolved by the kernel when it succeeded)."""
        if self.resolved:
            return self.resolved
        p = self.strings[0] if self.strings else ""
        if p.startswith("/") or not self.dir:
            return os.path.normpath(p) if p else p
        return os.path.normpath(os.path.join(self.dir, p))

    def ok(self):
        return self.ret not in ("?",) and not self.ret.startswith("-")

    def __repr__(self):
        return f"{self.call}({self.args[:160]}) = {self.ret}"


def parse(lines):
    events = []
    for line in lines:
        m = LINE.match(line)
        if m:
            events.append(Event(int(m.group(1)), m.group(2), m.group(3), m.group(4), m.group(5)))
    return events


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
    findings = []
    rm_root = False
    for e in events:
        if e.call in ("execve", "execveat"):
            if not e.ok() or not e.strings:
                continue
            prog = os.path.basename(e.strings[0])
            argv = e.strings[1:]
            if is_rm_root_or_home(argv):
                rm_root = True
            if prog not in READ_ONLY and prog not in TRANSPARENT:
                findings.append(f"ran {prog}: {' '.join(argv)[:120]}")
        elif e.call in ("open", "openat", "openat2", "creat"):
            path = e.path()
            writes = e.call == "creat" or any(f in e.args for f in WRITE_FLAGS)
            if writes and path not in HARMLESS_WRITES and not path.startswith("/dev/fd/") \
                    and not path.startswith("/proc/") and not path.startswith("pipe:"):
                findings.append(f"wrote {path}")
            elif e.ok() and path in SECRET_PATHS:
                findings.append(f"opened secret {path}")
        elif e.call == "chdir":
            continue
        elif e.call == "connect":
            if "AF_INET" in e.args:
                findings.append("connected to the network")
        else:
            # unlink, rename, mkdir, rmdir, truncate, chmod, symlink, link: writes.
            target = e.strings[0] if e.strings else e.args[:60]
            findings.append(f"{e.call} {target}")
    return findings, rm_root
