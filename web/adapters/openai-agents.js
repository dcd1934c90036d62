// toolgate/openai-agents: a toolgate policy and durable runs for the OpenAI Agents SDK
// (@openai/agents ≥ 0.20). One object per agent set-up:
//
//   const gate = toolgateAgents({ policy, runs: gate });       // a Gate, or httpRuns(…)
//   const shell = tool({ name: "bash", …, needsApproval: gate.needsApproval("bash") });
//   let result = await run(agent, input);
//   if (result.interruptions?.length) await gate.park(result, { runId });  // the turn ends
//   … later, in any process that sees the same runs:
//   const state = await gate.resume(agent, runId, decisions);  // exactly once
//   result = await run(agent, state);
//
// - needsApproval(name): the policy classifies the call; `auto` runs without asking,
//   `ask` and `deny` stop for approval (a deny is then refused by `park`, with its reason,
//   before anyone is asked). A failing classification asks.
// - park(result): each interruption is classified again: a deny is rejected in the run
//   state at once (`message`: the policy's reason); the others go into one permission
//   marker with `result.state.toString()` as its history. Nothing to ask: the state comes
//   back to run again at once.
// - resume(agent, runId) with no decisions: over a server's runs (httpRuns), takes what
//   a person decided in the panel, with the history, once.
// - resume(agent, runId, decisions): checks the marker's history against its calls (a
//   call whose arguments in the history differ from the parked ones is refused:
//   `anchor_mismatch`), resumes the marker exactly once, and returns the RunState with
//   each interruption approved or rejected (a denial with `User refused permission:
//   <message>`). A call the policy now denies is rejected even if approved. A run whose
//   marker expired comes back once with each interruption rejected as "Not approved:
//   nobody answered the permission request in time." (not as a person's no).
// - tool(t): the function tool runs a person's edit of an approved call (an allow with
//   `args`, classified again by the gate) instead of the model's input; an edit of a
//   tool not wrapped so is rejected.
import { RunState } from "@openai/agents";
import { callMapper, canonical, checkSetup, failure as fail, refusal, verdictFor } from "./shared.js";

const failure = (code, message) => fail("openai-agents", code, message);
const EXPIRED = "Not approved: nobody answered the permission request in time.";

function callIdOf(item) {
  const raw = item.rawItem ?? {};
  return raw.callId ?? raw.id;
}

function inputOf(item) {
  const text = item.arguments;
  if (text === undefined || text === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return { input: text };
  }
}

