// toolgate/ai-sdk: a toolgate policy and durable approvals for the Vercel AI SDK (`ai` 7
// and 6). The types are structural, so one declaration serves both majors.
import type { Policy, Parked, Resumed, ResumeDecision, Run } from "./index.js";
import type { ToolgateRuns } from "./shared.js";

export type { ToolgateRuns };

/** How an SDK tool's input becomes the call toolgate classifies, by tool name (default:
 * the tool's own name with its input, e.g. `bash` with `{command}`). */
export type ToolMap = Record<string, (input: any) => { tool: string; args?: unknown }>;

/** What `toolgatePolicy` answers: one of the SDK's `ToolApprovalStatus` values. */
export type ToolgateApprovalStatus =
  | "not-applicable"
  | { type: "approved"; reason: string }
  | { type: "user-approval"; reason: string }
  | { type: "denied"; reason: string };

/** v7's `toolApproval` (generateText, streamText, ToolLoopAgent): `auto` →
 * 'not-applicable' (or `{type: 'approved'}` with `auto: "approved"`), `ask` →
 * 'user-approval' with the reason, `deny` and any failure → denied with the reason. */
export declare function toolgatePolicy(
  policy: Policy,
  options?: { tools?: ToolMap; auto?: "not-applicable" | "approved" },
): (options: { toolCall: { toolName: string; toolCallId: string; input: unknown } }) => Promise<ToolgateApprovalStatus>;

/** v6's per-tool `needsApproval`: true unless the policy says `auto`. */
export declare function needsApproval(
  policy: Policy,
  toolName: string,
  options?: { tools?: ToolMap },
): (input: any, options?: unknown) => Promise<boolean>;

/** The tools with each `execute` refusing the policy's denies (the call never runs, even
 * approved); `needsApproval: true` also sets v6's `needsApproval` (true for `ask`). */
export declare function gateTools<T extends Record<string, object>>(
  tools: T,
  options: { policy: Policy; tools?: ToolMap; needsApproval?: boolean },
): T;

/** An approval nobody answered yet. */
export interface PendingApproval {
  approvalId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
  reason?: string;
}

/** `addToolApprovalResponse`'s argument, and a `tool-approval-response` part's content. */
export interface ApprovalResponse {
  id: string;
  approved: boolean;
  reason?: string;
}

/** The pending approvals of model messages or of useChat's UI messages. */
export declare function pendingApprovals(messages: readonly object[]): PendingApproval[];

export type ApprovalsResumed<M> =
  | { kind: "model"; messages: M[]; responses: ApprovalResponse[] }
  | { kind: "ui"; messages: M[]; responses: ApprovalResponse[] };

export interface ToolgateApprovals {
  pending(messages: readonly object[]): PendingApproval[];
  /** Parks the pending approvals in one marker, the messages as its history. */
  park(
    messages: readonly object[],
    options: { runId: string; sessionId?: string; ttlMs?: number },
  ): Promise<{ status: "parked"; run: Run; stopReason: Parked["stopReason"] } | { status: "none" }>;
  /** Resumes the marker exactly once; `anchor_mismatch` when the history's arguments
   * differ from the parked ones. */
  resume<M = any>(runId: string, decisions?: ResumeDecision[]): Promise<ApprovalsResumed<M>>;
  /** The same answer from a resume made elsewhere (`toolgate-decision`'s detail). */
  continueFrom<M = any>(resumed: Resumed): ApprovalsResumed<M>;
}

export declare function toolgateApprovals(options: { policy: Policy; runs: ToolgateRuns; tools?: ToolMap }): ToolgateApprovals;
