// toolgate/element: everything of the main entry ("toolgate", the same module), plus
// <toolgate-approval>.
export * from "./index.js";
import type { Gate, InitInput, Resumed, ResumeDecision } from "./index.js";

/** Loads the panel's module (`toolgate_ui_bg.wasm` beside this file, or `module_or_path`)
 * and the gate's (the main entry's `init`, given `gate` as its argument); `gate: false`
 * loads the panel's alone, for a page that only shows a run source's runs. */
export default function init(options?: {
  module_or_path?: InitInput | Promise<InitInput>;
  gate?: boolean | { module_or_path: InitInput | Promise<InitInput> };
}): Promise<void>;

/** Where the element reads runs from and sends decisions to, when they live elsewhere
 * than in a Gate of this page (a toolgate server: `httpRunSource` of "toolgate/http"). */
export interface ToolgateRunSource {
  /** `{runs: Run[]}` as `GET /v1/runs` answers (each run as `gate.run(id)` shows it; a
   * pending call may carry `scopes`, the "always allow" rules offered), its JSON text, or
   * `null` when nothing changed since the last answer. */
  runs(): Promise<{ runs: unknown[] } | string | null>;
  /** Decides the run's pending calls, once; resolves with what the element's
   * `toolgate-decision` event carries. A rejection (`{code, message, decidedBy?}`) is
   * shown on the prompt and decides nothing. */
  resume(runId: string, decisions: ResumeDecision[]): Promise<Resumed>;
  /** Optional: call `changed()` whenever the runs may have changed (e.g. a Tauri
   * plugin's event) and return a function that stops it; the element then refreshes at
   * once rather than at its next poll. */
  watch?(changed: () => void): () => void;
  /** Optional: the verdict (`{tier, rule, reason}`) the source's policy gives a call,
   * shown for a person's edit before it is approved. */
  classify?(call: { tool: string; args: unknown }): { tier: string; rule: string; reason: string };
  /** Optional: the live grants the source keeps (listed on the panel, revocable). */
  grants?(): { id: string; rule: string; matches: string; expiresAt: number; singleUse: boolean }[];
  /** Optional, with `grants`: revokes one; resolves with whether there was one. */
  revokeGrant?(id: string): Promise<boolean>;
  /** Optional: lets the source's grants decide a parked run they cover; resolves with
   * what `toolgate-decision` carries, or `null` when they do not cover it. */
  settle?(runId: string): Promise<Resumed | null>;
}

/** A run source over a Gate: what `el.gate = gate` shows. The element shows its runs
 * with its policy's scopes and edit verdicts, its grants, and resumes through it
 * (exactly once across tabs). */
export declare function gateRunSource(gate: Gate): ToolgateRunSource;

/** The element's tag name, `"toolgate-approval"`. */
export declare const TAG: "toolgate-approval";
/** The event the element dispatches after a decision resumed a run. */
export declare const DECISION_EVENT: "toolgate-decision";

/** `toolgate-decision`: bubbles and is composed; `detail` is what `gate.resume` resolved
 * with. Continue the run from `detail.history` with `detail.results`. */
export type ToolgateDecisionEvent = CustomEvent<Resumed>;

/** `<toolgate-approval>`: renders the approval prompts of `gate`'s runs (those its owner
 * parked, here or in another tab) and resumes them through it; or those of `source`. */
export declare class ToolgateApprovalElement extends HTMLElement {
  /** A Gate of "toolgate" (this module exports the same); one of another copy of the
   * package throws (`code: "bad_input"`).
   * `null` shows nothing. */
  gate: Gate | null;
  /** Instead of a gate: a run source (setting one clears `gate`, and the reverse); one
   * without `runs()` and `resume()` throws (`code: "bad_input"`). */
  source: ToolgateRunSource | null;
  addEventListener<K extends keyof ToolgateApprovalEventMap>(
    type: K,
    listener: (this: ToolgateApprovalElement, ev: ToolgateApprovalEventMap[K]) => unknown,
    options?: boolean | AddEventListenerOptions,
  ): void;
  addEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | AddEventListenerOptions,
  ): void;
  removeEventListener<K extends keyof ToolgateApprovalEventMap>(
    type: K,
    listener: (this: ToolgateApprovalElement, ev: ToolgateApprovalEventMap[K]) => unknown,
    options?: boolean | EventListenerOptions,
  ): void;
  removeEventListener(
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | EventListenerOptions,
  ): void;
}

export interface ToolgateApprovalEventMap extends HTMLElementEventMap {
  "toolgate-decision": ToolgateDecisionEvent;
}

/** Defines `<toolgate-approval>` unless the name is taken (importing this module already
 * did); returns the class defined under the name (undefined without a DOM). */
export declare function defineToolgateApproval(): CustomElementConstructor | undefined;

declare global {
  interface HTMLElementTagNameMap {
    "toolgate-approval": ToolgateApprovalElement;
  }
}
