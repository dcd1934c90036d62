"""A LangGraph agent whose tools node is toolgate's, for tests/test_langgraph.py: a
fake chat model (LangChain's GenericFakeChatModel) calls `run_shell` with the command
given, then answers; the tool appends the command to `ran.log` in the test directory;
the graph is checkpointed in SQLite (langgraph-checkpoint-sqlite) under thread `t1`.

    python lg_agent.py DIR start COMMAND [TTL_MS] → {"interrupted": RUN_ID} or {"tool_messages": […]}
    python lg_agent.py DIR resume                 → {"tool_messages": […], "output": …}
"""

from __future__ import annotations

import os
import sqlite3
from typing import Any, Dict, List, Optional

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, MessagesState, StateGraph

import toolgate
from frameworks import log_command, main, store
from toolgate.langgraph import ToolGate

WORKSPACE = "/home/dev/app"
HOME = "/home/dev"
CONFIG: RunnableConfig = {"configurable": {"thread_id": "t1"}}


def build(directory: str, replies: List[AIMessage], ttl_ms: Optional[int] = None) -> Any:

    @tool
    def run_shell(command: str) -> str:
        """Runs a shell command."""
        return log_command(directory, command)

    model = GenericFakeChatModel(messages=iter(replies))
    gate = ToolGate(
        [run_shell],
        toolgate.Policy.defaults(workspace=WORKSPACE, home=HOME),
        store(directory),
        as_tool={"run_shell": "bash"},
        ttl_ms=ttl_ms,
    )

    def agent(state: MessagesState) -> Dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    def route(state: MessagesState) -> str:
        last = state["messages"][-1]
        return "tools" if isinstance(last, AIMessage) and last.tool_calls else END

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", gate)
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", route, ["tools", END])
    graph.add_edge("tools", "agent")
    conn = sqlite3.connect(os.path.join(directory, "graph.db"), check_same_thread=False)
    return graph.compile(checkpointer=SqliteSaver(conn)), gate




def report(out: Any) -> Dict[str, Any]:
    if out.get("__interrupt__"):
        return {"interrupted": out["__interrupt__"][0].value["toolgate"]["runId"]}
    msgs = out["messages"]
    return {
        "tool_messages": [str(m.content) for m in msgs if isinstance(m, ToolMessage)],
        "output": str(msgs[-1].content),
    }


def start(directory: str, command: str, ttl_ms: Optional[int] = None) -> Dict[str, Any]:
    call = AIMessage(content="", tool_calls=[{"name": "run_shell", "args": {"command": command}, "id": "call-1"}])
    app, _ = build(directory, [call, AIMessage(content="done")], ttl_ms)
    return report(app.invoke({"messages": [HumanMessage(content="do it")]}, CONFIG))


def resume(directory: str) -> Dict[str, Any]:
    app, gate = build(directory, [AIMessage(content="done")])
    return report(app.invoke(gate.resume(CONFIG), CONFIG))


if __name__ == "__main__":
    main(start, lambda d: resume(d))
