"""Park and resume through `toolgate.RunStore` on a real SQLite file: a run parked in one
process is decided in another and taken once in a third; a wrong anchor, a second take,
an expiry and a cancel; and the same file served by the real `toolgate-server`, whose
panel API lists the run parked from Python and decides it.

    TOOLGATE_SERVER_BIN=target/debug/toolgate-server python -m unittest test_runs
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request
from typing import Any, Dict, Optional

import toolgate

sys.path.insert(0, os.path.dirname(__file__))
from server import PHONE, Server  # noqa: E402

WORKSPACE = "/home/dev/app"
HOME = "/home/dev"


def in_process(db: str, code: str) -> Any:
    """Runs `code` in a new Python process with `store` and `policy` open on `db`; the
    JSON it prints."""
    prelude = (
        "import json, toolgate\n"
        f"store = toolgate.RunStore({('sqlite:' + db)!r})\n"
        f"policy = toolgate.Policy.defaults(workspace={WORKSPACE!r}, home={HOME!r})\n"
        "def out(v): print(json.dumps(v))\n"
    )
    r = subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise AssertionError(r.stderr)
    return json.loads(r.stdout.strip().splitlines()[-1])


class ParkAndResume(unittest.TestCase):
    """One SQLite file, several processes."""
    def setUp(self) -> None:
        self.dir = tempfile.TemporaryDirectory()
        self.db = os.path.join(self.dir.name, "runs.db")
        self.store = toolgate.RunStore("sqlite:" + self.db)
        self.policy = toolgate.Policy.defaults(workspace=WORKSPACE, home=HOME)

    def tearDown(self) -> None:
        self.dir.cleanup()

    def park(self, run_id: str, command: str, ttl_ms: Optional[int] = None) -> Dict[str, Any]:
        return self.store.park(
            self.policy,
            run_id,
            [{"toolCallId": "c1", "tool": "bash", "args": {"command": command}}],
            '{"messages": 3}',
            ttl_ms=ttl_ms,
        )

    def code_of(self, f: Any) -> str:
        with self.assertRaises(toolgate.ToolgateError) as e:
            f()
        return e.exception.code

    def test_parked_in_one_process_decided_in_another_taken_once_in_a_third(self) -> None:
        parked = in_process(
            self.db,
            "p = store.park(policy, 'run-1', [{'toolCallId': 'c1', 'tool': 'bash', "
            "'args': {'command': 'make deploy'}}], 'h1')\nout(p)",
        )
        self.assertEqual(parked["run"]["status"], "awaiting_permission")
        anchor = parked["run"]["marker"]["calls"][0]["anchor"]
        decided = in_process(
            self.db,
            f"out(store.decide('run-1', [{{'toolCallId': 'c1', 'anchor': {anchor!r}, "
            "'decision': 'allow'}], by='alice-phone'))",
        )
        self.assertEqual(decided["results"][0]["outcome"], "approved")
        taken = in_process(self.db, "out(store.take('run-1'))")
        self.assertEqual(taken["results"][0]["outcome"], "approved")
        self.assertEqual(taken["results"][0]["args"], {"command": "make deploy"})
        self.assertEqual(taken["history"], "h1")
        self.assertEqual(self.code_of(lambda: self.store.take("run-1")), "already_resumed")
        run = self.store.run("run-1")
        assert run is not None
        self.assertEqual(run["decision"]["decidedBy"], "alice-phone")

    def test_a_decision_binds_to_the_parked_arguments_once(self) -> None:
        self.park("run-a", "make deploy")
        self.assertEqual(self.code_of(lambda: self.store.take("run-a")), "awaiting_permission")
        wrong = [{"toolCallId": "c1", "anchor": "0" * 64, "decision": "allow"}]
        self.assertEqual(
            self.code_of(lambda: self.store.decide("run-a", wrong, by="x")), "anchor_mismatch"
        )
        run = self.store.run("run-a")
        assert run is not None
        anchor = run["marker"]["calls"][0]["anchor"]
        deny = [{"toolCallId": "c1", "anchor": anchor, "decision": "deny", "message": "not now"}]
        self.store.decide("run-a", deny, by="alice")
        again = [{"toolCallId": "c1", "anchor": anchor, "decision": "allow"}]
        self.assertEqual(
            self.code_of(lambda: self.store.decide("run-a", again, by="bob")), "already_resumed"
        )
        taken = self.store.take("run-a")
        self.assertEqual(taken["results"][0]["outcome"], "denied")
        self.assertIn("not now", taken["results"][0]["toolResult"])

    def test_an_expired_run_is_no_denial_and_a_cancelled_one_resumes_nothing(self) -> None:
        self.park("run-x", "make deploy", ttl_ms=1000)
        time.sleep(1.2)
        taken = self.store.take("run-x")
        self.assertEqual(taken["results"][0]["outcome"], "expired")
        self.park("run-c", "make deploy")
        self.assertEqual(self.store.cancel("run-c", "the user moved on")["status"], "cancelled")
        self.assertNotEqual(self.code_of(lambda: self.store.take("run-c")), "")
        statuses = sorted(r["status"] for r in self.store.runs())
        self.assertIn("cancelled", statuses)

    def test_a_question_parked_in_one_process_is_answered_in_another_never_approved(self) -> None:
        parked = in_process(
            self.db,
            "p = store.park(policy, 'run-q', [{'toolCallId': 'q1', 'tool': 'ask_user', "
            "'args': {}, 'question': 'Which branch?'}], 'hq')\nout(p)",
        )
        q = parked["run"]["marker"]["calls"][0]
        self.assertEqual((q["rule"], q["reason"]), ("toolgate.question", "Which branch?"))
        allow = [{"toolCallId": "q1", "anchor": q["anchor"], "decision": "allow"}]
        self.assertEqual(self.code_of(lambda: self.store.decide("run-q", allow, by="x")), "answer_refused")
        answer = [{"toolCallId": "q1", "anchor": q["anchor"], "decision": "answer", "answer": "main"}]
        decided = in_process(self.db, f"out(store.decide('run-q', {answer!r}, by='alice'))")
        self.assertEqual(decided["results"][0]["outcome"], "answered")
        taken = self.store.take("run-q")
        self.assertEqual((taken["results"][0]["outcome"], taken["results"][0]["toolResult"]), ("answered", "main"))
        self.assertEqual(self.code_of(lambda: self.store.take("run-q")), "already_resumed")

    def test_a_call_the_policy_denies_is_never_parked(self) -> None:
        self.assertEqual(self.code_of(lambda: self.park("run-d", "sudo rm -rf /")), "bad_park")
        self.assertIsNone(self.store.run("run-d"))
        self.assertEqual(self.code_of(lambda: toolgate.RunStore("mysql://x")), "bad_url")


class WithTheServer(unittest.TestCase):
    """The same file served by the real toolgate-server: its panel API sees and decides
    the run parked from Python."""

    def test_the_server_lists_and_decides_a_run_parked_from_python(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            db = os.path.join(d, "runs.db")
            store = toolgate.RunStore("sqlite:" + db, owner="alice", name="py-agent")
            policy = toolgate.Policy.defaults(workspace=WORKSPACE, home=HOME)
            store.park(policy, "run-s", [{"toolCallId": "c1", "tool": "bash", "args": {"command": "make deploy"}}], "h")
            with Server(db) as server:

                def api(method: str, path: str, body: Optional[Dict[str, Any]] = None) -> Any:
                    req = urllib.request.Request(
                        server.url + path,
                        method=method,
                        data=None if body is None else json.dumps(body).encode(),
                        headers={"authorization": f"Bearer {PHONE}", "content-type": "application/json"},
                    )
                    with urllib.request.urlopen(req, timeout=10) as r:
                        return json.loads(r.read())

                listed = api("GET", "/v1/runs?status=awaiting_permission")["runs"]
                self.assertEqual([r["runId"] for r in listed], ["run-s"])
                self.assertEqual(listed[0]["parkedBy"], "py-agent")
                anchor = listed[0]["marker"]["calls"][0]["anchor"]
                api("POST", "/v1/runs/run-s/decisions", {"decisions": [{"toolCallId": "c1", "anchor": anchor, "decision": "allow"}]})
                taken = store.take("run-s")
                self.assertEqual(taken["results"][0]["outcome"], "approved")
                run = store.run("run-s")
                assert run is not None
                self.assertEqual(run["decision"]["decidedBy"], "alice-phone")

if __name__ == "__main__":
    unittest.main()
