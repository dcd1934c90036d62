// toolgate/ai-sdk: a toolgate policy and durable approvals for the Vercel AI SDK
// (`ai` 7 and 6).
//
//   // v7: the policy answers the SDK's approval hook
//   generateText({ model, tools: gateTools(tools, { policy }), toolApproval: toolgatePolicy(policy), messages })
//   // v6: per-tool needsApproval, set by gateTools
//   generateText({ model, tools: gateTools(tools, { policy, needsApproval: true }), messages })
//
//   // durable: park the pending approvals of a turn, resume them anywhere, exactly once
//   const approvals = toolgateApprovals({ policy, runs: gate });   // a Gate, or httpRuns(…)
//   await approvals.park(messages, { runId });          // the turn ends: stop reason `paused`
//   const { messages } = await approvals.resume(runId, decisions);  // model messages
//   generateText({ …, messages });                      // the SDK runs or refuses each call
//
// - toolgatePolicy(policy): v7 `toolApproval`. `auto` → 'not-applicable' (the tool runs as
//   if no approval were configured: no synthetic approval parts in the history; pass
//   `{ auto: "approved" }` to record one with the rule), `ask` → 'user-approval' with the
//   reason, `deny` → { type: 'denied', reason } (the model gets the SDK's
//   `execution-denied`), a failing classification → denied.
// - gateTools(tools, { policy }): each tool's `execute` classifies its input again and
//   throws the policy's refusal on `deny`, so a hard deny never runs, even if someone
//   approved it. `needsApproval: true` also sets the v6 `needsApproval` (ask → true).
// - toolgateApprovals({ policy, runs }): `pending(messages)`, `park(messages, { runId })`
//   (model messages or useChat's UI messages; they become the marker's history),
//   `resume(runId, decisions)` (no decisions, over httpRuns: what a person decided in
//   the server's panel, taken once) and `continueFrom(resumed)`: each pending approval answered
//   from the marker's outcome, bound to the parked arguments (a history whose call has
//   other arguments than the parked ones is refused: `anchor_mismatch`). A person's
//   edit (`args` in an allow; the gate classifies it again) runs as the tool's input,
//   written into the history's call, when that input maps to the edited call. A run whose
//   marker expired comes back once with each approval answered `approved: false`,
//   "Not approved: nobody answered the permission request in time." (the model gets the
//   SDK's execution-denied with that reason, not a person's refusal).
import { callMapper, canonical, checkSetup, failure as fail, refusal, verdictFor } from "./shared.js";

const failure = (code, message) => fail("ai-sdk", code, message);
const HISTORY_KIND = "toolgate.ai-sdk";

/** v7 `toolApproval`: the policy's answer for each tool call. */
export function toolgatePolicy(policy, { tools, auto = "not-applicable" } = {}) {
  checkSetup("ai-sdk", policy, null, { needRuns: false });
  if (auto !== "not-applicable" && auto !== "approved") throw failure("bad_input", "auto must be 'not-applicable' or 'approved'");
  const toCall = callMapper(tools);
  return async ({ toolCall } = {}) => {
    const v = verdictFor(policy, () => toCall(toolCall.toolName, toolCall.input));
    if (v.error) return { type: "denied", reason: `toolgate could not judge the call: ${v.reason}` };
    if (v.tier === "auto") return auto === "approved" ? { type: "approved", reason: `toolgate auto (${v.rule}): ${v.reason}` } : "not-applicable";
    if (v.tier === "ask") return { type: "user-approval", reason: `${v.reason} (${v.rule})` };
    return { type: "denied", reason: refusal(v) };
  };
}

/** v6 `needsApproval` for one tool: true unless the policy says `auto`. Without
 * gateTools' `execute` guard a deny asks too (a person can still say no). */
export function needsApproval(policy, toolName, { tools } = {}) {
  checkSetup("ai-sdk", policy, null, { needRuns: false });
  const toCall = callMapper(tools);
  return async (input) => verdictFor(policy, () => toCall(toolName, input)).tier !== "auto";
}

/** The tools with each `execute` refusing the policy's denies (thrown: the model gets the
 * SDK's tool error with the reason). `needsApproval: true` also sets v6's `needsApproval`:
 * true for `ask` only (a deny is refused by execute without asking anyone). */
