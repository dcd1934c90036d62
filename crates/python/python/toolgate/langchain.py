"""toolgate for LangChain 1.x agents (``create_agent``): a middleware in the place of
``HumanInTheLoopMiddleware`` whose policy is toolgate's, with the same decisions
(approve, edit, reject, respond) and each ``ask`` parked durably.

``Gate(policy, store)`` in ``create_agent(..., middleware=[gate], checkpointer=…)``: for
each tool call, as it starts,

* ``auto`` runs;
* ``deny`` never runs: the model gets toolgate's reason as the tool's message;
* ``ask`` (and ``sandbox``, which this process cannot contain) is parked as a run in a
  :class:`toolgate.RunStore` (a panel on any device shows it) and the call pauses with
  LangGraph's ``interrupt()``, one per call, its value LangChain's own
  ``ToolApprovalRequest`` (``type: "tool_approval"``, ``tool_call_id``, ``name``,
  ``args``, ``description``) with ``toolgate`` (the run id, the anchor, the rule and the
  reason). The thread waits in the checkpointer.

Resumed with ``Command(resume=…)`` (in any process), the answer is one of LangChain's
decisions, or ``{"type": "toolgate"}`` when a person decided in toolgate's panel
(:meth:`Gate.resume` builds that ``Command``). The answer is recorded in the store
against the parked call's anchor, once; then the decision is taken from the store, once,
and an approved call runs only when its arguments' anchor is the approved one and the
policy does not now deny it (an edited state does not run). An ``edit`` is a new call:
it is classified again, and one the policy denies does not run (the model is told why);
one that asks is parked as its own run and approved for exactly the edited arguments;
``reject`` and ``respond`` never run the tool; an expiry is told as nobody answering.

    gate = Gate(policy, toolgate.RunStore("sqlite:runs.db"), as_tool={"run_shell": "bash"})
    agent = create_agent(model, tools=[run_shell], middleware=[gate], checkpointer=saver)
    out = agent.invoke({"messages": [("user", "deploy it")]}, config)   # may pause
    # later, in any process:
    agent.invoke(Command(resume={"type": "approve"}), config)        # the app's reviewer
    agent.invoke(gate.resume(agent, config), config)                 # or toolgate's panel
"""

from __future__ import annotations

import json
from typing import Any, Awaitable, Callable, Dict, List, Mapping, Optional, Union

from langchain.agents.middleware import AgentMiddleware, ToolCallRequest
from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.types import Command, interrupt

from . import Policy, RunStore, ToolgateError, Verdict, Wire, _error, anchor

__all__ = ["Gate"]

Result = Union[ToolMessage, Command[Any]]
DECISIONS = ("approve", "edit", "reject", "respond")


