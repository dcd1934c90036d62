"""What the framework adapters' tests share: an agent script run in a new Python process,
a person's decision recorded in the store, and the tool's log of what ran."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import unittest
from typing import Any, Dict, List

import toolgate


def process(script: str, directory: str, *args: str) -> Dict[str, Any]:
    """`tests/SCRIPT DIR ARGS…` in a new Python process: the JSON it printed last."""
    path = os.path.join(os.path.dirname(__file__), script)
    r = subprocess.run([sys.executable, path, directory, *args], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise AssertionError(r.stderr)
    return dict(json.loads(r.stdout.strip().splitlines()[-1]))


def store(directory: str) -> toolgate.RunStore:
    """The agents' run store: a remote toolgate-server when TOOLGATE_TEST_SERVER names its
    URL (with the agent's token, TOOLGATE_TEST_TOKEN), else a SQLite file in `directory`."""
    url = os.environ.get("TOOLGATE_TEST_SERVER")
    if url:
        return toolgate.RunStore(url, token=os.environ.get("TOOLGATE_TEST_TOKEN", ""), timeout=10)
    return toolgate.RunStore("sqlite:" + os.path.join(directory, "runs.db"))


def decide(
    store: toolgate.RunStore, run_id: str, decision: str = "allow", message: str = "", args: Any = None
) -> None:
    """A person's decision for the run's one call (`call-1`), as the panel sends it;
    `args`: approved as the person edited them (classified again by the agents' policy)."""
    run = store.run(run_id)
    assert run is not None
    d = {"toolCallId": "call-1", "anchor": run["marker"]["calls"][0]["anchor"], "decision": decision}
    if message:
        d["message"] = message
    if args is not None:
        d["args"] = args
    policy = toolgate.Policy.defaults(workspace="/home/dev/app", home="/home/dev")
    store.decide(run_id, [d], by="alice-phone", policy=policy)


def log_command(directory: str, command: str) -> str:
    """What the tests' shell tool does: appends the command to `ran.log`."""
    with open(os.path.join(directory, "ran.log"), "a", encoding="utf-8") as f:
        f.write(command + "\n")
    return f"ran {command}"


def ran(directory: str) -> List[str]:
    """The commands the tool ran, in any process."""
    try:
        with open(os.path.join(directory, "ran.log"), encoding="utf-8") as f:
            return f.read().splitlines()
    except FileNotFoundError:
        return []


def main(start: Any, resume: Any) -> None:
    """`SCRIPT DIR start COMMAND [TTL_MS]` or `SCRIPT DIR resume [RUN_ID]`: prints JSON."""
    d, what = sys.argv[1], sys.argv[2]
    try:
        if what == "start":
            out = start(d, sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else None)
        else:
            out = resume(d, *sys.argv[3:4])
    except toolgate.ToolgateError as e:
        out = {"error": e.code, "message": str(e)}
    print(json.dumps(out))


class AgentCase(unittest.TestCase):
    """A test directory with a run store, and the agent script (`SCRIPT`) its tests run."""

    SCRIPT = ""

    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.store = toolgate.RunStore("sqlite:" + os.path.join(self.dir, "runs.db"))

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def decide(self, run_id: str, decision: str = "allow", message: str = "", args: Any = None) -> None:
        decide(self.store, run_id, decision, message, args)

    def edit_then_approve(self, run_id: str) -> None:
        """An edit into a denied command is refused (`edit_refused`, the run still waits);
        then `make deploy --dry-run` is approved as the person's edit of the call."""
        with self.assertRaises(toolgate.ToolgateError) as refused:
            self.decide(run_id, args={"command": "sudo make deploy"})
        self.assertEqual(refused.exception.code, "edit_refused")
        run = self.store.run(run_id)
        assert run is not None
        self.assertEqual(run["status"], "awaiting_permission")
        self.decide(run_id, args={"command": "make deploy --dry-run"})

    def process(self, *args: str, directory: str = "") -> Dict[str, Any]:
        return process(self.SCRIPT, directory or self.dir, *args)
