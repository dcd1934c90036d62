// toolgate/element: the approval panel as the custom element <toolgate-approval>, and
// everything of the main entry ("toolgate": Policy, Gate, …), whose module it shares:
// the panel's own module (toolgate_ui_bg.wasm) holds the panel and no second copy of
// the gate, and shows a Gate's runs through the gate itself.
//
//   import init, { Policy, Gate } from "toolgate/element";
//   import "toolgate/approval.css";           // optional: the panel's default look
//   await init();                             // loads the panel's and the gate's .wasm
//   await loadPolicyReader();                 // only to read a policy file (Policy.fromToml)
//   const gate = new Gate(policy, { sessionId, owner });
//   const el = document.querySelector("toolgate-approval");
//   el.gate = gate;                           // shows the runs gate.park() parks
//   el.addEventListener("toolgate-decision", (e) => continueRun(e.detail));
//
// The element renders the Leptos panel (the same prompt as toolgate's demo, the same
// data-testids) into its own light DOM while it is connected and has a gate. When the
// person decides, the run is resumed through the gate (exactly once across tabs) and
// the element dispatches `toolgate-decision` (bubbles, composed) whose `detail` is what
// `gate.resume` resolves with: `{ runId, sessionId, results, history, revision }`.
//
// Runs that live elsewhere (a toolgate server): set `el.source` instead of `el.gate`,
// e.g. `el.source = httpRunSource({ url, token })` from "toolgate/http", or any object
// with `runs()` and `resume(runId, decisions)` (see http.js). The element then polls it
// (3 s while a run is active, 5 s idle, paused while the page is hidden) and the
// event's `detail` is what `source.resume` resolved with. A page that only shows a
// source's runs needs no gate: `await init({ gate: false })` loads the panel alone.
//
// Importing this module defines the element once: a second copy of the module (two
// bundles, a reload of a script) finds the name taken and leaves it alone. It can be
// imported where there is no DOM (server-side rendering): it defines nothing there.
import initPanel, { mountApprovalSource } from "./ui.js";
import initGate, { Gate } from "./web.js";

export * from "./web.js";

/**
 * Loads the panel's module (toolgate_ui_bg.wasm beside this file, or
 * `options.module_or_path`) and the gate's (the main entry's `init`, with
 * `options.gate` as its argument; `gate: false`: not loaded, for a page that only shows
 * a run source's runs).
 */
export default async function init(options) {
  const { gate, ...panel } = options ?? {};
  await Promise.all([
    initPanel(panel.module_or_path === undefined ? undefined : panel),
    gate === false ? null : initGate(gate === true ? undefined : gate),
  ]);
}

/**
 * A run source (for `el.source`) over a Gate: what `el.gate = gate` shows. The element
 * then shows that gate's runs, offers the "always allow" scopes of its policy, shows the
 * verdict of a person's edit, lists and revokes its grants, lets them settle a parked run
 * they cover, and refreshes at once on its changes; a decision resumes the run through
 * the gate (exactly once across tabs, as `gate.resume`).
 */
export function gateRunSource(gate) {
  const policy = gate.policy;
  const withScopes = (run) => {
    const calls = run.marker?.calls;
    if (!Array.isArray(calls)) return run;
    return {
      ...run,
      marker: {
        ...run.marker,
        // The panel shows no scope for a question, whatever a source gives.
        calls: calls.map((c) => ({ ...c, scopes: policy.scopes({ tool: c.tool, args: c.args }) })),
      },
    };
  };
  return {
    runs: async () => ({ runs: gate.runs().map(withScopes) }),
    resume: (runId, decisions) => gate.resume(runId, { decisions }),
    watch: (changed) => gate.onRunsChange(() => changed()),
    classify: (call) => policy.classify(call),
    grants: () => gate.grants().filter((g) => g.state === "live"),
    revokeGrant: (id) => gate.revokeGrant(id),
    settle: (runId) => gate.settleWithGrants(runId),
  };
}

/** The element's tag name. */
export const TAG = "toolgate-approval";
/** The event it dispatches after a decision resumed a run. */
export const DECISION_EVENT = "toolgate-decision";

const Base = typeof HTMLElement === "undefined" ? class {} : HTMLElement;

export class ToolgateApprovalElement extends Base {
  #gate = null;
  #source = null;
  #handle = null;

  /** The Gate whose runs the element shows and resumes ("toolgate"'s, which this
   * module exports too). */
  get gate() {
    return this.#gate;
  }

  set gate(gate) {
    if (gate === this.#gate) return;
    if (gate != null && !(gate instanceof Gate)) {
      // A Gate of another copy of the package lives in another WebAssembly instance,
      // with its own storage notices and locks: refused, rather than shown half-working.
      const e = new TypeError(
        '<toolgate-approval>: gate must be a Gate from "toolgate" (or "toolgate/element", the same module)',
      );
      e.code = "bad_input";
      throw e;
    }
    this.#gate = gate ?? null;
    if (this.#gate) this.#source = null;
    this.#remount();
  }

  /** The run source whose runs the element shows and resumes, instead of a gate: an
   * object with `runs()` and `resume(runId, decisions)` (e.g. `httpRunSource(…)`). */
  get source() {
    return this.#source;
  }

  set source(source) {
    if (source === this.#source) return;
    if (source != null && (typeof source.runs !== "function" || typeof source.resume !== "function")) {
      const e = new TypeError("<toolgate-approval>: source must have runs() and resume(runId, decisions) methods");
      e.code = "bad_input";
      throw e;
    }
    this.#source = source ?? null;
    if (this.#source) this.#gate = null;
    this.#remount();
  }

  connectedCallback() {
    this.#remount();
  }

  disconnectedCallback() {
    this.#unmount();
  }

  #unmount() {
    const handle = this.#handle;
    this.#handle = null;
    if (handle) {
      handle.dispose();
      handle.free();
    }
  }

  #remount() {
    this.#unmount();
    if (!this.isConnected || !(this.#gate || this.#source)) return;
    const decided = (resumed) => {
      this.dispatchEvent(new CustomEvent(DECISION_EVENT, { detail: resumed, bubbles: true, composed: true }));
    };
    // Throws `internal_error` once the panel's module panicked: the element then shows
    // nothing, and the error is the host's.
    this.#handle = mountApprovalSource(this, this.#gate ? gateRunSource(this.#gate) : this.#source, decided);
  }
}

/** Defines <toolgate-approval> unless the name is taken (by this or another copy of the
 * module); returns the class the name is defined to. */
export function defineToolgateApproval() {
  if (typeof customElements === "undefined") return undefined;
  const existing = customElements.get(TAG);
  if (existing) return existing;
  customElements.define(TAG, ToolgateApprovalElement);
  return ToolgateApprovalElement;
}

defineToolgateApproval();
