// An ACP agent and client of the real SDK, connected in memory. The agent parks each
// tool call in a toolgate Gate and asks its client with toolgate/acp's request; the
// client turns the request into a toolgate call, classifies it, and answers with
// toolgate/acp's response for a scripted person's outcome; the agent maps the answer
// back and resumes the Gate (or not). Prints `ok   …` / `FAIL …` lines; exits 1 on a failure.
import { agent, client, methods, PROTOCOL_VERSION } from "@agentclientprotocol/sdk";

// Node 20 has no Web Storage, where a Gate keeps its parked runs: a Map behind the
// Storage interface stands in for this one process (what is tested here is the ACP
// mapping; durable runs for Node agents are the server's).
if (!("localStorage" in globalThis)) {
  class Storage {
    #items = new Map();
    get length() { return this.#items.size; }
    key(i) { return [...this.#items.keys()][i] ?? null; }
    getItem(k) { return this.#items.has(String(k)) ? this.#items.get(String(k)) : null; }
    setItem(k, v) { this.#items.set(String(k), String(v)); }
    removeItem(k) { this.#items.delete(String(k)); }
    clear() { this.#items.clear(); }
  }
  globalThis.Storage = Storage;
  globalThis.localStorage = new Storage();
}
const { Gate, Policy } = await import("toolgate");
import { decisionFromResponse, permissionRequest, responseFromOutcome, toolCallFromRequest } from "toolgate/acp";

let failed = 0;
const check = (name, cond, detail) => {
  if (!cond) failed++;
  console.log(`${cond ? "ok  " : "FAIL"} ${name}${cond ? "" : `: ${JSON.stringify(detail)}`}`);
};

const policy = Policy.defaults({ workspace: "/w", home: "/home/u" });
const gate = new Gate(policy, { sessionId: "acp", owner: "me" });

// What the scripted person answers, per prompt; what the agent saw, per prompt.
const script = {
  approve: { outcome: "approved" },
  always: { outcome: "approved", scope: "Bash(npm publish)" },
  deny: { outcome: "denied", message: "not before the release notes" },
  expired: { outcome: "expired" },
  cancelled: { outcome: "cancelled" },
  forged: "forged",
};
const seen = {};
const clientSaw = {};

const agentApp = agent({ name: "toolgate-acp-test-agent" })
  .onRequest(methods.agent.initialize, () => ({ protocolVersion: PROTOCOL_VERSION, agentCapabilities: {} }))
  .onRequest(methods.agent.session.new, () => ({ sessionId: "session-1" }))
  .onRequest(methods.agent.session.prompt, async ({ params, client: peer }) => {
    const scenario = params.prompt[0].text;
    const runId = `run-${scenario}`;
    const parked = gate.park({ runId, calls: [{ toolCallId: `call-${scenario}`, tool: "bash", args: { command: "npm publish" } }], history: JSON.stringify({ scenario }) });
    const call = parked.run.marker.calls[0];
    const request = permissionRequest(params.sessionId, { ...call, scopes: policy.scopes({ tool: call.tool, args: call.args }) }, { kind: "execute" });
    const answer = await peer.request(methods.client.session.requestPermission, request);
    let mapped;
    try {
      mapped = decisionFromResponse(request, answer);
    } catch (e) {
      mapped = { error: e.code };
    }
    let resumed = null;
    if (mapped.outcome === "decided") resumed = await gate.resume(runId, { decisions: [mapped.decision] });
    seen[scenario] = { request, answer, mapped, resumed, run: gate.run(runId) };
    return { stopReason: "end_turn" };
  });

const clientApp = client({ name: "toolgate-acp-test-client" })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    const call = toolCallFromRequest(params);
    const verdict = policy.classify({ tool: call.tool, args: call.args });
    const outcome = script[params.toolCall.toolCallId.replace(/^call-/, "")];
    clientSaw[params.toolCall.toolCallId] = { call, verdict };
    if (outcome === "forged") return { outcome: { outcome: "selected", optionId: "allow-everything-forever" } };
    return responseFromOutcome(params, outcome);
  });

await clientApp.connectWith(agentApp, async (ctx) => {
  await ctx.request(methods.agent.initialize, { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} });
  const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: "/w", mcpServers: [] });
  for (const scenario of Object.keys(script)) {
    await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: scenario }] });
  }
});

