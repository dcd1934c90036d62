"""toolgate.langchain with the real LangChain 1.x (`create_agent`, pinned in
requirements-dev.txt), a fake chat model and the SQLite checkpointer: a read-only call
runs at once; an ask pauses with LangChain's own `tool_approval` interrupt and parks; a
new process resumes with a LangChain decision (or with what the panel decided) and the
tool runs exactly once; a second resume runs nothing; an edited state does not run; a
deny never runs and its reason reaches the model; reject, respond and an expiry never
run the tool; a reviewer's edit is classified again: into a denied command it is
refused, into another ask it is parked and approved for exactly those arguments; a
decision made first in the panel stands against a later answer.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
import unittest
from typing import Any, Dict

from langchain_core.messages import AIMessage

sys.path.insert(0, os.path.dirname(__file__))
import frameworks  # noqa: E402
import lc_agent  # noqa: E402


class LangChain(frameworks.AgentCase):
    SCRIPT = "lc_agent.py"

    def answer(self, decision: Dict[str, Any], directory: str = "") -> Dict[str, Any]:
        return self.process("resume", json.dumps(decision), directory=directory)

    def test_a_read_only_call_runs_at_once(self) -> None:
        out = lc_agent.start(self.dir, "ls -la")
        self.assertEqual(out, {"tool_messages": ["ran ls -la"], "output": "done"})
        self.assertEqual(frameworks.ran(self.dir), ["ls -la"])

    def test_an_ask_pauses_and_a_new_process_runs_it_once_after_approval(self) -> None:
        agent, _ = lc_agent.build(self.dir, [AIMessage(content="", tool_calls=[{"name": "run_shell", "args": {"command": "make deploy"}, "id": "call-1"}])])
        out = agent.invoke({"messages": [("user", "deploy")]}, lc_agent.CONFIG)
        value = out["__interrupt__"][0].value
        self.assertEqual(
            (value["type"], value["tool_call_id"], value["name"], value["args"]),
            ("tool_approval", "call-1", "run_shell", {"command": "make deploy"}),
        )
        self.assertEqual(value["toolgate"]["runId"], "lc-t1-call-1")
        self.assertEqual(frameworks.ran(self.dir), [])
        run = self.store.run("lc-t1-call-1")
        assert run is not None
        self.assertEqual((run["status"], run["marker"]["calls"][0]["tool"]), ("awaiting_permission", "bash"))
        self.assertEqual(run["marker"]["calls"][0]["anchor"], value["toolgate"]["anchor"])
        out = self.answer({"type": "approve"})
        self.assertEqual(out, {"tool_messages": ["ran make deploy"], "output": "done"})
        self.assertEqual(frameworks.ran(self.dir), ["make deploy"])
        # A second resume runs nothing; the run is completed.
        self.answer({"type": "approve"})
        self.assertEqual(frameworks.ran(self.dir), ["make deploy"])
        run = self.store.run("lc-t1-call-1")
        assert run is not None
        self.assertEqual(run["status"], "completed")

    def test_a_decision_in_the_panel_resumes_it_once(self) -> None:
        run_id = self.process("start", "make deploy")["interrupted"]
        self.assertEqual(self.process("resume", "toolgate")["error"], "awaiting_permission")
        self.decide(run_id)
        self.assertEqual(self.process("resume", "toolgate")["tool_messages"], ["ran make deploy"])
        self.assertEqual(self.process("resume", "toolgate")["error"], "not_awaiting_permission")
        self.assertEqual(frameworks.ran(self.dir), ["make deploy"])

    def test_a_persons_edit_in_the_panel_runs_instead_once(self) -> None:
        run_id = self.process("start", "make deploy")["interrupted"]
        self.edit_then_approve(run_id)
        self.assertEqual(self.process("resume", "toolgate")["tool_messages"], ["ran make deploy --dry-run"])
        self.assertEqual(self.process("resume", "toolgate")["error"], "not_awaiting_permission")
        self.assertEqual(frameworks.ran(self.dir), ["make deploy --dry-run"])

    def test_a_decision_made_first_in_the_panel_stands(self) -> None:
        run_id = self.process("start", "make deploy")["interrupted"]
        self.decide(run_id, "deny", "not on Fridays")
        out = self.answer({"type": "edit", "edited_action": {"name": "run_shell", "args": {"command": "ls"}}})
        self.assertIn("not on Fridays", out["tool_messages"][0])
        self.assertEqual(frameworks.ran(self.dir), [])

    def test_a_deny_never_runs_and_the_model_gets_the_reason(self) -> None:
        out = lc_agent.start(self.dir, "sudo rm -rf /tmp/x")
        self.assertIn("toolgate denied this call: privilege escalation", out["tool_messages"][0])
        self.assertEqual(frameworks.ran(self.dir), [])

    def test_reject_respond_and_an_expiry_never_run_the_tool(self) -> None:
        self.process("start", "make deploy")
        out = self.answer({"type": "reject", "message": "not on Fridays"})
        self.assertIn("not on Fridays", out["tool_messages"][0])
        with tempfile.TemporaryDirectory() as other:
            self.process("start", "make deploy", directory=other)
            out = self.answer({"type": "respond", "message": "deployed by hand"}, directory=other)
            self.assertEqual(out["tool_messages"], ["deployed by hand"])
            self.assertEqual(frameworks.ran(other), [])
        with tempfile.TemporaryDirectory() as late:
            self.process("start", "make deploy", "1000", directory=late)
            time.sleep(1.2)
            out = self.answer({"type": "approve"}, directory=late)
            self.assertIn("nobody answered the permission request in time", out["tool_messages"][0])
            self.assertEqual(frameworks.ran(late), [])
        self.assertEqual(frameworks.ran(self.dir), [])

    def test_an_edit_is_classified_again(self) -> None:
        self.process("start", "make deploy")
        out = self.answer({"type": "edit", "edited_action": {"name": "run_shell", "args": {"command": "sudo make deploy"}}})
        self.assertIn("toolgate denied the reviewer's edit: privilege escalation", out["tool_messages"][0])
        self.assertEqual(frameworks.ran(self.dir), [])
        with tempfile.TemporaryDirectory() as other:
            self.process("start", "make deploy", directory=other)
            out = self.answer({"type": "edit", "edited_action": {"name": "run_shell", "args": {"command": "make deploy-staging"}}}, directory=other)
            self.assertEqual(out["tool_messages"], ["ran make deploy-staging"])
            self.assertEqual(frameworks.ran(other), ["make deploy-staging"])
            store = frameworks.store(other)
            edit = store.run("lc-t1-call-1-edit")
            assert edit is not None
            self.assertEqual(edit["status"], "completed")
        with tempfile.TemporaryDirectory() as third:
            self.process("start", "make deploy", directory=third)
            out = self.answer({"type": "edit", "edited_action": {"name": "other_tool", "args": {"command": "ls"}}}, directory=third)
            self.assertIn("names another tool", out["tool_messages"][0])
            self.assertEqual(frameworks.ran(third), [])

    def test_an_edited_state_does_not_run(self) -> None:
        run_id = self.process("start", "make deploy")["interrupted"]
        self.decide(run_id)
        agent, gate = lc_agent.build(self.dir, [AIMessage(content="done")])
        last = agent.get_state(lc_agent.CONFIG).values["messages"][-1]
        edited = AIMessage(content="", id=last.id, tool_calls=[{"name": "run_shell", "args": {"command": "make deploy --prod"}, "id": "call-1"}])
        agent.update_state(lc_agent.CONFIG, {"messages": [edited]}, as_node="model")
        # The edited call pauses again (same call id: the same parked run), and the
        # panel's approval, bound to the parked arguments, does not run it.
        paused = agent.invoke(None, lc_agent.CONFIG)
        self.assertEqual(paused["__interrupt__"][0].value["args"], {"command": "make deploy --prod"})
        out = lc_agent.report(agent.invoke(gate.resume(agent, lc_agent.CONFIG), lc_agent.CONFIG))
        self.assertIn("not the ones a person approved", out["tool_messages"][0])
        self.assertEqual(frameworks.ran(self.dir), [])


if __name__ == "__main__":
    unittest.main()
