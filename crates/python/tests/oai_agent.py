"""An OpenAI Agents SDK agent gated by toolgate, for tests/test_openai_agents.py: a
ScriptedModel (the SDK's own test model) calls `run_shell` with the command given, then
answers; the tool appends the command to `ran.log` in the test directory. As a script it
starts a run (and parks it) or resumes one, printing JSON with what the model was sent.

    python oai_agent.py DIR start COMMAND [TTL_MS]  → {"output": …} or {"parked": RUN_ID}
    python oai_agent.py DIR resume RUN_ID           → {"output": …, "tool_output": …}
"""

from __future__ import annotations

import asyncio
from typing import Any, List, Optional, Tuple

from agents import Agent, Runner, function_tool
from agents.testing.model import ScriptedModel, assistant_message, function_call

import toolgate
from frameworks import log_command, main, store
from toolgate.openai_agents import Gate

WORKSPACE = "/home/dev/app"
HOME = "/home/dev"


def agent(directory: str, steps: List[Any]) -> Tuple[Agent[Any], Gate, ScriptedModel]:

    @function_tool
    def run_shell(command: str) -> str:
        """Runs a shell command."""
        return log_command(directory, command)

    gate = Gate(
        toolgate.Policy.defaults(workspace=WORKSPACE, home=HOME),
        store(directory),
    )
    model = ScriptedModel(steps)
    a: Agent[Any] = Agent(name="ops", model=model, tools=[gate.tool(run_shell, as_tool="bash")])
    return a, gate, model




def tool_output(model: ScriptedModel) -> Optional[str]:
    """The tool's result as the model was last sent it."""
    call = model.last_call
    items = call.input if call is not None and isinstance(call.input, list) else []
    outs = [str(i.get("output")) for i in items if isinstance(i, dict) and i.get("type") == "function_call_output"]
    return outs[-1] if outs else None


async def start(directory: str, command: str, ttl_ms: Optional[int] = None) -> Any:
    steps = [[function_call("run_shell", {"command": command}, call_id="call-1")], [assistant_message("done")]]
    a, gate, model = agent(directory, steps)
    result = await Runner.run(a, "do it")
    if result.interruptions:
        return {"parked": gate.park(result, ttl_ms=ttl_ms)}
    return {"output": result.final_output, "tool_output": tool_output(model)}


async def resume(directory: str, run_id: str) -> Any:
    a, gate, model = agent(directory, [[assistant_message("done")]])
    state = await gate.resume(a, run_id)
    result = await Runner.run(a, state)
    return {"output": result.final_output, "tool_output": tool_output(model)}


if __name__ == "__main__":
    main(
        lambda d, command, ttl: asyncio.run(start(d, command, ttl)),
        lambda d, run_id: asyncio.run(resume(d, run_id)),
    )
