"""A LangChain 1.x agent (`create_agent`) gated by toolgate's middleware, for
tests/test_langchain.py: a fake chat model (LangChain's GenericFakeChatModel) calls
`run_shell` with the command given, then answers; the tool appends the command to
`ran.log` in the test directory; the agent is checkpointed in SQLite
(langgraph-checkpoint-sqlite) under thread `t1`.

    python lc_agent.py DIR start COMMAND [TTL_MS] → {"interrupted": RUN_ID} or {"tool_messages": […], "output": …}
    python lc_agent.py DIR resume ANSWER          → the same; ANSWER is a LangChain decision
                                                    as JSON, or `toolgate` (the panel's)
"""

from __future__ import annotations

import json
import os
import sqlite3
from typing import Any, Dict, List, Optional, Sequence

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import Command

import toolgate
from frameworks import log_command, main, store
from lg_agent import report  # the same report: both interrupt with `toolgate` in the value
from toolgate.langchain import Gate

WORKSPACE = "/home/dev/app"
HOME = "/home/dev"
CONFIG: RunnableConfig = {"configurable": {"thread_id": "t1"}}


class Model(GenericFakeChatModel):
    """The scripted replies, whatever tools are bound."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> "Model":
        return self


def build(directory: str, replies: List[AIMessage], ttl_ms: Optional[int] = None) -> Any:

    @tool
    def run_shell(command: str) -> str:
        """Runs a shell command."""
        return log_command(directory, command)

    gate = Gate(
        toolgate.Policy.defaults(workspace=WORKSPACE, home=HOME),
        store(directory),
        as_tool={"run_shell": "bash"},
        ttl_ms=ttl_ms,
    )
    conn = sqlite3.connect(os.path.join(directory, "graph.db"), check_same_thread=False)
    agent = create_agent(Model(messages=iter(replies)), tools=[run_shell], middleware=[gate], checkpointer=SqliteSaver(conn))
    return agent, gate


def start(directory: str, command: str, ttl_ms: Optional[int] = None) -> Dict[str, Any]:
    call = AIMessage(content="", tool_calls=[{"name": "run_shell", "args": {"command": command}, "id": "call-1"}])
    agent, _ = build(directory, [call, AIMessage(content="done")], ttl_ms)
    return report(agent.invoke({"messages": [HumanMessage(content="do it")]}, CONFIG))


def resume(directory: str, answer: str) -> Dict[str, Any]:
    agent, gate = build(directory, [AIMessage(content="done")])
    if answer == "toolgate":
        command = gate.resume(agent, CONFIG)
    else:
        paused = agent.get_state(CONFIG).interrupts
        decision = json.loads(answer)
        command = Command(resume={i.id: decision for i in paused} if paused else decision)
    return report(agent.invoke(command, CONFIG))


if __name__ == "__main__":
    main(start, resume)
