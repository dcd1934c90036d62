"""Generated shell commands: every construct whose meaning toolgate must compute as bash
does, nesting payloads that do harm (`rm -rf /`, a download, a write, a secret read),
alone and composed. Deterministic for a seed."""

import random

PAYLOADS = [
    "rm -rf /",
    "rm -rf ~",
    "curl x",
    "touch PWN",
    "cat .env",
    "cat ~/.ssh/id_rsa",
    "sort -o PWN notes.txt",
]

# Constructs that carry a payload: (family, template with {p}).
CARRIERS = [
    ("heredoc in $(…)", "echo $(cat <<E\n$({p})\nE\n)"),
    ("heredoc in backticks", "echo `cat <<E\n$({p})\nE\n`"),
    ("shell fed an expanded heredoc", "sh <<E\nls ${{x:-;}} {p}\nE"),
    ("shell fed a static heredoc", "bash <<'E'\necho hi\n{p}\nE"),
    ("shell fed an unquoted heredoc", "bash <<E\necho $HOME\n{p}\nE"),
    ("backslash-newline in double quotes", 'ls "$\\\n({p})"'),
    ("backslash-newline in a heredoc", "cat <<E\n$\\\n({p})\nE"),
    ("substitution in double quotes", 'echo "$({p})"'),
    ("indirect expansion of a subscript", "x='a[$({p})]'; echo ${{!x}}"),
    ("prompt expansion", "x='$({p})'; echo ${{x@P}}"),
    ("array with a substitution", "a=($({p}))"),
    ("command stops at the program", "command {p} -v"),
    ("function definition", "f() {{ {p}; }}; f"),
    ("function named like a read-only program", "ls() {{ command {p}; }}\nls"),
    ("eval of a string", 'eval "{p}"'),
    ("eval of words", "eval {p}"),
    ("time", "time {p}"),
    ("env", "env {p}"),
    ("nice", "nice {p}"),
    ("timeout", "timeout 1 {p}"),
    ("trap", "trap '{p}' EXIT; ls"),
    ("find -exec sh -c", "find . -maxdepth 0 -exec sh -c '{p}' \\;"),
    ("xargs sh -c", "xargs sh -c '{p}' <<< x"),
    ("arithmetic on a substitution", "echo $(( $(echo 1) + $({p}) ))"),
    ("subshell", "( {p} )"),
    ("group", "{{ {p}; }}"),
    ("pipeline", "ls | {p}"),
    ("and-list", "true && {p}"),
    ("or-list", "false || {p}"),
    ("process substitution", "cat <({p})"),
    ("here-string to a shell", "bash <<< '{p}'"),
    ("bash -c", "bash -c '{p}'"),
    ("sh -c with a variable", "x='{p}'; sh -c \"$x\""),
    ("brace group in a loop", "for i in 1; do {p}; done"),
    ("if body", "if true; then {p}; fi"),
    ("case body", "case x in x) {p};; esac"),
    ("coproc", "coproc {{ {p}; }}"),
]

