// toolgate/tauri: the guest side of tauri-plugin-toolgate, for a Tauri 2 app's windows.
// Typed wrappers over `invoke("plugin:toolgate|…")`, a run source for
// <toolgate-approval> (the same panel renders the plugin's runs), and the plugin's runs
// in the shape the SDK adapters take as `runs`.
//
//   import "toolgate/element";
//   import { tauriRunSource } from "toolgate/tauri";
//   document.querySelector("toolgate-approval").source = tauriRunSource();
//
// The runs live in the app's Rust side (SQLite in the app's data directory): every
// window sees the same runs, they survive a reload and a restart, and the app's own
// Rust agent loop parks and checks through the same plugin. What a window may call is
// what its capability grants: `toolgate:default` (classify, runs, run, pending),
// `toolgate:decide` (respond, resume), `toolgate:agent` (check, park, take, cleanup).
// A refusal rejects with a ToolgateTauriError whose `code` is the plugin's
// (`already_resumed`, `expired`, `anchor_mismatch`, `bad_input`, …) or `not_allowed`
// (the window's capability lacks the command); nothing is decided.
import { invoke } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";

/** The event the plugin emits to every window after a write: `{runId}`. */
export const CHANGED_EVENT = "toolgate://changed";

/** A command the plugin refused: `code`, and the plugin's sentence as `message`. */
export class ToolgateTauriError extends Error {
  constructor(message, code) {
    super(message);
    this.name = "ToolgateTauriError";
    this.code = code;
  }
}

/** The plugin rejects with `{code, message}`; Tauri's own refusals are strings
 * (a command the window's capability does not allow: "… not allowed …"). */
function toError(cmd, e) {
  if (e && typeof e === "object" && typeof e.code === "string") {
    return new ToolgateTauriError(String(e.message ?? e.code), e.code);
  }
  const text = typeof e === "string" ? e : String(e?.message ?? e);
  const code = /not allowed/i.test(text) ? "not_allowed" : "tauri";
  return new ToolgateTauriError(`toolgate ${cmd}: ${text}`, code);
}

async function call(cmd, args = {}) {
  try {
    return await invoke(`plugin:toolgate|${cmd}`, args);
  } catch (e) {
    throw toError(cmd, e);
  }
}

/** The verdict for `{tool, args}` (with the app machine's file-system facts). */
export const classify = (toolCall) => call("classify", { call: toolCall });

/** A gated call: resolves once decided (`auto` and `deny` at once; `ask` when a person
 * decides in a window, at the timeout: `expired`, or at cleanup: `cancelled`). A
 * window's checks belong to its label's session unless `sessionId` is given. */
export const check = (toolCall, { sessionId, timeoutMs, toolCallId } = {}) =>
  call("check", { call: toolCall, sessionId, timeoutMs, toolCallId });

/** The pending checks (of `sessionId`, or every session), oldest first. */
export const pending = ({ sessionId } = {}) => call("pending", { sessionId });

/** Answers pending check `id`: `{decision: "allow_once" | "allow_always" | "deny" |
 * "deny_always", anchor, scope?, message?}`. Resolves with how many it settled. */
export const respond = (id, response) => call("respond", { id, response });

/** Parks a run of the app's owner: `{runId, calls: [{toolCallId, tool, args}], history,
 * sessionId?, ttlMs?}`; the plugin classifies the calls. */
export const park = (request) => call("park", { request });

/** Every run of the app's owner: `{runs}` as a toolgate server's `GET /v1/runs`. */
export const runs = () => call("runs");

/** The run, or null. */
export const run = (runId) => call("run", { runId });

/** Resumes a parked run with `{decisions}`, exactly once (`already_resumed` after). */
export const resume = (runId, request) => call("resume", { runId, request: request ?? null });

/** Takes what a person decided for a parked run (or what expiry left), with the
 * history, once; `awaiting_permission` while nobody has decided. */
export const take = (runId) => call("take", { runId });

/** Ends the pending checks of this window's session (`"*"`: every session):
 * cancelled, never approved. */
export const cleanup = ({ sessionId } = {}) => call("cleanup", { sessionId });

/** Calls `fn({runId})` after each write to the runs; resolves with a function that
 * stops it. */
export const onChange = (fn) => listen(CHANGED_EVENT, (event) => fn(event.payload));

/** A run source for <toolgate-approval> (`el.source = tauriRunSource()`): the panel
 * lists the plugin's runs, refreshes when the plugin says they changed, and resumes
 * through `resume` (the window needs `toolgate:decide`). */
export function tauriRunSource() {
  return {
    runs,
    resume: (runId, decisions) => resume(runId, { decisions }),
    /** Called by the panel: refresh at once after a write anywhere in the app. */
    watch(changed) {
      const stop = onChange(() => changed()).catch(() => null);
      return () => {
        stop.then((unlisten) => unlisten?.());
      };
    },
  };
}

/** The plugin's runs as the SDK adapters' `runs` (`toolgateApprovals({ runs })`,
 * `toolgateAgents({ runs })`): park, run, and resume (no decisions: take). */
export function tauriRuns() {
  return {
    park,
    run,
    resume: (runId, request) =>
      request?.decisions?.length ? resume(runId, request) : take(runId),
  };
}
