"""toolgate for LangGraph: a tools node whose calls toolgate's policy decides, with an
``ask`` parked durably beside the graph's checkpoint and resumed with
``Command(resume=…)``.

``ToolGate(tools, policy, store)`` takes the place of LangGraph's ``ToolNode``: for the
last AI message's tool calls,

* ``auto`` runs;
* ``deny`` never runs: the model gets toolgate's reason as the tool's message;
* ``ask`` (and ``sandbox``, which this process cannot contain): before anything runs,
  the calls that ask are parked as one run in a :class:`toolgate.RunStore` (so a panel
  on any device shows them) and the node calls LangGraph's ``interrupt()``: the graph
  stops, its state kept by the checkpointer under the thread;
* :meth:`ToolGate.resume` (in this process or another) gives the ``Command`` to invoke
  the graph with once a person decided; the node then takes the decision once, and runs
  an approved call only when its arguments' anchor is the one approved and the policy
  does not now deny it (an edited state does not run); a denial's message, or that
  nobody answered in time, is the call's message.

Nothing runs before the interrupt, so the node's re-execution on resume runs each call
once.

    gate = ToolGate([run_shell], policy, store, as_tool={"run_shell": "bash"})
    graph.add_node("tools", gate)
    app = graph.compile(checkpointer=SqliteSaver(conn))
    out = app.invoke({"messages": […]}, config)          # may stop at the interrupt
    # later, anywhere, once a person decided:
    out = app.invoke(gate.resume(config), config)
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional, Sequence

from langchain_core.messages import AIMessage, AnyMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.types import Command, interrupt

from . import Policy, RunStore, ToolgateError, _error, anchor

__all__ = ["ToolGate"]

_KEY = "toolgate"


class ToolGate:
    """A LangGraph node that runs the last AI message's tool calls as toolgate decides."""

    def __init__(
        self,
        tools: Sequence[BaseTool],
        policy: Policy,
        store: RunStore,
        *,
        as_tool: Optional[Mapping[str, str]] = None,
        ttl_ms: Optional[int] = None,
    ) -> None:
        self.tools: Dict[str, BaseTool] = {t.name: t for t in tools}
        self.policy = policy
        self.store = store
        self.as_tool = dict(as_tool or {})
        self.ttl_ms = ttl_ms

    def _judged(self, name: str) -> str:
        return self.as_tool.get(name, name)

    @staticmethod
    def run_id(config: RunnableConfig, message: AIMessage) -> str:
        """The run a message's asks are parked as: the thread and the message."""
        thread = str((config.get("configurable") or {}).get("thread_id") or "")
        if not thread:
            raise _error("bad_input", "ToolGate needs a checkpointer and a thread_id in the config")
        ids = "-".join(str(c.get("id") or "") for c in message.tool_calls)
        return f"lg-{thread}-{message.id or ids}"

    def resume(self, config: RunnableConfig) -> Command[Any]:
        """The ``Command`` that resumes the thread once a person decided its waiting run.
        Nobody decided yet is ``ToolgateError`` ``awaiting_permission``; a run decided and
        resumed already, ``not_awaiting_permission``."""
        thread = str((config.get("configurable") or {}).get("thread_id") or "")
        runs = [r for r in self.store.runs() if str(r.get("runId", "")).startswith(f"lg-{thread}-")]
        if not runs:
            raise _error("not_awaiting_permission", "no run of toolgate's waits on this thread")
        latest = max(runs, key=lambda r: int(r.get("updatedAt") or 0))
        status = latest.get("status")
        if status == "awaiting_permission":
            raise _error("awaiting_permission", "nobody has decided yet: the run still awaits permission")
        # Decided (running until its approved calls ran), or expired (nobody answered).
        if status == "running" or (status == "cancelled" and latest.get("expiredAt")):
            return Command(resume={_KEY: {"runId": latest["runId"]}})
        raise _error("not_awaiting_permission", f"the thread's last run is {status}")

    def __call__(self, state: Mapping[str, Any], config: RunnableConfig) -> Dict[str, List[AnyMessage]]:
        messages: List[AnyMessage] = list(state.get("messages") or [])
        last = messages[-1] if messages else None
        if not isinstance(last, AIMessage) or not last.tool_calls:
            return {"messages": []}
        calls = last.tool_calls
        verdicts = [self.policy.classify(self._judged(c["name"]), c["args"]) for c in calls]
        asks = [(c, v) for c, v in zip(calls, verdicts) if v.tier in ("ask", "sandbox")]
        outcomes: Dict[str, Dict[str, Any]] = {}
        if asks:
            run_id = self.run_id(config, last)
            if self.store.run(run_id) is None:
                self.store.park(
                    self.policy,
                    run_id,
                    [{"toolCallId": c["id"], "tool": self._judged(c["name"]), "args": c["args"]} for c, _ in asks],
                    json.dumps({"thread": str((config.get("configurable") or {}).get("thread_id"))}),
                    ttl_ms=self.ttl_ms,
                )
            interrupt({_KEY: {"runId": run_id, "calls": [{"id": c["id"], "tool": c["name"], "args": c["args"], "reason": v.reason} for c, v in asks]}})
            # Resumed: what a person decided, taken once (the resume value is not trusted).
            try:
                taken = self.store.take(run_id)
                outcomes = {r["toolCallId"]: r for r in taken["results"]}
            except ToolgateError as e:
                outcomes = {str(c["id"] or ""): {"outcome": "refused", "toolResult": f"toolgate: {e}"} for c, _ in asks}
        out: List[AnyMessage] = []
        for call, verdict in zip(calls, verdicts):
            name, args, call_id = call["name"], call["args"], call["id"] or ""
            judged = self._judged(name)
            if verdict.tier == "deny":
                content = f"toolgate denied this call: {verdict.reason} ({verdict.rule}). It did not run."
            elif verdict.tier == "auto":
                content = self._run(name, args)
            else:
                r = outcomes.get(call_id, {})
                # A person's edit: the parked call is `editedFrom`, the edit runs instead.
                edited = r.get("editedFrom") is not None
                parked = (r.get("editedFrom") if edited else r.get("args")) or {}
                run_args = r.get("args") if edited else args
                if r.get("outcome") != "approved":
                    content = str(r.get("toolResult") or "Not approved through toolgate. It did not run.")
                elif anchor(judged, parked) != anchor(judged, args) or not isinstance(run_args, dict):
                    content = "toolgate refused this call: its arguments are not the ones a person approved. It did not run."
                elif self.policy.classify(judged, run_args).tier == "deny":
                    content = "toolgate refused this call: the policy denies it now. It did not run."
                elif edited:
                    content = f"A person edited this call before approving it; it ran with {json.dumps(run_args)}.\n{self._run(name, run_args)}"
                else:
                    content = self._run(name, args)
            out.append(ToolMessage(content=content, tool_call_id=call_id, name=name))
        if asks:
            try:
                self.store.complete(self.run_id(config, last))
            except ToolgateError:
                pass
        return {"messages": out}

    def _run(self, name: str, args: Dict[str, Any]) -> str:
        tool = self.tools.get(name)
        if tool is None:
            return f"toolgate: no tool named {name!r}"
        return str(tool.invoke(args))
