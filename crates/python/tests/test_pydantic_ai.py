"""toolgate.pydantic_ai with the real Pydantic AI (pinned in requirements-dev.txt) and a
scripted FunctionModel: a read-only call runs at once; an ask parks (the tool does not
run); a new process resumes after a person's approval and the tool runs exactly once; a
second resume is refused; an edited history is refused; a deny never runs and its reason
reaches the model; an expired request is told as nobody answering; an approval whose
arguments are overridden into a denied command does not run.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
import unittest
from typing import Any, Dict

from pydantic_ai import DeferredToolResults
from pydantic_ai.messages import ModelMessagesTypeAdapter, ModelResponse, ToolCallPart
from pydantic_ai.tools import ToolApproved

import toolgate

sys.path.insert(0, os.path.dirname(__file__))
import frameworks  # noqa: E402
import pai_agent  # noqa: E402



class PydanticAI(frameworks.AgentCase):
    SCRIPT = "pai_agent.py"

    def test_a_read_only_call_runs_at_once(self) -> None:
        out = asyncio.run(pai_agent.start(self.dir, "ls -la"))
        self.assertEqual(out, {"output": "done: ran ls -la"})
        self.assertEqual(frameworks.ran(self.dir), ["ls -la"])

    def test_an_ask_parks_and_a_new_process_runs_it_once_after_approval(self) -> None:
        parked = self.process("start", "make deploy")
        run_id = parked["parked"]
        self.assertEqual(frameworks.ran(self.dir), [])
        run = self.store.run(run_id)
        assert run is not None
        self.assertEqual(run["status"], "awaiting_permission")
        self.assertEqual(run["marker"]["calls"][0]["args"], {"command": "make deploy"})
        # Not yet decided: nothing to resume.
        self.assertEqual(self.process("resume", run_id)["error"], "awaiting_permission")
        self.decide(run_id)
        self.assertEqual(self.process("resume", run_id), {"output": "done: ran make deploy"})
        self.assertEqual(frameworks.ran(self.dir), ["make deploy"])
        # A second resume is refused (the run is completed now); the tool ran once.
        self.assertEqual(self.process("resume", run_id)["error"], "not_awaiting_permission")
        self.assertEqual(frameworks.ran(self.dir), ["make deploy"])
        run = self.store.run(run_id)
        assert run is not None
        self.assertEqual(run["status"], "completed")

    def test_a_persons_edit_runs_instead_once(self) -> None:
        run_id = self.process("start", "make deploy")["parked"]
        self.edit_then_approve(run_id)
        self.assertEqual(self.process("resume", run_id), {"output": "done: ran make deploy --dry-run"})
        self.assertEqual(frameworks.ran(self.dir), ["make deploy --dry-run"])
        self.assertEqual(self.process("resume", run_id)["error"], "not_awaiting_permission")
        self.assertEqual(frameworks.ran(self.dir), ["make deploy --dry-run"])

    def test_an_edited_history_or_overridden_arguments_do_not_run(self) -> None:
        run_id = self.process("start", "make deploy")["parked"]
        self.decide(run_id)
        a, gate = pai_agent.agent(self.dir)
        messages, results = gate.resume(run_id)
        # The history edited: the approved call now says something else.
        for m in messages:
            if isinstance(m, ModelResponse):
                for p in m.parts:
                    if isinstance(p, ToolCallPart):
                        p.args = {"command": "make deploy --prod"}
        out = asyncio.run(a.run(message_history=messages, deferred_tool_results=results)).output
        self.assertIn("toolgate refused this call: its arguments are not the ones a person approved", out)
        self.assertEqual(frameworks.ran(self.dir), [])
        # Pydantic AI's override_args into a command the policy denies: never runs.
        run_id = self.process("start", "make deploy")["parked"]
        self.decide(run_id)
        a, gate = pai_agent.agent(self.dir)
        messages, results = gate.resume(run_id)
        results.approvals["call-1"] = ToolApproved(override_args={"command": "sudo make deploy"})
        out = asyncio.run(a.run(message_history=messages, deferred_tool_results=results)).output
        self.assertIn("toolgate denied this call", out)
        self.assertEqual(frameworks.ran(self.dir), [])
        # An approval made outside toolgate (Pydantic AI's own `True`): not run.
        run_id = self.process("start", "make deploy")["parked"]
        a, gate = pai_agent.agent(self.dir)
        run = self.store.run(run_id)
        assert run is not None
        history = ModelMessagesTypeAdapter.validate_json(run["marker"]["history"])
        own = DeferredToolResults(approvals={"call-1": True})
        out = asyncio.run(a.run(message_history=history, deferred_tool_results=own)).output
        self.assertIn("toolgate refused this call: it was approved outside toolgate", out)
        self.assertEqual(frameworks.ran(self.dir), [])

    def test_a_deny_never_runs_and_the_model_gets_the_reason(self) -> None:
        out = asyncio.run(pai_agent.start(self.dir, "sudo rm -rf /tmp/x"))
        self.assertIn("toolgate denied this call: privilege escalation", out["output"])
        self.assertEqual(frameworks.ran(self.dir), [])
        self.assertEqual(self.store.runs(), [])

    def test_a_denial_and_an_expiry_reach_the_model(self) -> None:
        run_id = self.process("start", "make deploy")["parked"]
        self.decide(run_id, "deny", "not on Fridays")
        out = self.process("resume", run_id)["output"]
        self.assertIn("not on Fridays", out)
        run_id = self.process("start", "make deploy", "1000")["parked"]
        time.sleep(1.2)
        out = self.process("resume", run_id)["output"]
        self.assertIn("nobody answered the permission request in time", out)
        self.assertEqual(frameworks.ran(self.dir), [])


if __name__ == "__main__":
    unittest.main()