export function toolgateAgents({ policy, runs, tools = {} } = {}) {
  checkSetup("openai-agents", policy, runs);
  const toCall = callMapper(tools);
  const verdictOf = (name, input) => verdictFor(policy, () => toCall(name, input));
  // A person's edits of approved calls (call id → the edited input as JSON), for the
  // tools `tool(t)` wrapped: they run the edit, once.
  const edits = new Map();
  const editable = new Set();

  // Each result carries the tool and arguments that were decided (the marker's): an
  // interruption of the history with other arguments is not what the person saw.
  async function continueFrom(agent, resumed) {
    const state = await RunState.fromString(agent, resumed.history);
    const results = new Map(resumed.results.map((r) => [r.toolCallId, r]));
    for (const item of state.getInterruptions()) {
      const id = callIdOf(item);
      const result = results.get(id);
      const input = inputOf(item);
      // A person's edit: the history holds the parked call (`editedFrom`), the edit runs
      // through the wrapped tool (`tool(t)`) when it maps to exactly the edited call.
      const edited = result?.outcome === "approved" && result.editedFrom !== undefined;
      const parked = edited ? { tool: result.tool, args: result.editedFrom } : result;
      let verdict = verdictOf(item.name, input);
      if (edited && verdict.tier !== "deny") verdict = verdictOf(item.name, result.args);
      if (verdict.tier === "deny") {
        state.reject(item, { message: refusal(verdict) });
      } else if (!result) {
        state.reject(item, { message: "Not approved: this call was not decided." });
      } else if (result.outcome === "expired") {
        state.reject(item, { message: result.toolResult ?? EXPIRED });
      } else if (canonical({ tool: parked.tool, args: parked.args }) !== canonical(toCall(item.name, input))) {
        state.reject(item, { message: "Not approved: the arguments differ from the ones decided." });
      } else if (edited && (!editable.has(item.name) || canonical(toCall(item.name, result.args)) !== canonical({ tool: result.tool, args: result.args }))) {
        state.reject(item, { message: "Not approved: a person edited this call, and this tool cannot take the edit." });
      } else if (result.outcome === "approved") {
        if (edited) edits.set(id, JSON.stringify(result.args));
        state.approve(item);
      } else {
        state.reject(item, { message: result.toolResult ?? "User refused permission." });
      }
    }
    return state;
  }

  return {
    /** `t` (a function tool, changed in place and returned) taking a person's edit: an
     * approved call the person edited runs with the edit as its input, once. Without it
     * an edited approval is rejected, never run as the model asked. */
    tool(t) {
      if (!t || typeof t.invoke !== "function" || typeof t.name !== "string") throw failure("bad_input", "tool(t) takes a function tool");
      const invoke = t.invoke;
      editable.add(t.name);
      t.invoke = (runContext, input, details) => {
        const id = details?.toolCall?.callId;
        const edit = id === undefined ? undefined : edits.get(id);
        if (edit === undefined) return invoke.call(t, runContext, input, details);
        edits.delete(id);
        return invoke.call(t, runContext, edit, details);
      };
      return t;
    },

    /** For `tool({ needsApproval })`: asks unless the policy says `auto`. */
    needsApproval(name) {
      return async (_runContext, input) => verdictOf(name, input).tier !== "auto";
    },

    /** Parks the run's interruptions: `{status: "parked", run}`, or `{status: "ready",
     * state}` when every one was refused by the policy (run the state again now). */
    async park(result, { runId, sessionId, ttlMs } = {}) {
      if (typeof runId !== "string" || runId === "") throw failure("bad_input", "runId is required");
      const state = result?.state;
      const items = result?.interruptions ?? [];
      if (!state || items.length === 0) throw failure("bad_input", "the result has no interruptions to park");
      const calls = [];
      const refused = [];
      for (const item of items) {
        const input = inputOf(item);
        const verdict = verdictOf(item.name, input);
        if (verdict.tier === "deny") {
          state.reject(item, { message: refusal(verdict) });
          refused.push({ toolCallId: callIdOf(item), rule: verdict.rule, reason: verdict.reason });
        } else {
          calls.push({ toolCallId: callIdOf(item), ...toCall(item.name, input) });
        }
      }
      if (calls.length === 0) return { status: "ready", state, refused };
      const parked = await runs.park({
        runId,
        calls,
        history: state.toString(),
        ...(sessionId ? { sessionId } : {}),
        ...(ttlMs ? { ttlMs } : {}),
      });
      return { status: "parked", run: parked.run, stopReason: parked.stopReason, refused };
    },

    /** Resumes `runId` with the person's decisions (`[{toolCallId, anchor, decision,
     * message?, scope?}]`), exactly once, and returns the RunState to run again. */
    async resume(agent, runId, decisions = []) {
      // No decisions: take what a person decided elsewhere (the server's panel) or what
      // expiry left, once.
      if (decisions.length === 0) return continueFrom(agent, await runs.resume(runId, { decisions: [] }));
      const run = await runs.run(runId);
      if (!run) throw failure("not_found", `no run ${runId}`);
      if (run.marker) {
        // The history is the host's too: a call in it must have the arguments parked.
        const expected = new Map(run.marker.calls.map((c) => [c.toolCallId, { tool: c.tool, args: c.args }]));
        const state = await RunState.fromString(agent, run.marker.history);
        for (const item of state.getInterruptions()) {
          const want = expected.get(callIdOf(item));
          if (want && canonical(want) !== canonical(toCall(item.name, inputOf(item)))) {
            throw failure("anchor_mismatch", `call ${callIdOf(item)} in the run's history has other arguments than the ones parked`);
          }
        }
        const resumed = await runs.resume(runId, { decisions });
        return continueFrom(agent, resumed);
      }
      // Expired: nobody answered in time. The history it left is taken once, each call
      // rejected as expired (a late decision approves nothing).
      if (run.expiredAt !== undefined) return continueFrom(agent, await runs.resume(runId, { decisions: [] }));
      // Not waiting: the runs' own answer (already_resumed, …).
      await runs.resume(runId, { decisions });
      throw failure("not_awaiting_permission", `run ${runId} is not waiting for permission`);
    },

    /** The RunState to run again from what a resume returned elsewhere (the element's
     * `toolgate-decision` detail, `gate.resume`'s result). */
    continueFrom(agent, resumed) {
      return continueFrom(agent, resumed);
    },
  };
}