# Whole commands from the classes found by running commands in bash: no payload slot.
STANDALONE = [
    ("brace sequence", "cat .e{n..n}v"),
    ("brace sequence in an option", "find . -d{e..e}lete"),
    ("brace alternatives", "cat {.env,notes.txt}"),
    ("bracket expression", "cat .[]e]nv"),
    ("bracket expression", "cat .[e]nv"),
    ("bracket expression", "cat [.]env"),
    ("run-time option", 'x="-o"; sort $x PWN notes.txt'),
    ("run-time option default", "sort ${x:--o PWN} notes.txt"),
    ("xargs turns data into arguments", "ls | xargs sort"),
    ("xargs turns data into arguments", 'xargs sort <<< "-o PWN notes.txt"'),
    ("xargs runs a file's text", 'xargs -I{} sh -c "echo {}" < num.txt'),
    ("glob expands to options", "grep foo *"),
    ("glob expands to options", "sort *"),
    ("glob expands to options", "git log *"),
    ("input redirection on a subshell", "(cat) < .env"),
    ("input redirection on a group", "{ nl; } < .env"),
    ("secret as an option value", "file -bf.env"),
    ("secret as an option value", "xargs -a.env echo"),
    ("secret as an option value", "du --files0-from=.env"),
    ("secret as an option value", "grep -f.env notes.txt"),
    ("variable that names a file", "TZ=~/.ssh/id_rsa ls -la"),
    ("working directory", "cd ~/.ssh; cd /nonexistent; cat config"),
    ("working directory", "OLDPWD=~/.aws; cd -; cat credentials"),
    ("working directory", "cd ~/.aws && cat credentials"),
    ("recursive read", "grep -r . ~"),
    ("recursive read", "grep -r LooseVersion ."),
    ("glob read", "cat ~/.*/*"),
    ("file named at run time", "x=.env; cat $x"),
    ("file named at run time", "bash -c 'cat \"$1\"' _ .env"),
    ("option that reads", "date -f ~/.ssh/id_rsa"),
    ("option that writes", "file -C -m mymagic"),
    ("option that writes", "sort -o PWN notes.txt"),
    ("option that writes", "tee PWN < notes.txt"),
    ("redirect", "echo x > PWN"),
    ("redirect", "cat notes.txt >> PWN"),
    ("arithmetic on a file's text", "x=$(cat num.txt); echo $((x+1))"),
    ("arithmetic on a file's text", "x=$(cat num.txt); [[ $x -eq 1 ]]"),
    ("source", "source run.sh"),
    ("source", ". ./run.sh"),
    ("BASH_ENV", "BASH_ENV=run.sh bash -c ls"),
    ("harmless", "ls -la"),
    ("harmless", "cat notes.txt | sort | uniq -c"),
    ("harmless", "grep -n LooseVersion README.md"),
    ("harmless", "find src -name '*.py'"),
    ("harmless", "echo $HOME"),
    ("harmless", "wc -l notes.txt README.md"),
    ("harmless", "sed -n 1,2p notes.txt"),
    ("harmless", "head -1 notes.txt && tail -1 notes.txt"),
    # Through the links planted in `lnk/` (sandbox.LINKS): judged as written they look
    # harmless; only with the file system's facts (`classify --fs`) are they seen.
    ("symlink read", "cat lnk/notes.txt"),
    ("symlink read", "head -1 lnk/env.txt"),
    ("symlink read", "cat lnk/keys/config"),
    ("symlink read", "cat lnk/deep/../config"),
    ("symlink read", "cat lnk/deep/x"),
    ("symlink read", "cd lnk && cat notes.txt"),
    ("symlink read", "cd lnk/keys && wc -l config"),
    ("symlink read", "grep x lnk/notes.txt"),
    ("symlink read", "sed -n 1p lnk/env.txt"),
    ("symlink read", "tail -n 1 < lnk/notes.txt"),
    ("symlink read", "cat lnk/*.txt"),
    ("symlink read", "wc -l lnk/*"),
    ("symlink read", "cat */*.txt"),
    ("symlink read", "for f in lnk/*; do cat $f; done"),
    ("symlink read", "cp lnk/notes.txt copy.txt"),
    ("symlink read", "cat lnk/loop"),
    ("symlink read", "cat lnk/readme"),
    ("symlink write", "echo x > lnk/out.txt"),
    ("symlink write", "echo x >> lnk/hooks/pre-commit"),
    ("symlink write", "ls | tee lnk/out.txt"),
    ("symlink write", "sed -i 1d lnk/out.txt"),
    ("symlink write", "cp notes.txt lnk/out.txt"),
    ("symlink write", "touch lnk/out.txt"),
    ("symlink write", "mv lnk/out.txt moved.txt"),
    ("symlink write", "cp -P lnk/out.txt o.txt && echo x > o.txt"),
    ("symlink write", "cp -d lnk/out.txt o.txt && echo x > o.txt"),
    ("symlink write", "cd lnk && echo x > out.txt"),
    ("symlink write", "echo x > lnk/deep/../authorized_keys"),
    ("symlink tree", "grep -r canary lnk"),
    ("symlink tree", "grep -R canary lnk"),
    ("symlink tree", "rg canary lnk"),
    ("symlink tree", "rg -L canary lnk"),
    ("symlink tree", "grep -r canary lnk/keys"),
    # Recursive reads the facts vouch for, and look-alikes they must not.
    ("recursive read", "grep -rn TODO docs"),
    ("recursive read", "rg TODO proj"),
    ("recursive read", "rg -uu TODO proj"),
    ("recursive read", "rg --no-ignore TODO proj"),
    ("recursive read", "rg -g '*.key' TODO proj"),
    ("recursive read", "grep -r TODO proj"),
    ("recursive read", "rg TODO"),
    ("recursive read", "grep -rn TODO ."),
    ("recursive read", "rg --hidden TODO"),
    ("recursive read", ": > proj/.gitignore && rg TODO proj"),
    ("recursive read", "rg TODO proj | tee proj/.gitignore"),
    ("recursive read", "mv proj/.gitignore proj/x.txt; rg TODO proj"),
    ("recursive read", "diff -r docs proj"),
]