export function gateTools(tools, { policy, tools: map, needsApproval: v6 = false } = {}) {
  checkSetup("ai-sdk", policy, null, { needRuns: false });
  if (!tools || typeof tools !== "object") throw failure("bad_input", "tools must be an object of AI SDK tools");
  const toCall = callMapper(map);
  const out = {};
  for (const [name, t] of Object.entries(tools)) {
    const next = { ...t };
    if (typeof t.execute === "function") {
      next.execute = (input, options) => {
        const v = verdictFor(policy, () => toCall(name, input));
        // The model gets exactly the refusal as the tool's error.
        if (v.tier === "deny") throw Object.assign(new Error(refusal(v)), { code: "denied" });
        return t.execute(input, options);
      };
    }
    if (v6) next.needsApproval = async (input) => verdictFor(policy, () => toCall(name, input)).tier === "ask";
    out[name] = next;
  }
  return out;
}

const isUi = (messages) => messages.some((m) => Array.isArray(m?.parts));

/** The approvals in `messages` nobody answered yet: model messages (`tool-approval-request`
 * parts without a `tool-approval-response`) or UI messages (`approval-requested` parts). */
export function pendingApprovals(messages) {
  if (!Array.isArray(messages)) throw failure("bad_input", "messages must be an array");
  const out = [];
  if (isUi(messages)) {
    for (const m of messages) {
      for (const p of m?.parts ?? []) {
        const isTool = typeof p?.type === "string" && (p.type.startsWith("tool-") || p.type === "dynamic-tool");
        if (isTool && p.state === "approval-requested" && p.approval?.id) {
          out.push({ approvalId: p.approval.id, toolCallId: p.toolCallId, toolName: p.type === "dynamic-tool" ? p.toolName : p.type.slice(5), input: p.input });
        }
      }
    }
    return out;
  }
  const calls = new Map();
  const answered = new Set();
  const requests = [];
  for (const m of messages) {
    if (!Array.isArray(m?.content)) continue;
    for (const p of m.content) {
      if (m.role === "assistant" && p?.type === "tool-call") calls.set(p.toolCallId, p);
      if (m.role === "assistant" && p?.type === "tool-approval-request" && !p.isAutomatic) requests.push(p);
      if (m.role === "tool" && p?.type === "tool-approval-response") answered.add(p.approvalId);
    }
  }
  for (const r of requests) {
    if (answered.has(r.approvalId)) continue;
    const call = calls.get(r.toolCallId);
    if (!call) throw failure("bad_input", `approval ${r.approvalId} is for a tool call that is not in the messages`);
    out.push({ approvalId: r.approvalId, toolCallId: r.toolCallId, toolName: call.toolName, input: call.input, ...(r.reason ? { reason: r.reason } : {}) });
  }
  return out;
}

/** `messages` with the input of tool call `id` replaced (model or UI messages). */
function withInput(messages, id, input) {
  return messages.map((m) => {
    const key = Array.isArray(m?.parts) ? "parts" : "content";
    if (!Array.isArray(m?.[key]) || !m[key].some((p) => p?.toolCallId === id && "input" in p)) return m;
    return { ...m, [key]: m[key].map((p) => (p?.toolCallId === id && "input" in p ? { ...p, input } : p)) };
  });
}

function readHistory(text) {
  let doc;
  try {
    doc = JSON.parse(text);
  } catch {
    doc = null;
  }
  if (!doc || doc.kind !== HISTORY_KIND || !Array.isArray(doc.messages)) {
    throw failure("bad_history", "the run's history is not an AI SDK history parked by toolgate/ai-sdk");
  }
  return doc.messages;
}

