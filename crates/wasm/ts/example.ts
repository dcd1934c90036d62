// Type-checks the published declarations: `tsc --noEmit -p crates/wasm/ts` after
// `wasm-bindgen --target web` wrote pkg/ (see scripts/wasm-size / scripts/ts-check).
import init, {
  Policy,
  Gate,
  type CheckOutcome,
  type PendingRequest,
  type QuestionOutcome,
  type Verdict,
  type ToolgateError,
  type CleanupCounts,
} from "./pkg/toolgate_wasm.js";

export async function demo(policyText: string): Promise<void> {
  await init();
  const policy: Policy = policyText ? Policy.fromToml(policyText) : Policy.defaults({ workspace: "/w", home: "/home/u" });
  const verdict: Verdict = policy.classify({ tool: "bash", args: { command: "rm -rf build" } });
  const scopes: string[] = policy.scopes({ tool: "bash", args: { command: "git push origin main" } });
  console.log(verdict.tier, verdict.reason, verdict.span?.[0], scopes.length);

  const gate = new Gate(policy, { sessionId: "s-1", timeoutMs: 120_000 });
  const off: () => void = gate.onChange(() => {
    const pending: PendingRequest[] = gate.pending();
    for (const p of pending) console.log(p.id, p.tool, p.verdict.tier, p.deadlineMs - p.createdMs, p.scopes);
  });

  const checking: Promise<CheckOutcome> = gate.check({ tool: "bash", args: { command: "make deploy" }, toolCallId: "call_1" });
  const [first] = gate.pending();
  if (first) {
    try {
      const settled: number = gate.respond(first.id, { decision: "allow_always", anchor: first.anchor, scope: first.scopes[0] ?? "" });
      console.log(settled);
    } catch (e) {
      const err = e as ToolgateError;
      console.log(err.code, err.message);
    }
  }
  const outcome = await checking;
  if (outcome.outcome === "denied") console.log(outcome.message);
  if (outcome.outcome === "approved") gate.afterToolCall("call_1");

  const answer: Promise<QuestionOutcome> = gate.ask("Which branch?", { timeoutMs: 60_000 });
  void gate.ask("Anything else?");
  const q = gate.questions()[0];
  if (q) gate.answer(q.id, "main");
  const a = await answer;
  if (a.outcome === "answered") console.log(a.answer.toUpperCase());

  gate.denyAllPending("the user sent a new message");
  const counts: CleanupCounts = gate.cleanup();
  const stale: CleanupCounts = gate.cleanupStale(60_000);
  console.log(counts.approvals + stale.questions, gate.size, gate.pendingTimers, gate.sessionId);
  off();
  gate.dispose();
  policy.free();
}