# Read-only commands in many spellings, which toolgate may well call `auto`: options,
# globs (the workspace holds files named `--pre=sh`, `--output=PWN`, `-oPWN`), loops,
# values set in the command, `cd`, pipes into `xargs`. Alone and inside the carriers,
# they are what the `auto` verdicts are checked on.
READS = [
    "cat notes.txt", "head -n 2 notes.txt", "tail -n 1 notes.txt", "wc -l notes.txt README.md",
    "sort -r notes.txt", "uniq -c notes.txt", "cut -c1 notes.txt", "nl -ba notes.txt",
    "grep -n a notes.txt", "grep -c Loose README.md", "ls -la", "ls src", "du -sh src",
    "stat -c %s notes.txt", "file -b notes.txt", "diff notes.txt README.md",
    "cmp notes.txt README.md", "comm notes.txt README.md", "tr a-z A-Z < notes.txt",
    "basename src/main.py .py", "realpath notes.txt", "seq 1 3", "date +%s", "uname -a",
    "id -u", "echo $HOME", "find src -name '*.py'", "tree src", "git status", "rg a notes.txt",
    "cat *.txt", "wc -l *", "sort *", "head -1 ./*", "cat src/*.py", "grep a *", "ls *",
    "file *", "cat -- *.md", "wc -l -- *", "tail -n 1 -- *", "sort -- *",
    'for f in *.txt; do cat "$f"; done', 'for f in *; do wc -l "$f"; done',
    "for f in src/*; do head -1 $f; done", "f=notes.txt; cat $f", 'f=.env; cat "$f"',
    "d=src; ls $d", "x=-n; cat $x notes.txt", "x=-oPWN; sort $x notes.txt",
    "cd src && cat main.py", "cd ~ && ls", "cd ~/.ssh; ls", "cd /nonexistent; cat notes.txt",
    "cd src; cd ..; cat notes.txt", "cd ~/.ssh; cd /nonexistent; wc -l config",
    "cat notes.txt | sort | uniq", "ls | wc -l",
    "find . -maxdepth 1 -name '*.txt' | xargs cat", "find . | xargs wc -l",
    "cat $(find src -name '*.py')", "ls | xargs echo", "sort -o PWN notes.txt",
    "sort --files0-from=notes.txt", "wc --files0-from=notes.txt",
    "du --files0-from=notes.txt", "file -f notes.txt", "grep -f notes.txt README.md",
    "diff -r src src", "grep -r a src", "grep -rn TODO docs", "rg TODO proj",
    "rg -n TODO docs src", "grep -r -e TODO src docs", "date -r notes.txt", "TZ=UTC date",
    "LC_ALL=C sort notes.txt", "cat < notes.txt", "wc -l < .env", "head -c 5 ~/.netrc",
    "ls ~/.ssh", "du -a ~/.aws", "grep -l a *.txt", "git log --oneline -1", "git diff",
    "[[ 1 -eq 1 ]] && ls", "x=2; [[ $x -gt 1 ]] && ls", "test -f notes.txt && cat notes.txt",
    # sed: scripts that only print, and look-alikes that write, read or run.
    "sed -n 1,2p notes.txt", "sed -n '/a/,/b/p' notes.txt", "sed 's/a/b/g' notes.txt",
    "sed -e 1d -e '$!N' notes.txt", "nl -ba notes.txt | sed -n '1,2p'", "sed -n p .env",
    "sed -n '1w PWN' notes.txt", "sed 's/a/b/w PWN' notes.txt", "sed '1r .env' notes.txt",
    "sed '1R ~/.ssh/id_rsa' notes.txt", "sed 's/.*/rm -rf ~/e' notes.txt", "sed '1e touch PWN' notes.txt",
    "sed -n '1W PWN' notes.txt", "sed -i 1d notes.txt", "sed -f notes.txt notes.txt",
    "x='1w PWN'; sed \"$x\" notes.txt", "sed -n \"1,$(cat num.txt)p\" notes.txt",
    "sed --expression=1p -n notes.txt", "sed -n -- 1p *", "sed -s -n 1p *.txt",
    # options and find words the tables now read.
    "find -files0-from .env", "find . -files0-from notes.txt -name x", "find . -fls PWN",
    "tree --fromfile .env", "tree -H . --hintro .env", "uniq -- *.txt", "date --bogus",
    "jq . notes.txt", "jq --rawfile k .env -n .", "tree -o PWN src",
    # writes inside the workspace are edits; look-alikes that reach further.
    "echo x > out.txt", "echo x >> notes.txt", "ls > listing.txt", "echo x 2> err.txt",
    "cat <<'EOF' > new.py\nprint(1)\nEOF", "cat > new.py <<EOF\n$HOME\nEOF",
    "ls | tee out.txt", "tee -a log.txt < notes.txt", "mkdir -p d/e && touch d/e/f.py",
    "touch a.txt", "cd src && echo x > out.txt", "echo x > ../PWN", "echo x > src/../../PWN",
    "echo x > ~/.bashrc", "echo x >> ~/PWN", "echo x > .git/hooks/pre-commit",
    "echo x > .git/config", "mkdir .vscode", "echo '{}' > .vscode/tasks.json",
    "echo x > .envrc", "echo x > .env", "echo x > .env.local", "touch server.key",
    "echo x > .github/workflows/ci.yml", "echo x > .claude/settings.json",
    "echo x > .bashrc", "f=../PWN; echo x > $f", "echo x > $(echo ../PWN)",
    "echo x > *.txt", "touch ../PWN", "mkdir ../PWN", "touch ~/PWN", "tee ../PWN < notes.txt",
    "ls | tee ~/.profile", "cd ..; echo x > PWN", "cd /tmp && echo x > PWN",
    "cd src; cd /nonexistent; echo x > ../PWN", "cd ~/.ssh; echo x > config",
    "touch -r .env a.txt", "touch -- -rf", "mkdir -p .ssh", "echo x > /tmp/PWN",
    # sed -i edits each file; look-alikes that write elsewhere, read or run.
    "sed -i 1d notes.txt", "sed -i.bak 1d notes.txt", "sed -i '1a x' notes.txt",
    "sed --in-place=.orig -e 1d notes.txt", "sed -i 1d ~/.bashrc", "sed -i 1d .env",
    "sed -i 's/a/b/w PWN' notes.txt", "sed -i -e 1d -e '1r .env' notes.txt",
    "sed -i'*' 1d notes.txt", "sed -i 1d ../PWN", "sed -i 's/.*/touch PWN/e' notes.txt",
    "cd src && sed -i 1d ../notes.txt", "sed -i 1d $f", "sed -i 1d *.txt",
    # text tools, each a table entry.
    "od -c notes.txt", "od -c .env", "strings notes.txt", "strings @.env", "strings -n 2 .env",
    "column -t notes.txt", "fold -w 5 notes.txt", "paste notes.txt README.md", "rev notes.txt",
    "tac notes.txt", "tac ~/.ssh/id_rsa", "expr 1 + 2", "base64 notes.txt", "base64 -d <<< aGk=",
    "sha256sum notes.txt", "md5sum .env", "cksum -a sha256 notes.txt", "hexdump -C notes.txt",
    "hexdump -f .env notes.txt", "sha256sum -c notes.txt", "base64 -d <<< aWQ= | sh",
    "paste -d, notes.txt *", "column *", "od *",
    # cp and mv inside the workspace; look-alikes.
    "cp notes.txt copy.txt", "cp notes.txt src/", "mv notes.txt moved.txt", "mv README.md src/",
    "cp .env x.txt", "cp ~/.ssh/id_rsa k.txt", "mv .env x.txt", "cp notes.txt ../PWN",
    "mv notes.txt ~/PWN", "cp notes.txt .git/config", "cp notes.txt .bashrc", "mv src /tmp/",
    "cp -r src dst", "cp -s notes.txt ln.txt", "cp *.txt src/", "mv src dst", "cp $f x.txt",
    "cp notes.txt .env", "cd src && cp ../notes.txt .", "cp -t src notes.txt",
    # git add of named files stages them; look-alikes stage more, or a secret.
    "echo x >> notes.txt && git add notes.txt", "git add src/main.py", "git add -- notes.txt",
    "git add -A", "git add .", "git add .env", "git add server.key", "git add src", "git add *",
    "git add -f .env", "git add -A && git diff --cached", "git -C src add main.py",
    "git add notes.txt && git diff --cached", "git add $f", "git add -p notes.txt",
]


