"""toolgate for Pydantic AI: its deferred tools, decided by toolgate's policy and
parked durably.

Wrap the agent's toolset; each call is classified before it runs:

* ``auto`` runs at once;
* ``deny`` never runs: the model gets toolgate's reason as the tool's result;
* ``ask`` (and ``sandbox``, which this process cannot contain) raises Pydantic AI's own
  ``ApprovalRequired``: the run ends with ``DeferredToolRequests``, which
  :meth:`Gate.park` parks in a :class:`toolgate.RunStore` with the run's messages;
* :meth:`Gate.resume` (in this process or another, after a restart) takes what a person
  decided, once, and gives the parked messages and the ``DeferredToolResults`` to run
  on with. An approval carries the anchor of the call a person saw: the wrapped toolset
  runs an approved call only when its arguments are exactly those (an edited history or
  Pydantic AI's ``override_args`` cannot widen it), only while the run has not been
  completed, and only when the policy does not now deny it. An expired request is told
  to the model as nobody having answered, not as a denial.

    gate = Gate(policy, store)
    agent = Agent(model, toolsets=[gate.wrap(toolset)], output_type=[str, DeferredToolRequests])
    result = await agent.run("…")
    if isinstance(result.output, DeferredToolRequests):
        run_id = gate.park(result)
    # later, anywhere:
    messages, results = gate.resume(run_id)
    result = await agent.run(message_history=messages, deferred_tool_results=results)
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from pydantic_ai import ApprovalRequired, DeferredToolRequests, DeferredToolResults, RunContext, ToolDenied
from pydantic_ai.agent import AgentRunResult
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter
from pydantic_ai.tools import ToolApproved
from pydantic_ai.toolsets import AbstractToolset, WrapperToolset
from pydantic_ai.toolsets.abstract import ToolsetTool

from . import Policy, RunStore, _error
from ._approvals import Approvals

__all__ = ["Gate", "GatedToolset"]

_KEY = "toolgate"


class Gate:
    """toolgate's policy and run store for one Pydantic AI agent."""

    def __init__(self, policy: Policy, store: RunStore, *, session_id: Optional[str] = None) -> None:
        self.policy = policy
        self.store = store
        self.session_id = session_id
        self._approvals = Approvals(store)

    def wrap(self, toolset: AbstractToolset[Any]) -> "GatedToolset":
        """``toolset`` with every call judged by this gate."""
        return GatedToolset(wrapped=toolset, gate=self)

    def park(self, result: AgentRunResult[Any], *, run_id: Optional[str] = None, ttl_ms: Optional[int] = None) -> str:
        """Parks the approvals a run ended with (``result.output`` a
        ``DeferredToolRequests``) with the run's messages; the run's id."""
        output = result.output
        if not isinstance(output, DeferredToolRequests):
            raise _error("bad_input", "the run did not end with DeferredToolRequests: nothing to park")
        if output.calls:
            raise _error("bad_input", "the run also waits for external calls, which toolgate does not park")
        run_id = run_id or f"pai-{uuid.uuid4()}"
        calls = [
            {"toolCallId": part.tool_call_id, "tool": part.tool_name, "args": part.args_as_dict()}
            for part in output.approvals
        ]
        history = result.all_messages_json().decode("utf-8")
        self.store.park(self.policy, run_id, calls, history, session_id=self.session_id, ttl_ms=ttl_ms)
        return run_id

    def resume(self, run_id: str) -> Tuple[List[ModelMessage], DeferredToolResults]:
        """What a person decided for the parked run, taken once (a second resume is
        ``ToolgateError`` ``already_resumed``; nobody decided yet, ``awaiting_permission``):
        the parked messages and the results to run on with."""
        taken = self.store.take(run_id)
        self._approvals.took(run_id, taken["results"])
        messages = ModelMessagesTypeAdapter.validate_json(taken["history"])
        results = DeferredToolResults()
        for r in taken["results"]:
            call_id = r["toolCallId"]
            if r["outcome"] == "approved":
                results.approvals[call_id] = ToolApproved()
                results.metadata[call_id] = {_KEY: {"run": run_id}}
            else:
                # Denied (the person's message) or expired (nobody answered): not run.
                results.approvals[call_id] = ToolDenied(str(r.get("toolResult") or "The tool call was not approved."))
        return messages, results

    def _approved(self, name: str, args: Dict[str, Any], ctx: RunContext[Any]) -> Tuple[Optional[str], str, int]:
        """``(None, run id, approved calls in the run)`` when this approved call may run
        now; else why not (the run named by the approval's metadata, checked against the
        store's record of the decision)."""
        meta = ctx.tool_call_metadata
        ticket = meta.get(_KEY) if isinstance(meta, dict) else None
        run_id = ticket.get("run") if isinstance(ticket, dict) else None
        if not isinstance(run_id, str):
            return "it was approved outside toolgate", "", 0
        why, approved = self._approvals.check(self.store.run(run_id), name, args, ctx.tool_call_id or "")
        return why, run_id, approved


@dataclass
class GatedToolset(WrapperToolset[Any]):
    """A toolset whose every call toolgate's :class:`Gate` judges first."""

    gate: Optional[Gate] = None

    async def call_tool(self, name: str, tool_args: Dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]) -> Any:
        gate = self.gate
        if gate is None:
            raise _error("bad_input", "GatedToolset needs its gate (Gate.wrap)")
        verdict = gate.policy.classify(name, tool_args)
        if verdict.tier == "deny":
            return f"toolgate denied this call: {verdict.reason} ({verdict.rule}). It did not run."
        if verdict.tier == "auto":
            return await super().call_tool(name, tool_args, ctx, tool)
        if not ctx.tool_call_approved:
            raise ApprovalRequired(metadata={_KEY: {"tier": verdict.tier, "rule": verdict.rule, "reason": verdict.reason}})
        why, run_id, approved = gate._approved(name, tool_args, ctx)
        if why is not None:
            return f"toolgate refused this call: {why}. It did not run."
        # A person's edit runs instead of the model's arguments, if the policy allows it.
        edited = gate._approvals.edited(run_id, ctx.tool_call_id or "")
        if edited is not None:
            now = gate.policy.classify(name, edited)
            if now.tier == "deny":
                return f"toolgate refused the person's edit: {now.reason} ({now.rule}). It did not run."
            tool_args = edited
        try:
            return await super().call_tool(name, tool_args, ctx, tool)
        finally:
            gate._approvals.done(run_id, ctx.tool_call_id or "", approved)
