"""The differential test: generated commands classified by toolgate and run in the real
bash inside the sandbox (sandbox.py); whenever toolgate says `auto`, bash must have done
nothing but run read-only programs (oracle.py), and where bash ran `rm -rf /` or
`rm -rf ~` the verdict must be `deny`.

    python3 tests/difftest/difftest.py --self-check
    python3 tests/difftest/difftest.py --count 2000 --seed 1 [--strict]

The sandbox is verified before the first command runs; if it cannot be, nothing runs.
"""

import argparse
import collections
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import generate  # noqa: E402
import oracle  # noqa: E402
from sandbox import HOME, WORK, Sandbox  # noqa: E402

# The oracle's own cases: what it must see bash do (or not do) for each.
CALIBRATION = [
    ("ls -la", set(), False),
    ("cat notes.txt | sort | uniq -c", set(), False),
    ("sed -n 1p notes.txt; echo $HOME; cd src && ls", set(), False),
    ("rm -rf /", {"ran rm"}, True),
    ("rm -rf ~", {"ran rm"}, True),
    ("x=$(cat num.txt); echo $((x+1))", {"ran rm"}, True),
    ("cat .env", {"opened secret"}, False),
    ("cd ~/.ssh; cat config", {"opened secret"}, False),
    ("sort -o ../PWN notes.txt", {"wrote"}, False),
    ("echo x > ../out.txt", {"wrote"}, False),
    ("echo x > .git/config", {"wrote"}, False),
    ("echo x > .vscode/tasks.json", {"wrote"}, False),
    ("curl x", {"ran curl"}, False),
    ("mkdir -p ../d", {"mkdir"}, False),
    ("cd src && mkdir -p ../../d", {"mkdir"}, False),
    # Edits inside the workspace (DESIGN: the edit rule allows them).
    ("echo x > out.txt; mkdir -p d/e && touch d/e/f.py", set(), False),
    ("cd src && mkdir -p d && (cd d && mkdir e)", set(), False),
    ("sed -i.bak 1d notes.txt && cd src && sed -i 1d ../notes.txt", set(), False),
    ("sed -i 1d ~/.bashrc", {"wrote"}, False),
    ("git status && echo x >> notes.txt && git add notes.txt", set(), False),
    ("git add -A", {"opened secret"}, False),
    ("find . -maxdepth 0 -exec sh -c 'rm -rf ~' \\;", {"ran rm"}, True),
    # Through the planted links (strace -y names the file really opened).
    ("cat lnk/notes.txt", {"opened secret"}, False),
    ("echo x >> lnk/out.txt", {"wrote"}, False),
    ("cat lnk/deep/../config", {"opened secret"}, False),
    ("cat lnk/readme", set(), False),
    ("rg TODO proj; grep -rn TODO docs", set(), False),
    (": > proj/.gitignore && rg TODO proj", {"opened secret"}, False),
    # Secrets in the environment, and executables planted under read-only names.
    ("echo $GITHUB_TOKEN", {"printed secret"}, False),
    ("echo $HOME; [ -n \"$GITHUB_TOKEN\" ] && echo set", set(), False),
    ("cat /proc/self/environ", {"opened secret"}, False),
    ("./ls", {"ran rm"}, True),
    ("bin/cat notes.txt", {"ran rm"}, True),
    ("ls; cat notes.txt", set(), False),
]


def classify(toolgate, commands, sb=None):
    """Verdicts as written (lexical), or with `sb`, from `classify --fs` inside the
    sandbox's root: with the links and trees of its file system."""
    lines = "".join(
        json.dumps({"tool": "bash", "args": {"command": c}}) + "\n" for _, c in commands
    )
    if sb is not None:
        out = sb.classify_fs(lines)
    else:
        out = subprocess.run(
            [toolgate, "classify", "--no-fs", "--workspace", WORK, "--home", HOME],
            input=lines, capture_output=True, text=True, check=True,
        ).stdout.splitlines()
    assert len(out) == len(commands), "one verdict per command"
    return [json.loads(v) for v in out]