# The classes of the issue "nothing crashes the gate and auto leaks nothing", each a
# generator varied by the seed: other programs, options, quoting, wrappers, classes.
HARM = ["touch PWN", "rm -rf ~", "curl x", "cat .env", "git push"]
WRAPS = ["", "env ", "nice ", "timeout 5 ", "command "]
SHELLS = ["bash", "sh", "bash -s", "env bash", "nice sh", "timeout 5 bash"]


def heredoc_expanded(rng):
    """A shell fed an unquoted here-document: `\\$` and `\\`` become live."""
    p = rng.choice(HARM)
    body = rng.choice([f"echo \\`{p}\\`", f"echo \\$({p})", f"x=\\$({p})", f": \\`{p}\\`",
                       f"echo a\\$( {p} )b", f"ls \\`{p}\\` notes.txt"])
    d = rng.choice(["E", "EOF", "X_1"])
    dash = rng.choice(["", "-"])
    if rng.random() < 0.3:
        return f"cat <<{dash}{d} | {rng.choice(SHELLS)}\n{body}\n{d}"
    return f"{rng.choice(SHELLS)} <<{dash}{d}\n{body}\n{d}"


def herestring_continuation(rng):
    """Backslash-newline inside a here-string's word, before `$(` and in a word."""
    p = rng.choice(HARM)
    prog = rng.choice(["cat", "wc -l", "grep -c x", "tr a b", "sort", "head -n 1"])
    word = rng.choice([f'"$\\\n({p})"', f"$\\\n({p})", f'"x$\\\n({p})y"',
                       f'"$(tou\\\nch PWN)"', f'"`{p}`"', f'"${{z:-$\\\n({p})}}"'])
    return f"{rng.choice(WRAPS)}{prog} <<<{rng.choice(['', ' '])}{word}"


