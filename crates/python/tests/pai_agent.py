"""A Pydantic AI agent gated by toolgate, for tests/test_pydantic_ai.py: its model is a
scripted FunctionModel that calls `bash` once with the command given and then answers
with what the tool returned; its `bash` tool appends the command to `ran.log` in the test
directory (so a run in any process is counted). Run as a script, it starts a run (and
parks it) or resumes one, printing JSON.

    python pai_agent.py DIR start COMMAND      → {"output": …} or {"parked": RUN_ID}
    python pai_agent.py DIR resume RUN_ID      → {"output": …}
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any, List, Optional

from pydantic_ai import Agent, DeferredToolRequests
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.toolsets import FunctionToolset

import toolgate
from toolgate.pydantic_ai import Gate

WORKSPACE = "/home/dev/app"
HOME = "/home/dev"


def model(command: str) -> FunctionModel:
    def respond(messages: List[ModelMessage], info: AgentInfo) -> ModelResponse:
        returns = [
            p for m in messages for p in getattr(m, "parts", []) if isinstance(p, ToolReturnPart)
        ]
        if returns:
            return ModelResponse(parts=[TextPart(f"done: {returns[-1].content}")])
        return ModelResponse(parts=[ToolCallPart("bash", {"command": command}, tool_call_id="call-1")])

    return FunctionModel(respond)


def agent(directory: str, command: str = "") -> "tuple[Agent[None, Any], Gate]":
    log = os.path.join(directory, "ran.log")

    def bash(command: str) -> str:
        """Runs a shell command."""
        with open(log, "a", encoding="utf-8") as f:
            f.write(command + "\n")
        return f"ran {command}"

    gate = Gate(
        toolgate.Policy.defaults(workspace=WORKSPACE, home=HOME),
        toolgate.RunStore("sqlite:" + os.path.join(directory, "runs.db")),
    )
    a: Agent[None, Any] = Agent(
        model(command),
        toolsets=[gate.wrap(FunctionToolset([bash]))],
        output_type=[str, DeferredToolRequests],
    )
    return a, gate


def ran(directory: str) -> List[str]:
    try:
        with open(os.path.join(directory, "ran.log"), encoding="utf-8") as f:
            return f.read().splitlines()
    except FileNotFoundError:
        return []


async def start(directory: str, command: str, ttl_ms: Optional[int] = None) -> Any:
    a, gate = agent(directory, command)
    result = await a.run("do it")
    if isinstance(result.output, DeferredToolRequests):
        return {"parked": gate.park(result, ttl_ms=ttl_ms)}
    return {"output": result.output}


async def resume(directory: str, run_id: str) -> Any:
    a, gate = agent(directory)
    messages, results = gate.resume(run_id)
    result = await a.run(message_history=messages, deferred_tool_results=results)
    return {"output": result.output}


if __name__ == "__main__":
    d, what, arg = sys.argv[1], sys.argv[2], sys.argv[3]
    ttl = int(sys.argv[4]) if len(sys.argv) > 4 else None
    try:
        out = asyncio.run(start(d, arg, ttl) if what == "start" else resume(d, arg))
    except toolgate.ToolgateError as e:
        out = {"error": e.code, "message": str(e)}
    print(json.dumps(out))