class Gate(AgentMiddleware):
    """A LangChain agent middleware: each tool call as toolgate's policy decides, an
    ``ask`` paused with ``interrupt()`` and parked in ``store``."""

    def __init__(
        self,
        policy: Policy,
        store: RunStore,
        *,
        as_tool: Optional[Mapping[str, str]] = None,
        ttl_ms: Optional[int] = None,
        decided_by: str = "langchain",
    ) -> None:
        super().__init__()
        self.policy = policy
        self.store = store
        self.as_tool = dict(as_tool or {})
        self.ttl_ms = ttl_ms
        self.decided_by = decided_by

    def _judged(self, name: str) -> str:
        return self.as_tool.get(name, name)

    @staticmethod
    def _thread(config: Optional[Mapping[str, Any]]) -> str:
        thread = str(((config or {}).get("configurable") or {}).get("thread_id") or "")
        if not thread:
            raise _error("bad_input", "toolgate's Gate needs a checkpointer and a thread_id in the config")
        return thread

    def run_id(self, config: Optional[Mapping[str, Any]], call_id: str) -> str:
        """The run a call's ask is parked as: the thread and the call."""
        return f"lc-{self._thread(config)}-{call_id}"

    def resume(self, agent: Any, config: RunnableConfig) -> Command[Any]:
        """The ``Command`` that resumes the thread's paused calls with what a person
        decided in toolgate's panel: ``{"type": "toolgate"}`` for each of them. Nobody
        decided yet is ``ToolgateError`` ``awaiting_permission``; no call paused,
        ``not_awaiting_permission``."""
        paused = [
            i for i in agent.get_state(config).interrupts if isinstance(i.value, dict) and "toolgate" in i.value
        ]
        if not paused:
            raise _error("not_awaiting_permission", "no call of this thread waits on toolgate")
        for i in paused:
            run = self.store.run(str(i.value["toolgate"]["runId"]))
            if run is not None and run.get("status") == "awaiting_permission":
                raise _error("awaiting_permission", "nobody has decided yet: the run still awaits permission")
        return Command(resume={i.id: {"type": "toolgate"} for i in paused})

    # The middleware hooks.

    def wrap_tool_call(self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Result]) -> Result:
        plan = self._plan(request)
        return plan if isinstance(plan, ToolMessage) else handler(plan)

    async def awrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Awaitable[Result]]
    ) -> Result:
        plan = self._plan(request)
        return plan if isinstance(plan, ToolMessage) else await handler(plan)

    # What a call becomes: the request to run (maybe the reviewer's edit), or a message.

    def _plan(self, request: ToolCallRequest) -> Union[ToolCallRequest, ToolMessage]:
        call = request.tool_call
        name, args, call_id = call["name"], dict(call["args"]), str(call.get("id") or "")
        judged = self._judged(name)
        verdict = self.policy.classify(judged, args)
        if verdict.tier == "auto":
            return request
        if verdict.tier == "deny":
            return self._message(call, f"toolgate denied this call: {verdict.reason} ({verdict.rule}). It did not run.")
        if not call_id:
            return self._message(call, "toolgate: a call without an id cannot wait for a person. It did not run.")
        run_id = self.run_id(request.runtime.config, call_id)
        parked = self.store.run(run_id)
        if parked is None:
            parked = self.store.park(
                self.policy,
                run_id,
                [{"toolCallId": call_id, "tool": judged, "args": args}],
                json.dumps({"thread": self._thread(request.runtime.config), "toolCallId": call_id}),
                session_id=self._thread(request.runtime.config),
                ttl_ms=self.ttl_ms,
            )["run"]
        answer = interrupt(self._request(call, verdict, run_id, anchor(judged, args)))
        # Resumed: the answer is recorded against the parked call (once), then the
        # decision is taken from the store (once): neither is trusted alone.
        edited: Optional[Dict[str, Any]] = None
        respond: Optional[str] = None
        try:
            kind = answer.get("type") if isinstance(answer, dict) else None
            # A decision made first elsewhere (the panel) stands: the reviewer's edit or
            # response then does not apply, and the store's decision is the one taken.
            if kind == "edit":
                edits, refusal = self._edit(answer, name)
                if refusal is not None:
                    if self._record(run_id, "deny", refusal):
                        self._taken(run_id, call_id)
                        return self._message(call, refusal)
                elif self._record(run_id, "deny", "replaced by the reviewer's edit"):
                    edited = edits
            elif kind in ("approve", "reject", "respond"):
                message = str(answer.get("message") or "")
                if self._record(run_id, "allow" if kind == "approve" else "deny", message) and kind == "respond":
                    respond = message
            elif kind != "toolgate":
                return self._message(call, f"toolgate: the answer {answer!r} is not a decision. It did not run.")
            result = self._taken(run_id, call_id)
        except ToolgateError as e:
            return self._message(call, f"toolgate refused this call: {e} ({e.code}). It did not run.")
        if edited is not None:
            return self._edited(request, edited)
        if respond is not None and result.get("outcome") == "denied":
            return self._message(call, respond, status="success")
        if result.get("outcome") != "approved":
            return self._message(call, str(result.get("toolResult") or "Not approved through toolgate. It did not run."))
        # A person's edit in the panel: the parked call is `editedFrom`, the edit runs.
        panel_edit = result.get("editedFrom") is not None
        parked = (result.get("editedFrom") if panel_edit else result.get("args")) or {}
        run_args = result.get("args") if panel_edit else args
        if anchor(judged, parked) != anchor(judged, args) or not isinstance(run_args, dict):
            return self._message(call, "toolgate refused this call: its arguments are not the ones a person approved. It did not run.")
        if self.policy.classify(judged, run_args).tier == "deny":
            return self._message(call, "toolgate refused this call: the policy denies it now. It did not run.")
        self._complete(run_id)
        return request.override(tool_call={**call, "args": run_args}) if panel_edit else request

    def _edited(self, request: ToolCallRequest, edited: Dict[str, Any]) -> Union[ToolCallRequest, ToolMessage]:
        """The reviewer's edit, a new call: auto runs; an ask is parked as its own run
        and approved by the reviewer for exactly these arguments, then taken once."""
        call = request.tool_call
        judged = self._judged(call["name"])
        verdict = self.policy.classify(judged, edited)
        run_request = request.override(tool_call={**call, "args": edited})
        if verdict.tier == "auto":
            return run_request
        run_id = self.run_id(request.runtime.config, str(call.get("id") or "")) + "-edit"
        call_id = str(call.get("id") or "")
        try:
            if self.store.run(run_id) is None:
                self.store.park(
                    self.policy,
                    run_id,
                    [{"toolCallId": call_id, "tool": judged, "args": edited}],
                    json.dumps({"editOf": self.run_id(request.runtime.config, call_id)}),
                    session_id=self._thread(request.runtime.config),
                    ttl_ms=self.ttl_ms,
                )
            self._record(run_id, "allow", "")
            result = self._taken(run_id, call_id)
        except ToolgateError as e:
            return self._message(call, f"toolgate refused the reviewer's edit: {e} ({e.code}). It did not run.")
        if result.get("outcome") != "approved" or anchor(judged, result.get("args") or {}) != anchor(judged, edited):
            return self._message(call, "toolgate refused the reviewer's edit: it is not the call approved. It did not run.")
        self._complete(run_id)
        return run_request

    def _edit(self, answer: Mapping[str, Any], name: str) -> "tuple[Dict[str, Any], Optional[str]]":
        """The edited arguments, or why the edit does not run: it names another tool,
        has no arguments object, or the policy denies it."""
        action = answer.get("edited_action")
        if not isinstance(action, dict) or not isinstance(action.get("args"), dict):
            return {}, "toolgate refused the reviewer's edit: it has no arguments object. It did not run."
        if action.get("name", name) != name:
            return {}, f"toolgate refused the reviewer's edit: it names another tool ({action.get('name')!r}). It did not run."
        args: Dict[str, Any] = dict(action["args"])
        verdict = self.policy.classify(self._judged(name), args)
        if verdict.tier == "deny":
            return args, f"toolgate denied the reviewer's edit: {verdict.reason} ({verdict.rule}). It did not run."
        return args, None

    def _record(self, run_id: str, decision: str, message: str) -> bool:
        """A reviewer's answer as the run's decision, bound to the parked call's anchor;
        whether it was recorded. Decided already (in the panel, or by an earlier
        resume) stands: the store's decision is the one taken."""
        run = self.store.run(run_id)
        if run is None or run.get("status") != "awaiting_permission":
            return False
        calls = (run.get("marker") or {}).get("calls") or []
        decisions: List[Dict[str, Any]] = [
            {"toolCallId": c["toolCallId"], "anchor": c["anchor"], "decision": decision, **({"message": message} if message else {})}
            for c in calls
        ]
        try:
            self.store.decide(run_id, decisions, by=self.decided_by)
        except ToolgateError as e:
            if e.code != "already_resumed":
                raise
            return False
        return True

    def _taken(self, run_id: str, call_id: str) -> Wire:
        taken = self.store.take(run_id)
        for r in taken.get("results") or []:
            if r.get("toolCallId") == call_id:
                return dict(r)
        raise _error("not_found", f"run {run_id} holds no call {call_id}")

    def _complete(self, run_id: str) -> None:
        try:
            self.store.complete(run_id)
        except ToolgateError:
            pass

    @staticmethod
    def _message(call: Mapping[str, Any], content: str, status: str = "error") -> ToolMessage:
        return ToolMessage(content=content, name=call["name"], tool_call_id=str(call.get("id") or ""), status=status)

    def _request(self, call: Mapping[str, Any], verdict: Verdict, run_id: str, call_anchor: str) -> Dict[str, Any]:
        """The interrupt's value: LangChain's ``ToolApprovalRequest`` with toolgate's
        run, anchor and reason."""
        return {
            "type": "tool_approval",
            "tool_call_id": str(call.get("id") or ""),
            "name": call["name"],
            "args": dict(call["args"]),
            "description": f"toolgate: {verdict.reason} ({verdict.rule})",
            "allowed_decisions": list(DECISIONS),
            "toolgate": {"runId": run_id, "anchor": call_anchor, "tier": verdict.tier, "rule": verdict.rule, "reason": verdict.reason},
        }
