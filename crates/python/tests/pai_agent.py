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
from typing import Any, List, Optional

from pydantic_ai import Agent, DeferredToolRequests
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.toolsets import FunctionToolset

import toolgate
from frameworks import log_command, main, store
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

    def bash(command: str) -> str:
        """Runs a shell command."""
        return log_command(directory, command)

    gate = Gate(
        toolgate.Policy.defaults(workspace=WORKSPACE, home=HOME),
        store(directory),
    )
    a: Agent[None, Any] = Agent(
        model(command),
        toolsets=[gate.wrap(FunctionToolset([bash]))],
        output_type=[str, DeferredToolRequests],
    )
    return a, gate




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
    main(
        lambda d, command, ttl: asyncio.run(start(d, command, ttl)),
        lambda d, run_id: asyncio.run(resume(d, run_id)),
    )