def bracket_classes(rng):
    """Bracket expressions with POSIX classes, equivalence classes and negation."""
    reader = rng.choice(["cat", "head -n 1", "tail -n 5", "wc -c", "grep -h .", "sort", "od -c",
                         "nl", "tac", "sed -n 1p", "cut -c1-3", "rev"])
    glob = rng.choice([".[[:lower:]]nv", ".[[:alpha:]]n[[:alpha:]]", ".e[[:alnum:]]v",
                       "[[:punct:]]env", ".[^x]nv", ".[!x]nv", ".e[[=n=]]v", ".e[[.n.]]v",
                       ".[[:lower:][:digit:]]nv", "server.[[:alpha:]]ey", "server.k[^x]y",
                       "~/.ssh/id_[[:lower:]]sa", "~/.aws/cred[[:alpha:]]ntials",
                       "~/.[[:alpha:]]etrc", "[[:punct:]][[:alpha:]]*"])
    if rng.random() < 0.25:
        # The value of an option that opens a file, globbed by bash first.
        opt = rng.choice(["grep -c -f {g} notes.txt", "grep --file {g} notes.txt",
                          "jq --rawfile k {g} -n 1", "date -f {g}"])
        return f"{rng.choice(WRAPS)}{opt.format(g=glob)}"
    return f"{rng.choice(WRAPS)}{reader} {glob}"


