// toolgate/tauri: the guest side of tauri-plugin-toolgate (a Tauri 2 app's windows).
import type {
  CheckOutcome,
  CleanupCounts,
  Parked,
  PendingRequest,
  PendingResponse,
  ResumeDecision,
  Resumed,
  Run,
  ToolCall,
  Verdict,
} from "./index.js";
import type { ToolgateRunSource } from "./element.js";
import type { ToolgateRuns } from "./shared.js";

/** The event the plugin emits to every window after a write. */
export declare const CHANGED_EVENT: "toolgate://changed";

/** A command the plugin refused. `code` is the plugin's (`already_resumed`, `expired`,
 * `anchor_mismatch`, `awaiting_permission`, `scope_not_offered`, `bad_input`, …),
 * `not_allowed` when the window's capability lacks the command, or `tauri` for any
 * other failure of `invoke`. Nothing is decided by a refusal. */
export declare class ToolgateTauriError extends Error {
  readonly code: string;
}

export interface TauriCheckOptions {
  /** Whose "always" rules apply and whose cleanup ends the check (default: the
   * window's label). */
  sessionId?: string;
  /** How long to wait for a decision, ms (default the plugin's, 120000; at most
   * 1800000). */
  timeoutMs?: number;
  toolCallId?: string;
}

/** A pending check: `id` is the run the check parked. */
export interface TauriPendingRequest extends PendingRequest {
  sessionId: string;
  toolCallId: string;
}

export interface TauriParkRequest {
  runId: string;
  calls: { toolCallId: string; tool: string; args: unknown }[];
  history: string;
  sessionId?: string;
  ttlMs?: number;
}

/** The verdict for a call, with the app machine's file-system facts (`toolgate:default`). */
export declare function classify(call: ToolCall): Promise<Verdict>;
/** A gated call (`toolgate:agent`). */
export declare function check(call: ToolCall, options?: TauriCheckOptions): Promise<CheckOutcome>;
/** The pending checks, oldest first (`toolgate:default`). */
export declare function pending(options?: { sessionId?: string }): Promise<TauriPendingRequest[]>;
/** Answers a pending check (`toolgate:decide`); resolves with how many it settled. */
export declare function respond(id: string, response: PendingResponse): Promise<number>;
/** Parks a run of the app's owner (`toolgate:agent`). */
export declare function park(request: TauriParkRequest): Promise<Parked>;
/** Every run of the app's owner (`toolgate:default`). */
export declare function runs(): Promise<{ runs: Run[] }>;
/** The run, or null (`toolgate:default`). */
export declare function run(runId: string): Promise<Run | null>;
/** Resumes a parked run, exactly once (`toolgate:decide`). */
export declare function resume(runId: string, request?: { decisions: ResumeDecision[] }): Promise<Resumed>;
/** Takes what a person decided (or what expiry left), once (`toolgate:agent`). */
export declare function take(runId: string): Promise<Resumed>;
/** Ends this window's session's pending checks (`"*"`: every session's) (`toolgate:agent`). */
export declare function cleanup(options?: { sessionId?: string }): Promise<CleanupCounts>;
/** Calls `fn` after each write to the runs; resolves with a function that stops it. */
export declare function onChange(fn: (change: { runId: string }) => void): Promise<() => void>;

/** The plugin's runs as a run source for `<toolgate-approval>` (`el.source = …`). */
export interface TauriRunSource extends ToolgateRunSource {
  runs(): Promise<{ runs: Run[] }>;
  resume(runId: string, decisions: ResumeDecision[]): Promise<Resumed>;
  /** The panel calls it: `changed()` after each write anywhere in the app. */
  watch(changed: () => void): () => void;
}
export declare function tauriRunSource(): TauriRunSource;

/** The plugin's runs as the SDK adapters' `runs`: `resume` with no decisions takes. */
export declare function tauriRuns(): ToolgateRuns;
