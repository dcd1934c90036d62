// toolgate/ai-sdk typed against `ai` 7: toolgatePolicy is a `toolApproval`, gateTools
// keeps the tool set's type, resume's model messages go back into generateText, and a
// UI resume's responses are addToolApprovalResponse's argument.
import { generateText, tool, type ModelMessage, type LanguageModel, type ChatAddToolApproveResponseFunction } from "ai";
import { z } from "zod";
import { Gate, Policy, type ResumeDecision } from "toolgate";
import { gateTools, toolgateApprovals, toolgatePolicy, type ApprovalResponse } from "toolgate/ai-sdk";

export async function gated(model: LanguageModel, policy: Policy, gate: Gate, decisions: ResumeDecision[]) {
  const tools = gateTools(
    { shell: tool({ description: "run", inputSchema: z.object({ cmd: z.string() }), execute: async ({ cmd }) => `ran ${cmd}` }) },
    { policy, tools: { shell: (input: { cmd: string }) => ({ tool: "bash", args: { command: input.cmd } }) } },
  );
  const toolApproval = toolgatePolicy(policy, { tools: { shell: (input: { cmd: string }) => ({ tool: "bash", args: { command: input.cmd } }) } });
  const approvals = toolgateApprovals({ policy, runs: gate });
  const messages: ModelMessage[] = [{ role: "user", content: "go" }];
  const first = await generateText({ model, tools, toolApproval, messages });
  const all: ModelMessage[] = [...messages, ...first.response.messages];
  const parked = await approvals.park(all, { runId: "r1", ttlMs: 60_000 });
  if (parked.status === "parked") {
    const resumed = await approvals.resume<ModelMessage>("r1", decisions);
    return generateText({ model, tools, toolApproval, messages: resumed.messages });
  }
  return first;
}

export function answer(respond: ChatAddToolApproveResponseFunction, responses: ApprovalResponse[]) {
  for (const r of responses) void respond(r);
}
