// toolgate/openai-agents typed against the SDK: a Gate is the runs, needsApproval fits
// `tool()`, park takes a run's result and resume gives the RunState `run()` takes.
import { Agent, run, tool, type RunState } from "@openai/agents";
import { z } from "zod";
import { Gate, Policy, type ResumeDecision } from "toolgate";
import { toolgateAgents, type ParkResult } from "toolgate/openai-agents";

export async function gated(policy: Policy, gate: Gate, decisions: ResumeDecision[]) {
  const tg = toolgateAgents({
    policy,
    runs: gate,
    tools: { shell: (input: { cmd: string }) => ({ tool: "bash", args: { command: input.cmd } }) },
  });
  const shell = tool({
    name: "shell",
    description: "run a command",
    parameters: z.object({ cmd: z.string() }),
    needsApproval: tg.needsApproval("shell"),
    execute: async ({ cmd }) => `ran ${cmd}`,
  });
  const agent = new Agent({ name: "coder", instructions: "x", tools: [shell] });
  const result = await run(agent, "go");
  if (result.interruptions.length) {
    const parked: ParkResult = await tg.park(result, { runId: "r1" });
    if (parked.status === "parked") {
      const state: RunState<any, typeof agent> = await tg.resume(agent, "r1", decisions);
      return run(agent, state);
    }
    return run(agent, parked.state);
  }
  return result;
}
