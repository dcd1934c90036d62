"""toolgate.openai_agents with the real OpenAI Agents SDK (pinned in
requirements-dev.txt) and its ScriptedModel: a read-only call runs at once; an ask parks;
a new process resumes after a person's approval and the tool runs exactly once; a second
resume is refused; a deny never runs and its reason reaches the model; a denial's message
and an expiry reach the model; an approval made outside toolgate does not run.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
import unittest
from typing import Any, Dict

from agents import RunState, Runner
from agents.testing.model import assistant_message

import toolgate

sys.path.insert(0, os.path.dirname(__file__))
import frameworks  # noqa: E402
import oai_agent  # noqa: E402



class OpenAIAgents(frameworks.AgentCase):
    SCRIPT = "oai_agent.py"

    def test_a_read_only_call_runs_at_once(self) -> None:
        out = asyncio.run(oai_agent.start(self.dir, "ls -la"))
        self.assertEqual(out["output"], "done")
        self.assertEqual(out["tool_output"], "ran ls -la")
        self.assertEqual(frameworks.ran(self.dir), ["ls -la"])

    def test_an_ask_parks_and_a_new_process_runs_it_once_after_approval(self) -> None:
        run_id = self.process("start", "make deploy")["parked"]
        self.assertEqual(frameworks.ran(self.dir), [])
        run = self.store.run(run_id)
        assert run is not None
        self.assertEqual((run["status"], run["marker"]["calls"][0]["tool"]), ("awaiting_permission", "bash"))
        self.assertEqual(self.process("resume", run_id)["error"], "awaiting_permission")
        self.decide(run_id)
        out = self.process("resume", run_id)
        self.assertEqual((out["output"], out["tool_output"]), ("done", "ran make deploy"))
        self.assertEqual(frameworks.ran(self.dir), ["make deploy"])
        self.assertEqual(self.process("resume", run_id)["error"], "not_awaiting_permission")
        self.assertEqual(frameworks.ran(self.dir), ["make deploy"])

    def test_a_persons_edit_runs_instead_once(self) -> None:
        run_id = self.process("start", "make deploy")["parked"]
        self.edit_then_approve(run_id)
        out = self.process("resume", run_id)
        self.assertEqual((out["output"], out["tool_output"]), ("done", "ran make deploy --dry-run"))
        self.assertEqual(frameworks.ran(self.dir), ["make deploy --dry-run"])
        self.assertEqual(self.process("resume", run_id)["error"], "not_awaiting_permission")
        self.assertEqual(frameworks.ran(self.dir), ["make deploy --dry-run"])

    def test_a_deny_never_runs_and_the_model_gets_the_reason(self) -> None:
        out = asyncio.run(oai_agent.start(self.dir, "sudo rm -rf /tmp/x"))
        self.assertIn("toolgate denied this call: privilege escalation", out["tool_output"])
        self.assertEqual(frameworks.ran(self.dir), [])

    def test_a_denial_and_an_expiry_reach_the_model(self) -> None:
        run_id = self.process("start", "make deploy")["parked"]
        self.decide(run_id, "deny", "not on Fridays")
        self.assertIn("not on Fridays", self.process("resume", run_id)["tool_output"])
        run_id = self.process("start", "make deploy", "1000")["parked"]
        time.sleep(1.2)
        out = self.process("resume", run_id)
        self.assertIn("nobody answered the permission request in time", out["tool_output"])
        self.assertEqual(frameworks.ran(self.dir), [])

    def test_an_approval_made_outside_toolgate_does_not_run(self) -> None:
        run_id = self.process("start", "make deploy")["parked"]
        a, gate, model = oai_agent.agent(self.dir, [[assistant_message("done")]])
        run = self.store.run(run_id)
        assert run is not None

        async def own() -> Any:
            state = await RunState.from_string(a, run["marker"]["history"])
            for item in state.get_interruptions():
                state.approve(item)
            return await Runner.run(a, state)

        asyncio.run(own())
        self.assertIn("toolgate refused this call", str(oai_agent.tool_output(model)))
        self.assertEqual(frameworks.ran(self.dir), [])


if __name__ == "__main__":
    unittest.main()