def git_file_options(rng):
    """git options that open a file, in every spelling git accepts."""
    secret = rng.choice([".env", "server.key", "~/.ssh/id_rsa", "/home/u/.aws/credentials"])
    return rng.choice([
        f"git blame --contents={secret} README.md", f"git blame --contents {secret} README.md",
        f"git blame --cont={secret} README.md", f"git blame --conten {secret} README.md",
        f"git blame -S {secret} README.md", f"git blame -S{secret} README.md",
        f"git blame -wS {secret} README.md", f"git blame --ignore-revs-file={secret} README.md",
        f"git blame --ignore-revs-file {secret} README.md",
        f"git ls-files -X {secret}", f"git ls-files -X{secret} -o",
        f"git ls-files --exclude-from={secret}", f"git ls-files --exclude-f {secret}",
        f"git ls-files -o --exclude-per-directory={secret}",
        f"git diff --no-index {secret} notes.txt", "git diff --no-index .e?v notes.txt",
        f"git --no-pager blame --contents {secret} README.md",
    ])


def loop_splitting(rng):
    """An unquoted loop variable is split into words and globbed again."""
    value, prog = rng.choice([
        (". -delete", "find"), (". -name x -delete", "find"), (". -fprint PWN", "find"),
        ("-o PWN notes.txt", "sort"), (".env notes.txt", "cat"), ("notes.txt .env", "head -n 1"),
        (".*", "cat"), ("server.*", "wc -c"), ("~/.ssh/*", "cat"), ("-f .env notes.txt", "grep"),
    ])
    q = rng.choice(['"', "'"])
    extra = rng.choice(["", " a.txt", " notes.txt"])
    return f"for x in {q}{value}{q}{extra}; do {prog} $x; done"


def secret_env(rng):
    """The values of secret-looking variables printed, and /proc/*/environ read."""
    return rng.choice([
        "echo $AWS_SECRET_ACCESS_KEY", 'echo "${GITHUB_TOKEN}"', "printf '%s\\n' \"$OPENAI_API_KEY\"",
        'cat <<< "$DB_PASSWORD"', "echo ${AWS_SECRET_ACCESS_KEY:-none}", "x=$GITHUB_TOKEN; echo $x",
        "jq -n env", "jq -n '$ENV.GITHUB_TOKEN'", "jq -rn 'env.AWS_SECRET_ACCESS_KEY'",
        "jq -n '$ENV'", "cat /proc/self/environ", "tr '\\0' '\\n' < /proc/self/environ",
        "strings /proc/self/environ", "grep -a TOKEN /proc/self/environ", "ls $GITHUB_TOKEN",
        "cat <<E\n$AWS_SECRET_ACCESS_KEY\nE", 'test "$DB_PASSWORD" -eq 1', "echo ${#GITHUB_TOKEN}",
        "od -c /proc/$$/environ", "echo $HOME", 'echo "$PATH"', '[ -n "$GITHUB_TOKEN" ] && echo set',
        "for v in $OPENAI_API_KEY; do echo $v; done", "echo ${OPENAI_API_KEY//-/ }",
    ]).replace("{", "{").replace("}", "}")