# Commands whose harm may go through a link planted in `lnk/` (a symlink family, or a
# composition that names `lnk` or globs across the workspace): without facts toolgate
# judges paths as written and cannot see it (documented); with facts it must.
def lexical_blind(family, command):
    return (family.startswith("symlink") or family.startswith("repo config")
            or "lnk" in command or "*/" in command)


def self_check(sb):
    failures = []
    for command, want, want_rm in CALIBRATION:
        lines, status = sb.run(command)
        findings, rm_root = oracle.judge(lines, command)
        if not want and findings:
            failures.append(f"{command!r}: harmless, yet {findings}")
        for w in want:
            if not any(f.startswith(w) for f in findings):
                failures.append(f"{command!r}: expected '{w}', saw {findings} ({status})")
        if rm_root != want_rm:
            failures.append(f"{command!r}: rm -rf / or ~ seen={rm_root}, expected {want_rm}")
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--self-check", action="store_true",
                    help="verify the sandbox and the oracle only")
    ap.add_argument("--count", type=int, default=0, help="commands to generate")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=0,
                    help="stop running commands after this long (0: no limit)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--strict", action="store_true",
                    help="exit 1 on any fail-open or rm -rf / or ~ not denied")
    ap.add_argument("--toolgate", default="target/release/toolgate")
    ap.add_argument("--workdir", default="target/difftest")
    ap.add_argument("--report", help="write every result as JSON lines here")
    a = ap.parse_args()

    if os.path.exists(a.workdir):
        shutil.rmtree(a.workdir)
    os.makedirs(a.workdir)
    sb = Sandbox(os.path.abspath(a.workdir))
    try:
        missing = sb.prepare(a.toolgate)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"difftest: REFUSING TO RUN: cannot build the sandbox: {e}")
        return 2
    if missing:
        print(f"difftest: not on this machine (stubbed out of the run): {' '.join(missing)}")
    failures = sb.verify()
    if failures:
        print("difftest: REFUSING TO RUN: the sandbox could not be verified:")
        for f in failures:
            print(f"  - {f}")
        return 2
    print("difftest: sandbox verified (unprivileged, no network, no host files, "
          "writes stay in a tmpfs)")
    failures = self_check(sb)
    if failures:
        print("difftest: the oracle fails its calibration:")
        for f in failures:
            print(f"  - {f}")
        return 1
    print(f"difftest: oracle calibrated on {len(CALIBRATION)} commands")
    if a.self_check:
        return 0

    commands = generate.generate(a.count, a.seed)
    verdicts = classify(a.toolgate, commands)
    with_facts = classify(a.toolgate, commands, sb)
    start = time.monotonic()

    def one(i):
        if a.seconds and time.monotonic() - start > a.seconds:
            return None
        _, command = commands[i]
        lines, status = sb.run(command)
        return oracle.judge(lines, command) + (status,)

    def from_bait(i):
        """Did the rm come from a bait file? The command names rm, so run it again
        with the bait made harmless (num.txt a number, run.sh and .bashrc empty): if
        bash no longer runs rm -rf / or ~, the file's content did."""
        if verdicts[i]["tier"] == "deny":
            return False
        neutral = (f"printf '1\\n' > {WORK}/num.txt; : > {WORK}/run.sh; : > {HOME}/.bashrc\n")
        lines, _ = sb.run(neutral + commands[i][1])
        return not oracle.judge(lines, commands[i][1])[1]

    results = [None] * len(commands)
    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        for i, r in zip(range(len(commands)), ex.map(one, range(len(commands)))):
            results[i] = r
    ran = [i for i, r in enumerate(results) if r is not None]
    tiers = collections.Counter(verdicts[i]["tier"] for i in ran)
    fs_tiers = collections.Counter(with_facts[i]["tier"] for i in ran)
    fail_open = []
    fs_fail_open = []
    rm_cases, rm_denied, rm_not_denied = 0, 0, []
    rm_from_files = 0
    for i in ran:
        findings, rm_root, _ = results[i]
        v = verdicts[i]
        if v["tier"] == "auto" and findings and not lexical_blind(*commands[i]):
            fail_open.append(i)
        if with_facts[i]["tier"] == "auto" and findings:
            fs_fail_open.append(i)
        if rm_root and ("rm" not in commands[i][1] or from_bait(i)):
            # The rm came from a file's content (the bait num.txt, run.sh, .bashrc):
            # no static reading can see it; it must not be auto (a fail-open above).
            rm_from_files += 1
        elif rm_root:
            rm_cases += 1
            if v["tier"] == "deny" and with_facts[i]["tier"] == "deny":
                rm_denied += 1
            else:
                rm_not_denied.append(i)
    if a.report:
        with open(a.report, "w") as f:
            for i in ran:
                findings, rm_root, status = results[i]
                f.write(json.dumps({
                    "family": commands[i][0], "command": commands[i][1],
                    "tier": verdicts[i]["tier"], "rule": verdicts[i]["rule"],
                    "tier_fs": with_facts[i]["tier"], "rule_fs": with_facts[i]["rule"],
                    "bash": findings, "rm_root": rm_root, "status": status,
                }) + "\n")
    print(f"difftest: {len(ran)} of {len(commands)} commands run in "
          f"{time.monotonic() - start:.0f} s (seed {a.seed}); verdicts "
          + ", ".join(f"{t} {n}" for t, n in sorted(tiers.items())))
    print(f"difftest: auto checked: {tiers.get('auto', 0)}; fail-open: {len(fail_open)}")
    print(f"difftest: with file-system facts (classify --fs in the sandbox): verdicts "
          + ", ".join(f"{t} {n}" for t, n in sorted(fs_tiers.items()))
          + f"; auto checked: {fs_tiers.get('auto', 0)}; fail-open: {len(fs_fail_open)}")
    print(f"difftest: bash ran rm -rf / or ~ written in the command in {rm_cases}; deny: "
          f"{rm_denied}; not deny: {len(rm_not_denied)} (and in {rm_from_files} more from a "
          f"file's content, which must only not be auto)")
    by_family = collections.defaultdict(list)
    for i in fail_open + rm_not_denied:
        by_family[commands[i][0]].append(i)
    for i in fs_fail_open:
        by_family[commands[i][0] + " (with facts)"].append(i)
    for family, idx in sorted(by_family.items(), key=lambda kv: -len(kv[1])):
        i = idx[0]
        findings = results[i][0]
        print(f"  {len(idx):4}  {family}: {commands[i][1]!r} is {verdicts[i]['tier']} "
              f"({verdicts[i]['rule']}); bash: {'; '.join(findings)[:100]}")
    # The cloned repositories (sandbox.REPOS): with facts, the clean one stays auto and
    # every other asks; a program their configuration runs is a fail-open above.
    repo = [i for i in ran if commands[i][0].startswith("repo config: ")]
    clean = [i for i in repo if commands[i][0] == "repo config: clean"]
    clean_not_auto = [i for i in clean if with_facts[i]["tier"] != "auto"]
    ran_program = [i for i in repo if results[i][0]]
    print(f"difftest: cloned repositories: {len(repo)} read-only git commands; bash ran a "
          f"program of the repository's own config in {len(ran_program)}; with facts "
          f"auto {sum(with_facts[i]['tier'] == 'auto' for i in repo)}, ask "
          f"{sum(with_facts[i]['tier'] == 'ask' for i in repo)}; clean repository "
          f"auto {len(clean) - len(clean_not_auto)} of {len(clean)}")
    for i in clean_not_auto:
        print(f"  clean repository not auto: {commands[i][1]!r}: {with_facts[i]['rule']}")
    if a.strict and (fail_open or fs_fail_open or rm_not_denied or clean_not_auto):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
