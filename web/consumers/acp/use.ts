// toolgate/acp typed against the SDK: what it returns is what the SDK's methods take.
import type { RequestPermissionRequest, RequestPermissionResponse, PermissionOption } from "@agentclientprotocol/sdk";
import { Gate } from "toolgate";
import {
  permissionOptions, permissionRequest, decisionFromResponse, toolCallFromRequest, responseFromOutcome,
  type ToolgateDecision,
} from "toolgate/acp";

export async function agentSide(gate: Gate, runId: string, ask: (p: RequestPermissionRequest) => Promise<RequestPermissionResponse>) {
  const run = gate.run(runId);
  const call = run?.marker?.calls[0];
  if (!call) return;
  const request: RequestPermissionRequest = permissionRequest("session-1", call, { scopes: ["Bash(npm publish)"], kind: "execute" });
  const options: PermissionOption[] = permissionOptions([]);
  const answer = decisionFromResponse(request, await ask(request));
  if (answer.outcome === "decided") {
    const d: ToolgateDecision = answer.decision;
    await gate.resume(runId, { decisions: [d] });
  }
  return options.length;
}

export function clientSide(request: RequestPermissionRequest): RequestPermissionResponse {
  const call: { toolCallId: string; tool: string; args: unknown } = toolCallFromRequest(request);
  console.log(call.tool);
  return responseFromOutcome(request, { outcome: "denied", message: "not now" });
}
