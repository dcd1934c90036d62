// toolgate/ai-sdk typed against `ai` 6: gateTools' needsApproval fits the v6 tool, the
// per-tool needsApproval helper fits `tool()`, resume's model messages go back into
// generateText.
import { generateText, tool, type ModelMessage, type LanguageModel } from "ai";
import { z } from "zod";
import { Gate, Policy, type ResumeDecision } from "toolgate";
import { gateTools, needsApproval, toolgateApprovals } from "toolgate/ai-sdk";

export async function gated(model: LanguageModel, policy: Policy, gate: Gate, decisions: ResumeDecision[]) {
  const shell = tool({
    description: "run",
    inputSchema: z.object({ command: z.string() }),
    needsApproval: needsApproval(policy, "bash"),
    execute: async ({ command }) => `ran ${command}`,
  });
  const tools = gateTools({ bash: shell }, { policy, needsApproval: true });
  const approvals = toolgateApprovals({ policy, runs: gate });
  const messages: ModelMessage[] = [{ role: "user", content: "go" }];
  const first = await generateText({ model, tools, messages });
  const parked = await approvals.park([...messages, ...first.response.messages], { runId: "r1" });
  if (parked.status === "parked") {
    const resumed = await approvals.resume<ModelMessage>("r1", decisions);
    return generateText({ model, tools, messages: resumed.messages });
  }
  return first;
}
