"""toolgate.langgraph with the real LangGraph (pinned in requirements-dev.txt), its SQLite
checkpointer and LangChain's fake chat model: a read-only call runs at once; an ask
interrupts the graph and parks; a new process resumes after a person's approval and the
tool runs exactly once; a second resume is refused; a deny never runs and its reason
reaches the model; a denial's message and an expiry reach the model; an edited graph
state does not run.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import unittest
from typing import Any, Dict

from langchain_core.messages import AIMessage

import toolgate

sys.path.insert(0, os.path.dirname(__file__))
import frameworks  # noqa: E402
import lg_agent  # noqa: E402



class LangGraph(frameworks.AgentCase):
    SCRIPT = "lg_agent.py"

    def test_a_read_only_call_runs_at_once(self) -> None:
        out = lg_agent.start(self.dir, "ls -la")
        self.assertEqual(out, {"tool_messages": ["ran ls -la"], "output": "done"})
        self.assertEqual(frameworks.ran(self.dir), ["ls -la"])

    def test_an_ask_interrupts_and_a_new_process_runs_it_once_after_approval(self) -> None:
        run_id = self.process("start", "make deploy")["interrupted"]
        self.assertEqual(frameworks.ran(self.dir), [])
        run = self.store.run(run_id)
        assert run is not None
        self.assertEqual((run["status"], run["marker"]["calls"][0]["tool"]), ("awaiting_permission", "bash"))
        self.assertEqual(self.process("resume")["error"], "awaiting_permission")
        self.decide(run_id)
        out = self.process("resume")
        self.assertEqual(out["tool_messages"], ["ran make deploy"])
        self.assertEqual(frameworks.ran(self.dir), ["make deploy"])
        self.assertEqual(self.process("resume")["error"], "not_awaiting_permission")
        self.assertEqual(frameworks.ran(self.dir), ["make deploy"])

    def test_a_persons_edit_runs_instead_once(self) -> None:
        run_id = self.process("start", "make deploy")["interrupted"]
        self.edit_then_approve(run_id)
        out = self.process("resume")
        self.assertEqual(len(out["tool_messages"]), 1)
        self.assertTrue(out["tool_messages"][0].endswith("ran make deploy --dry-run"), out)
        self.assertIn("A person edited this call", out["tool_messages"][0])
        self.assertEqual(frameworks.ran(self.dir), ["make deploy --dry-run"])
        self.assertEqual(self.process("resume")["error"], "not_awaiting_permission")
        self.assertEqual(frameworks.ran(self.dir), ["make deploy --dry-run"])

    def test_a_deny_never_runs_and_the_model_gets_the_reason(self) -> None:
        out = lg_agent.start(self.dir, "sudo rm -rf /tmp/x")
        self.assertIn("toolgate denied this call: privilege escalation", out["tool_messages"][0])
        self.assertEqual(frameworks.ran(self.dir), [])

    def test_a_denial_and_an_expiry_reach_the_model(self) -> None:
        run_id = self.process("start", "make deploy")["interrupted"]
        self.decide(run_id, "deny", "not on Fridays")
        self.assertIn("not on Fridays", self.process("resume")["tool_messages"][0])
        with tempfile.TemporaryDirectory() as other:
            self.process("start", "make deploy", "1000", directory=other)
            time.sleep(1.2)
            out = self.process("resume", directory=other)
            self.assertIn("nobody answered the permission request in time", out["tool_messages"][0])
            self.assertEqual(frameworks.ran(other), [])
        self.assertEqual(frameworks.ran(self.dir), [])

    def test_an_edited_state_does_not_run(self) -> None:
        run_id = self.process("start", "make deploy")["interrupted"]
        self.decide(run_id)
        app, gate = lg_agent.build(self.dir, [AIMessage(content="done")])
        snapshot = app.get_state(lg_agent.CONFIG)
        last = snapshot.values["messages"][-1]
        edited = AIMessage(
            content="",
            id=last.id,
            tool_calls=[{"name": "run_shell", "args": {"command": "make deploy --prod"}, "id": "call-1"}],
        )
        app.update_state(lg_agent.CONFIG, {"messages": [edited]}, as_node="agent")
        out = lg_agent.report(app.invoke(gate.resume(lg_agent.CONFIG), lg_agent.CONFIG))
        self.assertIn("not the ones a person approved", " ".join(out.get("tool_messages", [])) + str(out))
        self.assertEqual(frameworks.ran(self.dir), [])


if __name__ == "__main__":
    unittest.main()
