// toolgate/openai-agents: a toolgate policy and durable runs for the OpenAI Agents SDK.
import type { Agent, RunResult, RunState, StreamedRunResult } from "@openai/agents";
import type { Policy, Resumed, ResumeDecision, Run } from "./index.js";
import type { ToolgateRuns } from "./shared.js";

export type { ToolgateRuns };

export interface ToolgateAgentsOptions {
  policy: Policy;
  runs: ToolgateRuns;
  /** How an agent tool's input becomes the call toolgate classifies, by tool name
   * (default: the tool's own name with its input, e.g. `bash` with `{command}`). */
  tools?: Record<string, (input: any) => { tool: string; args?: unknown }>;
}

export type ParkResult =
  | { status: "parked"; run: Run; stopReason: "paused"; refused: { toolCallId: string; rule: string; reason: string }[] }
  | { status: "ready"; state: RunState<any, any>; refused: { toolCallId: string; rule: string; reason: string }[] };

export interface ToolgateAgents {
  /** `t` (a function tool, changed in place and returned) runs a person's edit of an
   * approved call instead of the model's input, once; an edit of a tool not wrapped so
   * is rejected. */
  tool<T extends { name: string; invoke: (...args: any[]) => any }>(t: T): T;
  /** For `tool({ needsApproval })`: true unless the policy says `auto` for this call. */
  needsApproval(toolName: string): (runContext: unknown, input: any, callId?: string) => Promise<boolean>;
  /** Refuses the policy's denies in the run state (with the reason), parks the rest in one
   * permission marker with `result.state.toString()` as its history. */
  park(result: RunResult<any, any> | StreamedRunResult<any, any>, options: { runId: string; sessionId?: string; ttlMs?: number }): Promise<ParkResult>;
  /** Resumes the marker exactly once with the person's decisions and returns the state to
   * run again; `anchor_mismatch` when the history's arguments differ from the parked ones. */
  resume<TAgent extends Agent<any, any>>(agent: TAgent, runId: string, decisions?: ResumeDecision[]): Promise<RunState<any, TAgent>>;
  /** The state to run again from a resume made elsewhere (`toolgate-decision`'s detail);
   * an interruption whose arguments differ from the decided ones is rejected. */
  continueFrom<TAgent extends Agent<any, any>>(agent: TAgent, resumed: Resumed): Promise<RunState<any, TAgent>>;
}

export declare function toolgateAgents(options: ToolgateAgentsOptions): ToolgateAgents;
