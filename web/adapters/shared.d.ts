// Types the SDK adapters share (shared.js is internal: no subpath of its own).
import type { Parked, Resumed, ResumeDecision, Run } from "./index.js";

/** Where runs are parked: a toolgate `Gate` (its `park`, `run`, `resume`), or any object
 * with the same three methods (sync or async). */
export interface ToolgateRuns {
  park(request: { runId: string; calls: { toolCallId: string; tool: string; args: unknown }[]; history: string; sessionId?: string; ttlMs?: number }): Parked | Promise<Parked>;
  run(runId: string): Run | null | Promise<Run | null>;
  /** With no decisions: what was decided elsewhere (httpRuns) or what expiry left, once. */
  resume(runId: string, request: { decisions: ResumeDecision[] }): Promise<Resumed>;
}

export declare function canonical(value: unknown): string;
