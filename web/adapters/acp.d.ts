// toolgate/acp: toolgate's approvals in the Agent Client Protocol's terms.
import type {
  PermissionOption, RequestPermissionRequest, RequestPermissionResponse, ToolKind,
} from "@agentclientprotocol/sdk";

/** A pending toolgate call: a parked marker's call (`run.marker.calls[i]`) or a pending
 * request, with the "always allow" scopes its policy offers. */
export interface PendingToolgateCall {
  toolCallId: string;
  tool: string;
  args: unknown;
  anchor: string;
  rule?: string;
  reason?: string;
  scopes?: string[];
}

/** One entry of `gate.resume(runId, { decisions })`. */
export type ToolgateDecision =
  | { toolCallId: string; anchor: string; decision: "allow"; scope?: string }
  | { toolCallId: string; anchor: string; decision: "deny"; message?: string };

/** Allow once, "always allow" per offered scope (none: no allow_always), deny. */
export declare function permissionOptions(scopes?: string[]): PermissionOption[];

/** The params of `session/request_permission` for a pending call. */
export declare function permissionRequest(
  sessionId: string,
  call: PendingToolgateCall,
  options?: { scopes?: string[]; title?: string; kind?: ToolKind },
): RequestPermissionRequest;

/** The client's answer as a toolgate decision, or cancelled / expired; an option that was
 * not offered, or an answer of another shape, throws (`code: "bad_input"`). */
export declare function decisionFromResponse(
  request: RequestPermissionRequest,
  response: RequestPermissionResponse,
  options?: { message?: string },
):
  | { outcome: "decided"; decision: ToolgateDecision }
  | { outcome: "cancelled" }
  | { outcome: "expired" };

/** The agent's request as a call toolgate classifies. */
export declare function toolCallFromRequest(
  request: RequestPermissionRequest,
  options?: { toTool?: (request: RequestPermissionRequest) => { tool: string; args?: unknown } },
): { toolCallId: string; tool: string; args: unknown };

/** toolgate's outcome for a request → the answer (an allow option only for `approved`). */
export type ToolgateOutcome =
  | { outcome: "approved"; scope?: string }
  | { outcome: "denied"; message?: string }
  | { outcome: "expired" }
  | { outcome: "cancelled" };

export declare function responseFromOutcome(
  request: RequestPermissionRequest,
  outcome: ToolgateOutcome,
): RequestPermissionResponse;
