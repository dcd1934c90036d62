"""toolgate for the OpenAI Agents SDK for Python: its ``needs_approval`` and
``RunState`` decided by toolgate's policy and parked durably.

Gate each function tool; each call is classified before it runs:

* ``auto`` runs without a pause;
* ``deny`` never runs: the model gets toolgate's reason as the tool's result;
* ``ask`` (and ``sandbox``, which this process cannot contain) is the SDK's own
  ``needs_approval``: the run ends with ``result.interruptions``, which
  :meth:`Gate.park` parks in a :class:`toolgate.RunStore` with the ``RunState``'s string;
* :meth:`Gate.resume` (in this process or another, after a restart) takes what a person
  decided, once, and gives back the ``RunState`` with each interruption approved or
  rejected (the person's message, or that nobody answered in time) to run on with
  ``Runner.run(agent, state)``. The gated tool runs an approved call only when the
  store's decision approved that call id for an anchor equal to its arguments', while
  the run is not completed, and when the policy does not now deny it: an edited state
  or an approval made outside toolgate does not run.

    gate = Gate(policy, store)
    agent = Agent(name="ops", model=model, tools=[gate.tool(run_shell, as_tool="bash")])
    result = await Runner.run(agent, "…")
    if result.interruptions:
        run_id = gate.park(result)
    # later, anywhere:
    state = await gate.resume(agent, run_id)
    result = await Runner.run(agent, state)
"""

from __future__ import annotations

import json
import uuid
from typing import Any, Dict, Optional, Tuple

from agents import Agent, FunctionTool, RunContextWrapper, RunResult, RunState
from agents.tool_context import ToolContext

from . import Policy, RunStore, _error
from ._approvals import Approvals

__all__ = ["Gate"]


class Gate:
    """toolgate's policy and run store for the OpenAI Agents SDK."""

    def __init__(self, policy: Policy, store: RunStore, *, session_id: Optional[str] = None) -> None:
        self.policy = policy
        self.store = store
        self.session_id = session_id
        # The SDK's tool name → the name toolgate judges it as.
        self._names: Dict[str, str] = {}
        self._approvals = Approvals(store)
        # The run each call id this process resumed belongs to.
        self._run_of: Dict[str, str] = {}

    def tool(self, tool: FunctionTool, *, as_tool: Optional[str] = None) -> FunctionTool:
        """``tool`` gated: judged as ``as_tool`` (default its own name; ``"bash"`` for a
        shell tool whose argument is ``command``, or a name the policy's ``[tools]`` maps)."""
        judged = as_tool or tool.name
        self._names[tool.name] = judged
        run_tool = tool.on_invoke_tool

        async def needs_approval(ctx: RunContextWrapper[Any], params: Dict[str, Any], call_id: str) -> bool:
            return self.policy.classify(judged, params).tier in ("ask", "sandbox")

        async def invoke(ctx: ToolContext[Any], input_json: str) -> Any:
            try:
                args = json.loads(input_json or "{}")
            except ValueError:
                return "toolgate refused this call: its arguments are not JSON. It did not run."
            if not isinstance(args, dict):
                return "toolgate refused this call: its arguments are not an object. It did not run."
            verdict = self.policy.classify(judged, args)
            if verdict.tier == "deny":
                return f"toolgate denied this call: {verdict.reason} ({verdict.rule}). It did not run."
            if verdict.tier == "auto":
                return await run_tool(ctx, input_json)
            why, run_id, approved = self._approved(judged, args, ctx.tool_call_id)
            if why is not None:
                return f"toolgate refused this call: {why}. It did not run."
            # A person's edit runs instead of the model's arguments, if the policy allows it.
            edited = self._approvals.edited(run_id, ctx.tool_call_id)
            if edited is not None:
                now = self.policy.classify(judged, edited)
                if now.tier == "deny":
                    return f"toolgate refused the person's edit: {now.reason} ({now.rule}). It did not run."
                input_json = json.dumps(edited)
            try:
                return await run_tool(ctx, input_json)
            finally:
                self._approvals.done(run_id, ctx.tool_call_id, approved)

        return FunctionTool(
            name=tool.name,
            description=tool.description,
            params_json_schema=tool.params_json_schema,
            on_invoke_tool=invoke,
            strict_json_schema=tool.strict_json_schema,
            needs_approval=needs_approval,
        )

    def park(self, result: RunResult, *, run_id: Optional[str] = None, ttl_ms: Optional[int] = None) -> str:
        """Parks the interruptions a run ended with, with its ``RunState`` as a string;
        the run's id."""
        if not result.interruptions:
            raise _error("bad_input", "the run has no interruptions: nothing to park")
        calls = []
        for item in result.interruptions:
            raw = item.raw_item
            name = getattr(raw, "name", None) or item.tool_name or ""
            arguments = getattr(raw, "arguments", None) or "{}"
            calls.append(
                {
                    "toolCallId": item.call_id,
                    "tool": self._names.get(name, name),
                    "args": json.loads(arguments),
                }
            )
        run_id = run_id or f"oai-{uuid.uuid4()}"
        history = result.to_state().to_string()
        self.store.park(self.policy, run_id, calls, history, session_id=self.session_id, ttl_ms=ttl_ms)
        return run_id

    async def resume(self, agent: Agent[Any], run_id: str) -> RunState[Any, Agent[Any]]:
        """What a person decided, taken once (a second resume is ``ToolgateError``): the
        parked ``RunState`` with each interruption approved or rejected."""
        taken = self.store.take(run_id)
        self._approvals.took(run_id, taken["results"])
        state: RunState[Any, Agent[Any]] = await RunState.from_string(agent, taken["history"])
        outcomes = {r["toolCallId"]: r for r in taken["results"]}
        for item in state.get_interruptions():
            self._run_of[item.call_id or ""] = run_id
            r = outcomes.get(item.call_id or "")
            if r is not None and r["outcome"] == "approved":
                state.approve(item)
            else:
                message = str((r or {}).get("toolResult") or "Not approved through toolgate.")
                state.reject(item, rejection_message=message)
        return state

    def _approved(self, name: str, args: Dict[str, Any], call_id: str) -> Tuple[Optional[str], str, int]:
        """``(None, run id, approved calls in the run)`` when this call may run now; else
        why not: the run this process resumed the call in (else the running run whose
        decision names it), checked against the store's record of the decision."""
        known = self._run_of.get(call_id)
        candidates = [self.store.run(known)] if known else self.store.runs()
        for run in candidates:
            if run is None or run.get("status") != "running":
                continue
            calls = (run.get("decision") or {}).get("calls") or []
            if any(c.get("toolCallId") == call_id for c in calls):
                why, approved = self._approvals.check(run, name, args, call_id)
                return why, str(run["runId"]), approved
        return "no person approved this call through toolgate", "", 0