def relative_program(rng):
    """A program named by a path runs the workspace's file, planted there."""
    return rng.choice([
        "./ls", "./ls -la", "bin/cat notes.txt", "./bin/cat notes.txt", "tools/grep x notes.txt",
        "/home/u/work/ls", "cd bin && ./cat notes.txt", "env ./ls", "nice ./ls -l",
        "timeout 5 bin/cat notes.txt", "find . -maxdepth 0 -exec ./ls {} \\;",
        "xargs ./ls < notes.txt", "./ls | sort", "echo $(./ls)", "command ./ls",
    ])


CLASSES = [
    ("unquoted heredoc to a shell, escaped substitution", heredoc_expanded),
    ("here-string, backslash-newline", herestring_continuation),
    ("bracket expression with a class", bracket_classes),
    ("git option that opens a file", git_file_options),
    ("loop value split into words", loop_splitting),
    ("secret in the environment", secret_env),
    ("program named by a path", relative_program),
]


# Read-only git commands in each cloned repository of the sandbox (sandbox.REPOS):
# with facts, `auto` only where the repository's own configuration runs nothing.
REPO_NAMES = ["clean", "external", "textconv", "command", "clean-filter", "fsmonitor",
              "gpg", "include", "include-if"]
REPO_COMMANDS = [
    "cd repos/{r} && git status",
    "cd repos/{r} && git diff",
    "git -C repos/{r} log -1",
    "git -C repos/{r} log -p -1",
    "git -C repos/{r} show",
    "cd repos/{r} && git diff HEAD -- notes.txt",
]


def repo_commands():
    """(family, command) for every repository and read-only git command."""
    return [(f"repo config: {r}", c.format(r=r)) for r in REPO_NAMES for c in REPO_COMMANDS]


def generate(count, seed):
    """At least `count` commands as (family, command): every standalone case and every
    carrier with every payload first, then random compositions up to `count`."""
    rng = random.Random(seed)
    out = list(STANDALONE) + [("read-only variation", r) for r in READS] + repo_commands()
    for family, t in CARRIERS:
        for p in PAYLOADS:
            out.append((family, t.format(p=p)))
    # Each class at least 12 times, varied by the seed.
    for family, gen in CLASSES:
        out.extend((family, gen(rng)) for _ in range(12))
    while len(out) < count:
        if rng.random() < 0.15:
            family, gen = rng.choice(CLASSES)
            cmd = gen(rng)
            if rng.random() < 0.4:
                c_family, t = rng.choice(CARRIERS)
                cmd = t.format(p=cmd)
                family = f"{c_family} + {family}"
            out.append((family, cmd))
            continue
        family, t = rng.choice(CARRIERS)
        inner_family, inner = rng.choice(CARRIERS + [("payload", "{p}")])
        # Half the payloads are reads, so that many verdicts are `auto` and checked.
        pool = READS if rng.random() < 0.5 else PAYLOADS
        p = inner.format(p=rng.choice(pool)) if rng.random() < 0.3 else rng.choice(pool)
        cmd = t.format(p=p)
        if rng.random() < 0.25:
            cmd = rng.choice(["ls; ", "cd src; ", "x=1; ", "true && "]) + cmd
        if rng.random() < 0.15:
            _, alone = rng.choice(STANDALONE)
            cmd = cmd + rng.choice([" ; ", " && ", "\n"]) + alone
        out.append((f"{family} + {inner_family}" if "{p}" not in inner else family, cmd))
    return out