/** Durable approvals over toolgate runs (a Gate, or httpRuns(…)). */
export function toolgateApprovals({ policy, runs, tools } = {}) {
  checkSetup("ai-sdk", policy, runs);
  const toCall = callMapper(tools);

  function continueFrom(resumed) {
    let messages = readHistory(resumed.history);
    const results = new Map(resumed.results.map((r) => [r.toolCallId, r]));
    const responses = pendingApprovals(messages).map((a) => {
      const result = results.get(a.toolCallId);
      const call = toCall(a.toolName, a.input);
      let v = verdictFor(policy, call);
      let approved = false;
      let reason;
      // A person's edit: the history holds the parked call (`editedFrom`); the tool runs
      // with the edited arguments as its input, written into the history's call, when
      // that input maps to exactly the edited call and the policy does not deny it.
      const edited = result?.outcome === "approved" && result.editedFrom !== undefined;
      const parked = edited ? { tool: result.tool, args: result.editedFrom } : result;
      if (edited && v.tier !== "deny") v = verdictFor(policy, { tool: result.tool, args: result.args });
      if (v.tier === "deny") reason = refusal(v);
      else if (!result) reason = "Not approved: this call was not decided.";
      else if (result.outcome === "expired") reason = result.toolResult ?? "Not approved: nobody answered the permission request in time.";
      else if (canonical({ tool: parked.tool, args: parked.args }) !== canonical(call)) reason = "Not approved: the arguments differ from the ones decided.";
      else if (edited && canonical(toCall(a.toolName, result.args)) !== canonical({ tool: result.tool, args: result.args })) {
        reason = "Not approved: this tool's input cannot take the edited arguments.";
      } else if (result.outcome === "approved") {
        approved = true;
        if (edited) messages = withInput(messages, a.toolCallId, result.args);
      } else reason = result.toolResult ?? "User refused permission.";
      return { id: a.approvalId, approved, ...(reason ? { reason } : {}) };
    });
    if (isUi(messages)) return { kind: "ui", messages, responses };
    const answer = {
      role: "tool",
      content: responses.map((r) => ({ type: "tool-approval-response", approvalId: r.id, approved: r.approved, ...(r.reason ? { reason: r.reason } : {}) })),
    };
    return { kind: "model", messages: [...messages, answer], responses };
  }

  return {
    pending: pendingApprovals,

    /** Parks the pending approvals of `messages` in one permission marker (the messages are
     * its history): `{status: "parked", run, stopReason}`, or `{status: "none"}` when
     * nothing waits for a person. */
    async park(messages, { runId, sessionId, ttlMs } = {}) {
      if (typeof runId !== "string" || runId === "") throw failure("bad_input", "runId is required");
      const pending = pendingApprovals(messages);
      if (pending.length === 0) return { status: "none" };
      const calls = pending.map((a) => ({ toolCallId: a.toolCallId, ...toCall(a.toolName, a.input) }));
      const parked = await runs.park({
        runId,
        calls,
        history: JSON.stringify({ kind: HISTORY_KIND, v: 1, messages }),
        ...(sessionId ? { sessionId } : {}),
        ...(ttlMs ? { ttlMs } : {}),
      });
      return { status: "parked", run: parked.run, stopReason: parked.stopReason };
    },

    /** Resumes `runId` with the person's decisions (`[{toolCallId, anchor, decision,
     * message?, scope?}]`), exactly once: `{kind, messages, responses}`. For model
     * messages `messages` ends with the `tool-approval-response`s (pass it to
     * generateText/streamText); for UI messages restore `messages` and call
     * `addToolApprovalResponse(r)` for each of `responses`. */
    async resume(runId, decisions = []) {
      // No decisions: take what a person decided elsewhere (the server's panel) or what
      // expiry left, once.
      if (decisions.length === 0) return continueFrom(await runs.resume(runId, { decisions: [] }));
      const run = await runs.run(runId);
      if (!run) throw failure("not_found", `no run ${runId}`);
      if (run.marker) {
        const byId = new Map(pendingApprovals(readHistory(run.marker.history)).map((a) => [a.toolCallId, a]));
        for (const c of run.marker.calls) {
          const a = byId.get(c.toolCallId);
          if (!a || canonical(toCall(a.toolName, a.input)) !== canonical({ tool: c.tool, args: c.args })) {
            throw failure("anchor_mismatch", `call ${c.toolCallId} in the run's history has other arguments than the ones parked`);
          }
        }
        return continueFrom(await runs.resume(runId, { decisions }));
      }
      // Expired: nobody answered in time. The history it left is taken once, each call
      // not approved because it expired (a late decision approves nothing).
      if (run.expiredAt !== undefined) return continueFrom(await runs.resume(runId, { decisions: [] }));
      await runs.resume(runId, { decisions });
      throw failure("not_awaiting_permission", `run ${runId} is not waiting for permission`);
    },

    /** The same answer from a resume made elsewhere (the element's `toolgate-decision`). */
    continueFrom,
  };
}
