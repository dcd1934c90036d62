// Type-checks the published declarations: `tsc --noEmit -p crates/wasm/ts` after
// `wasm-bindgen --target web` wrote pkg/ (see scripts/wasm-size / scripts/ts-check).
import init, {
  Policy,
  Gate,
  type CheckOutcome,
  type PendingRequest,
  type QuestionOutcome,
  type Verdict,
  type FsFacts,
  type FsNeeds,
  type FsTree,
  type ToolgateError,
  type CleanupCounts,
  type Parked,
  type ParkRequest,
  type ResumeDecision,
  type Resumed,
  type ResumeGuarantee,
  type Run,
  type RunStatus,
  type RunsChange,
} from "./pkg/toolgate_wasm.js";

export async function demo(policyText: string): Promise<void> {
  await init();
  const policy: Policy = policyText ? Policy.fromToml(policyText) : Policy.defaults({ workspace: "/w", home: "/home/u" });
  const verdict: Verdict = policy.classify({ tool: "bash", args: { command: "rm -rf build" } });
  const scopes: string[] = policy.scopes({ tool: "bash", args: { command: "git push origin main" } });
  console.log(verdict.tier, verdict.reason, verdict.span?.[0], scopes.length);

  // A host with a file system looks up what a verdict depends on.
  const call = { tool: "bash", args: { command: "rg TODO src" } };
  const needs: FsNeeds = policy.fsNeeds(call);
  const facts: FsFacts = {
    links: {},
    trees: needs.trees.map((t: FsTree) => ({ ...t, files: [`${t.root}/a.py`] })),
  };
  const checked: Verdict = policy.classifyWithFacts(call, facts);
  console.log(needs.paths.length, checked.tier);

  const gate = new Gate(policy, { sessionId: "s-1", timeoutMs: 120_000 });
  const off: () => void = gate.onChange(() => {
    const pending: PendingRequest[] = gate.pending();
    for (const p of pending) console.log(p.id, p.tool, p.verdict.tier, p.deadlineMs - p.createdMs, p.scopes);
  });

  const checking: Promise<CheckOutcome> = gate.check({ tool: "bash", args: { command: "make deploy" }, toolCallId: "call_1" });
  const withFacts: Promise<CheckOutcome> = gate.check({ ...call, facts });
  void withFacts;
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

/** A host agent loop that parks a run for approval, and resumes it — possibly after a
 * reload, or in another tab: everything it needs is in localStorage. */
export async function parkAndResume(policy: Policy, messages: unknown[]): Promise<void> {
  await init();
  const gate = new Gate(policy, { sessionId: "s-1", owner: "alice", locks: true });
  // Other tabs' parks and resumes arrive here at once; polling gate.runs() stays the truth.
  const offRuns: () => void = gate.onRunsChange((change: RunsChange) => {
    const status: RunStatus = change.status;
    console.log(change.runId, status, change.revision, change.source === "remote");
  });

  // The model asked for two tool calls the policy puts at `ask`: end the turn.
  const request: ParkRequest = {
    runId: "r-1",
    calls: [
      { toolCallId: "call_1", tool: "bash", args: { command: "python deploy.py" } },
      { toolCallId: "call_2", tool: "write", args: { path: "/tmp/notes.txt", content: "hi" } },
    ],
    history: JSON.stringify(messages),
  };
  try {
    const parked: Parked = gate.park(request);
    if (parked.stopReason === "paused") console.log("turn ended; waiting for a person");
  } catch (e) {
    const err = e as ToolgateError;
    // quota_exceeded | history_too_large | bad_park | store_unavailable | …
    console.log(err.code, err.message);
    return;
  }

  // Later (same tab, after a reload, or another tab): render the prompt from the marker.
  const run: Run | null = gate.run("r-1");
  if (run?.status !== "awaiting_permission" || !run.marker) return;
  for (const call of run.marker.calls) {
    console.log(call.tool, JSON.stringify(call.args), call.tier, call.reason, call.span?.[0]);
  }
  console.log(new Date(run.marker.expiresAt).toISOString());
  const decisions: ResumeDecision[] = run.marker.calls.map((call, i) =>
    i === 0
      ? { toolCallId: call.toolCallId, anchor: call.anchor, decision: "allow" }
      : { toolCallId: call.toolCallId, anchor: call.anchor, decision: "deny", message: "not that file" },
  );
  // "indexeddb": exactly once across processes; "same-process": see resumeGuaranteeReason.
  const guarantee: ResumeGuarantee = await gate.resumeGuaranteeReady();
  if (guarantee === "same-process") console.warn(gate.resumeGuarantee, gate.resumeGuaranteeReason);
  try {
    const resumed: Resumed = await gate.resume("r-1", { decisions });
    const history = JSON.parse(resumed.history) as unknown[];
    for (const r of resumed.results) {
      if (r.outcome === "approved") console.log("run", r.tool, r.args);
      else history.push({ role: "tool", tool_call_id: r.toolCallId, content: r.toolResult });
    }
  } catch (e) {
    const err = e as ToolgateError;
    if (err.code === "already_resumed") console.log("another tab resumed it");
    else if (err.code === "expired") console.log("nobody decided in time");
    else throw e;
  }

  const all: Run[] = gate.runs();
  for (const r of all) if (r.status === "failed") console.log(r.runId, r.lastError);
  const failed: Run = gate.failRun("r-1", "the tool crashed");
  console.log(failed.status, gate.owner, gate.usesLocks, gate.channelOpen, gate.runsListenerCount);
  gate.forgetRun("r-1");
  const prunedRuns: number = gate.pruneRuns(7 * 24 * 3600 * 1000);
  const offGone = gate.onRunsChange((c: RunsChange) => {
    if (c.gone) console.log(c.runId, "deleted", prunedRuns);
  });
  offGone();
  const pruned: number = await gate.pruneResumeClaims();
  console.log(pruned, gate.claimsOpen);
  offRuns();
  gate.dispose();
}