const kinds = seen.approve.request.options.map((o) => o.kind);
check("the request offers allow_once, allow_always per offered scope, reject_once", JSON.stringify(kinds) === JSON.stringify(["allow_once", "allow_always", "allow_always", "reject_once"]) && seen.approve.request.options[1].name === "Always allow Bash(npm publish)", seen.approve.request.options);
const noScopes = permissionRequest("s", { toolCallId: "c", tool: "bash", args: { command: "x" }, anchor: "a" }).options.map((o) => o.kind);
check("no scope offered: no allow_always option", JSON.stringify(noScopes) === JSON.stringify(["allow_once", "reject_once"]), noScopes);
check("the client reads the request as the bash call it is and classifies it (ask)", clientSaw["call-approve"].call.tool === "bash" && clientSaw["call-approve"].call.args.command === "npm publish" && clientSaw["call-approve"].verdict.tier === "ask", clientSaw["call-approve"]);
check("approved → allow_once → gate.resume approves, once", seen.approve.answer.outcome.optionId === "toolgate.allow_once" && seen.approve.resumed.results[0].outcome === "approved" && seen.approve.run.status === "running", seen.approve.answer);
check("approved with a scope → allow_always → the decision carries the scope", seen.always.answer.outcome.optionId === "toolgate.allow_always.0" && seen.always.mapped.decision.scope === "Bash(npm publish)" && seen.always.resumed.results[0].scope === "Bash(npm publish)", seen.always.mapped);
check("denied → reject_once → a denial with the person's message reaches the model", seen.deny.answer.outcome.optionId === "toolgate.reject_once" && seen.deny.resumed.results[0].toolResult === "User refused permission: not before the release notes", seen.deny.resumed?.results);
check("expired → a reject option marked expired → not a denial, nothing resumed, the run still waits", seen.expired.answer._meta.toolgate.outcome === "expired" && seen.expired.mapped.outcome === "expired" && seen.expired.resumed === null && seen.expired.run.status === "awaiting_permission", seen.expired.mapped);
check("cancelled → ACP's cancelled → cancelled, nothing resumed", seen.cancelled.answer.outcome.outcome === "cancelled" && seen.cancelled.mapped.outcome === "cancelled" && seen.cancelled.resumed === null, seen.cancelled.mapped);
check("an option id that was not offered is an error (bad_input), never an approval", seen.forged.mapped.error === "bad_input" && seen.forged.resumed === null && seen.forged.run.status === "awaiting_permission", seen.forged.mapped);
const never = ["expired", "cancelled"].map((o) => responseFromOutcome(seen.approve.request, { outcome: o }).outcome.optionId).filter(Boolean);
check("expired and cancelled never select an allow option", never.every((id) => !id.includes("allow")), never);
let threw = null;
try {
  responseFromOutcome(seen.approve.request, { outcome: "maybe" });
} catch (e) {
  threw = e.code;
}
check("an unknown toolgate outcome is an error", threw === "bad_input", threw);
// An agent's own allow_always (its breadth is the agent's): a granted scope answers
// allow_once (toolgate keeps the grant); offered alone, no allow is selected at all.
const agentOptions = [
  { optionId: "agent-always", name: "Always allow npm", kind: "allow_always" },
  { optionId: "agent-once", name: "Allow", kind: "allow_once" },
  { optionId: "agent-reject", name: "Reject", kind: "reject_once" },
];
const narrowed = responseFromOutcome({ options: agentOptions }, { outcome: "approved", scope: "Bash(npm publish)" });
check("a grant answers an agent's own allow_always option with allow_once (it may reach further than the grant)",
  narrowed.outcome.optionId === "agent-once" && narrowed._meta.toolgate.scope === "Bash(npm publish)", narrowed);
let wide = null;
try {
  responseFromOutcome({ options: [agentOptions[0], agentOptions[2]] }, { outcome: "approved", scope: "Bash(npm publish)" });
} catch (e) {
  wide = e.code;
}
check("offered only the agent's allow_always, an approval is an error, never that wider allow", wide === "bad_input", wide);
console.log(`acp roundtrip: ${failed ? "FAILED" : "all passed"}`);
process.exit(failed ? 1 : 0);
