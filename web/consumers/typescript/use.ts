// A consumer of the toolgate package that names every exported type: type-checked by
// web/e2e/package.test.mjs (tsc, strict, nodenext) against the installed tarball.
import init, {
  Policy, Gate, loadPolicyReader,
  type Verdict, type VerdictPart, type Tier, type ToolCall, type CheckCall, type CheckOutcome,
  type PendingRequest, type PendingQuestion, type QuestionOutcome, type PendingResponse, type CleanupCounts,
  type GateOptions, type PolicyDefaults, type AskOptions, type ToolgateError, type FsNeeds, type FsTree,
  type FsFacts, type Run, type RunStatus, type Parked, type ParkCall, type ParkRequest, type ParkedCall,
  type PermissionMarker, type ResumeDecision, type ResumeRequest, type Resumed, type ResumedCall,
  type ResumeGuarantee, type RunsChange, type RunDecision, type Grant,
} from "toolgate";

await init();
// A browser loads the .wasm from a fetch Response (the DOM's `Response`, which no
// exported type may shadow).
export async function initFromFetch(url: URL): Promise<void> {
  await init({ module_or_path: fetch(url) });
}
// A policy file: the policy reader first (a no-op after the first time; Node needs none).
export async function policyFromFile(text: string): Promise<Policy> {
  await loadPolicyReader();
  return Policy.fromToml(text);
}
export async function readerFromFetch(url: URL): Promise<void> {
  await loadPolicyReader(fetch(url));
}
const defaults: PolicyDefaults = { workspace: "/w", home: "/h" };
const policy: Policy = Policy.defaults(defaults);
const call: ToolCall = { tool: "bash", args: { command: "ls" } };
const verdict: Verdict = policy.classify(call);
const verdicts: Verdict[] = policy.classifyMany([call, { tool: "read", args: { path: "a.rs" } }]);
void verdicts;
const tier: Tier = verdict.tier;
const parts: VerdictPart[] = verdict.parts ?? [];
const needs: FsNeeds = policy.fsNeeds(call);
const trees: FsTree[] = needs.trees;
const facts: FsFacts = { links: {}, trees: [] };
policy.classifyWithFacts(call, facts);
const options: GateOptions = { sessionId: "s" };
const gate = new Gate(policy, options);
const check: CheckCall = { ...call, toolCallId: "c1" };
const outcome: CheckOutcome = await gate.check(check);
const pending: PendingRequest[] = gate.pending();
const questions: PendingQuestion[] = gate.questions();
const ask: AskOptions = { timeoutMs: 1000 };
const answer: Promise<QuestionOutcome> = gate.ask("?", ask);
const response: PendingResponse = { decision: "deny", anchor: "x", message: "no" };
try { gate.respond("id", response); } catch (e) { const err = e as ToolgateError; console.log(err.code); }
const counts: CleanupCounts = gate.cleanup();
const parkCall: ParkCall = { toolCallId: "p1", tool: "bash", args: { command: "make" } };
const req: ParkRequest = { runId: "r1", calls: [parkCall], history: "[]" };
const parked: Parked = gate.park(req);
const run: Run | null = gate.run("r1");
const status: RunStatus | undefined = run?.status;
const decided: RunDecision | undefined = run?.decision;
const marker: PermissionMarker | undefined = run?.marker ?? undefined;
const parkedCall: ParkedCall | undefined = marker?.calls[0];
const decision: ResumeDecision = { toolCallId: "p1", anchor: parkedCall?.anchor ?? "", decision: "allow" };
const resumeReq: ResumeRequest = { decisions: [decision] };
const resumed: Resumed = await gate.resume("r1", resumeReq);
const results: ResumedCall[] = resumed.results;
const grants: Grant[] = gate.grants();
const revoked: boolean = await gate.revokeGrant(grants[0]?.id ?? "none");
const settled: Resumed | null = await gate.settleWithGrants("r1");
const question: ParkCall = { toolCallId: "q1", tool: "ask_user", question: "Which branch?" };
const guarantee: ResumeGuarantee = gate.resumeGuarantee;
const off = gate.onRunsChange((change: RunsChange) => console.log(change.runId));
off();
console.log(decided, tier, parts, trees, outcome, pending, questions, answer, counts, parked, status, results, guarantee, revoked, settled, question);

// toolgate/opencode: the OpenCode plugin module, its options and hooks typed.
import opencodePlugin, { type ToolgateOpenCodeOptions, type ToolgateOpenCodeHooks } from "toolgate/opencode";
const ocOptions: ToolgateOpenCodeOptions = { command: "toolgate hook opencode", timeoutMs: 30_000 };
const ocHooks: ToolgateOpenCodeHooks = await opencodePlugin.server({ directory: "/w", worktree: "/w" }, ocOptions);
const ocOutput = { args: { command: "ls" } };
await ocHooks["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c" }, ocOutput);
const ocId: "toolgate" = opencodePlugin.id;
console.log(ocId, ocOutput.args.command);
