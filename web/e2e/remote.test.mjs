// Remote answers: `toolgate hook claude-code --event permission-request --server URL`
// (the real binary, target/debug/toolgate) against the real toolgate-server on a SQLite
// file, with Claude Code's PermissionRequest input on stdin, answered through the
// server's panel API (what the panel calls) by approver tokens:
// - approved by a click in the server's panel (Chromium, the approver signed in) while
//   the hook waits → `allow`, saying by whom; the same through the panel's API; the
//   run is taken once (a second take is refused);
// - approved with an edit → `allow` with `updatedInput` (Claude Code); an edit into a
//   denied command refused by the server; a host that cannot replace the input asks;
// - denied with a message → `deny` with it;
// - nobody answers within --wait-ms → no decision (Claude Code's own prompt asks), the
//   run expired on the server, a late decision refused;
// - two devices at once → exactly one decision is accepted, and the hook answers it;
// - answered in Claude Code's own prompt meanwhile (the call's result in its transcript)
//   → the parked run is cancelled, the audit says so, and the hook stops waiting;
// - the server down, or a wrong token → no decision, never an allow;
// - a call the policy denies → `deny` at once, nothing parked;
// - a run parked from Python (`toolgate.RunStore`, the wheel scripts/python-test installs)
//   approved with a click in the panel, taken once from Python.
//   node web/e2e/remote.test.mjs
import { execFileSync, spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checker, launchChromium } from "./checks.mjs";
import { api, startServer } from "./server-proc.mjs";
import { ROOT } from "./tarball.mjs";

const { check, finish } = checker();
const TARGET = process.env.CARGO_TARGET_DIR ?? join(ROOT, "target");
const toolgate = join(TARGET, "debug", "toolgate");
const work = mkdtempSync(join(tmpdir(), "toolgate-remote-"));
const AGENT = "agent-secret-0123456789";
const PHONE = "phone-secret-0123456789";
const LAPTOP = "laptop-secret-0123456789";
const tokenFile = join(work, "agent.token");
writeFileSync(tokenFile, `${AGENT}\n`);

/** Claude Code's PermissionRequest input (as 2.1.332 sends it) for a Bash command. */
const input = (command) =>
  JSON.stringify({
    session_id: "sess-remote-1",
    transcript_path: join(work, "t.jsonl"),
    cwd: work,
    permission_mode: "default",
    hook_event_name: "PermissionRequest",
    tool_name: "Bash",
    tool_input: { command, description: "x" },
    permission_suggestions: [],
  });

/** Runs the hook (for `host`, default Claude Code): `{ code, out, json, ms }`. */
function hook(stdin, { server, waitMs = 20_000, tokenPath = tokenFile, host = "claude-code" } = {}) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const args = ["hook", host, "--event", "permission-request", "--server", server, "--token-file", tokenPath, "--wait-ms", String(waitMs)];
    const child = spawn(toolgate, args, { cwd: work, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code) => {
      let json = null;
      try {
        json = JSON.parse(out);
      } catch {}
      resolve({ code, out, err, json, ms: Date.now() - t0 });
    });
    child.stdin.end(stdin);
  });
}

/** The run the hook parked for `command`, as an approver sees it (polled up to 10 s). */
async function parked(url, token, command) {
  for (let i = 0; i < 100; i++) {
    const runs = (await api(url, "GET", "v1/runs?status=awaiting_permission", token)).json?.runs ?? [];
    const run = runs.find((r) => r.marker?.calls?.[0]?.args?.command === command);
    if (run) return run;
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}

const decide = (url, token, run, decision, message, args) =>
  api(url, "POST", `v1/runs/${run.runId}/decisions`, token, {
    decisions: [{ toolCallId: "c1", anchor: run.marker.calls[0].anchor, decision, ...(message ? { message } : {}), ...(args ? { args } : {}) }],
  });

const behavior = (r) => r.json?.hookSpecificOutput?.decision?.behavior;

// The panel the server serves (scripts/build-panel: the element's bundle and page).
const panel = execFileSync(join(ROOT, "scripts", "build-panel"), [join(work, "panel")], { cwd: ROOT, encoding: "utf8" }).trim();
const server = await startServer({
  args: ["--panel", panel],
  db: join(work, "runs.db"),
  tokens: [
    { name: "ci-agent", owner: "alice", roles: ["agent"], token: AGENT },
    { name: "alice-phone", owner: "alice", roles: ["approver"], token: PHONE },
    { name: "alice-laptop", owner: "alice", roles: ["approver"], token: LAPTOP },
  ],
});
let browser;
try {
  const url = server.url;
  // Approved by a click in the panel, in a browser signed in as the phone.
  {
    browser = await launchChromium();
    const page = await (await browser.newContext()).newPage();
    await page.goto(url);
    await page.getByTestId("token").fill(PHONE);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByTestId("who").waitFor({ state: "visible", timeout: 10_000 });
    const command = "touch clicked-marker";
    const running = hook(input(command), { server: url, waitMs: 30_000 });
    const run = await parked(url, PHONE, command);
    const prompt = page.locator(`article[data-run-id="${run?.runId}"]`);
    await prompt.waitFor({ timeout: 15_000 });
    const shown = await prompt.getByTestId("tool-args").textContent();
    await prompt.getByTestId("approve-once").click();
    const r = await running;
    check("the panel in a browser shows Claude Code's prompt with the command; a click on Approve → the hook answers allow, saying who",
      shown.includes(command) && behavior(r) === "allow" && /by alice-phone/.test(r.json?.systemMessage ?? ""), { shown, r });
    await browser.close();
    browser = null;
  }
  // A run parked from Python (toolgate.RunStore on the server's own SQLite file, the
  // package scripts/python-test installed) is shown in the panel in a browser and
  // approved with a click; Python takes the approval once.
  {
    const py = join(TARGET, "py-test", "bin", "python");
    const pyRun = (code) => {
      try {
        return JSON.parse(execFileSync(py, ["-c", `import json, toolgate\nstore = toolgate.RunStore(${JSON.stringify(`sqlite:${join(work, "runs.db")}`)}, owner="alice", name="py-agent")\n${code}`], { encoding: "utf8" }).trim().split("\n").pop());
      } catch (e) {
        return { error: String(e.stderr ?? e.message) };
      }
    };
    const parkedPy = pyRun(`p = toolgate.Policy.defaults(workspace="/home/dev/app", home="/home/dev")\nprint(json.dumps(store.park(p, "py-run-1", [{"toolCallId": "c1", "tool": "bash", "args": {"command": "make deploy"}}], "[]")["run"]["status"]))`);
    check("a run parked from Python on the server's database waits for a person", parkedPy === "awaiting_permission", parkedPy);
    browser = await launchChromium();
    const page = await (await browser.newContext()).newPage();
    await page.goto(url);
    await page.getByTestId("token").fill(PHONE);
    await page.getByRole("button", { name: "Sign in" }).click();
    const prompt = page.locator('article[data-run-id="py-run-1"]');
    await prompt.waitFor({ timeout: 15_000 });
    const shown = await prompt.getByTestId("tool-args").textContent();
    await prompt.getByTestId("approve-once").click();
    let taken = null;
    for (let i = 0; i < 50 && !(taken?.[0]?.outcome); i++) {
      await new Promise((r) => setTimeout(r, 200));
      taken = pyRun(`try:\n    print(json.dumps(store.take("py-run-1")["results"]))\nexcept toolgate.ToolgateError as e:\n    print(json.dumps({"error": e.code}))`);
    }
    const again = pyRun(`try:\n    store.take("py-run-1"); print(json.dumps("taken twice"))\nexcept toolgate.ToolgateError as e:\n    print(json.dumps(e.code))`);
    check("the panel in a browser shows the run parked from Python; a click on Approve → Python takes the approval, once",
      shown.includes("make deploy") && taken?.[0]?.outcome === "approved" && again === "already_resumed", { shown, taken, again });
    await browser.close();
    browser = null;
  }
  // Approved on the phone while the hook waits.
  {
    const command = "touch approved-marker";
    const running = hook(input(command), { server: url });
    const run = await parked(url, PHONE, command);
    check("the host's prompt is parked on the server: the panel lists it with the command", run !== null, run);
    const d = run ? await decide(url, PHONE, run, "allow") : null;
    const r = await running;
    check("approved in the panel → the hook answers allow, saying who approved it",
      d?.status === 200 && behavior(r) === "allow" && /approved in toolgate's panel by alice-phone/.test(r.json?.systemMessage ?? ""), { d: d?.json, r });
    const again = run ? await api(url, "POST", `v1/runs/${run.runId}/resume`, AGENT, {}) : null;
    check("the decision was taken once: a second take is refused", again?.status === 409, again?.json);
  }
  // Approved with an edit: Claude Code runs the edited input (`updatedInput`); an edit
  // the server's policy denies is refused there and the hook keeps waiting; another host
  // (Copilot CLI, whose answer cannot replace the input) asks instead.
  {
    const command = "touch edit-marker";
    const running = hook(input(command), { server: url });
    const run = await parked(url, PHONE, command);
    const bad = run ? await decide(url, PHONE, run, "allow", null, { command: "rm -rf /", description: "x" }) : null;
    const d = run ? await decide(url, PHONE, run, "allow", null, { command: "touch edit-marker-2", description: "x" }) : null;
    const r = await running;
    const out = r.json?.hookSpecificOutput?.decision;
    check("an edit into a denied command is refused by the server (422 edit_refused); an allowed edit → the hook answers allow with updatedInput, the edited input",
      bad?.status === 422 && bad?.json?.error?.code === "edit_refused" && d?.status === 200 &&
        out?.behavior === "allow" && out?.updatedInput?.command === "touch edit-marker-2" && /edited/.test(r.json?.systemMessage ?? ""),
      { bad: bad?.json, d: d?.json, r });
    const copilotInput = JSON.stringify({ hookName: "permissionRequest", sessionId: "cp-edit", timestamp: 1, cwd: work, toolName: "bash", toolInput: { command: "touch copilot-edit-marker" }, permissionSuggestions: [] });
    const other = hook(copilotInput, { server: url, host: "copilot" });
    const crun = await parked(url, PHONE, "touch copilot-edit-marker");
    const cd = crun ? await decide(url, PHONE, crun, "allow", null, { command: "touch copilot-edit-marker-2" }) : null;
    const cr = await other;
    check("an edited approval for a host that cannot run it in place of the call → no allow (the host asks)",
      cd?.status === 200 && cr.code === 0 && cr.json?.behavior !== "allow" && !JSON.stringify(cr.json ?? {}).includes("edit-marker-2"), { cd: cd?.json, cr });
  }
  // Denied with a message.
  {
    const command = "touch denied-marker";
    const running = hook(input(command), { server: url });
    const run = await parked(url, LAPTOP, command);
    const d = run ? await decide(url, LAPTOP, run, "deny", "not on main") : null;
    const r = await running;
    check("denied in the panel → the hook answers deny with the person's message and who",
      d?.status === 200 && behavior(r) === "deny" && /alice-laptop: not on main/.test(r.json?.hookSpecificOutput?.decision?.message ?? ""), { r });
  }
  // Nobody answers: the host's own prompt.
  {
    const command = "touch unanswered-marker";
    const running = hook(input(command), { server: url, waitMs: 1500 });
    const run = await parked(url, PHONE, command);
    const r = await running;
    check("nobody answers within --wait-ms → no decision (Claude Code's prompt asks), a note for the person",
      r.code === 0 && r.json && !r.json.hookSpecificOutput && /nobody answered/.test(r.json.systemMessage ?? ""), r);
    const late = run ? await decide(url, PHONE, run, "allow") : null;
    check("a decision after the wait decides nothing (the run expired)", late && late.status >= 400, late?.json);
  }
  // Two devices at once: one decision wins.
  {
    const command = "touch raced-marker";
    const running = hook(input(command), { server: url });
    const run = await parked(url, PHONE, command);
    const [a, b] = run ? await Promise.all([decide(url, PHONE, run, "allow"), decide(url, LAPTOP, run, "deny", "no")]) : [];
    const r = await running;
    const won = a?.status === 200 ? "allow" : b?.status === 200 ? "deny" : null;
    check("two devices at once → exactly one decision is accepted, and the hook answers that one",
      [a?.status, b?.status].filter((s) => s === 200).length === 1 && behavior(r) === won, { a: a?.json, b: b?.json, r });
  }
  // Answered in Claude Code's own prompt meanwhile: Claude Code writes the call's
  // result to its transcript; the hook withdraws the parked run, and the audit says so.
  {
    const command = "touch terminal-marker";
    const transcript = join(work, "t.jsonl");
    const line = (o) => appendFileSync(transcript, `${JSON.stringify(o)}\n`);
    line({ type: "assistant", message: { role: "assistant", content: [{ type: "tool_use", id: "toolu_t1", name: "Bash", input: { command, description: "x" } }] } });
    const running = hook(input(command), { server: url, waitMs: 30_000 });
    const run = await parked(url, PHONE, command);
    line({ type: "user", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_t1", content: "", is_error: false }] } });
    const r = await running;
    const after = run ? await api(url, "GET", `v1/runs/${run.runId}`, PHONE) : null;
    const records = (await api(url, "GET", "v1/audit", PHONE)).json?.records ?? [];
    const rec = records.find((x) => x.runId === run?.runId);
    check("answered in Claude Code's own prompt meanwhile → the hook stops waiting with no decision, saying the panel's request is withdrawn",
      run !== null && r.code === 0 && r.json && !r.json.hookSpecificOutput && /answered in Claude Code's own prompt; the request in toolgate's panel is withdrawn/.test(r.json.systemMessage ?? "") && r.ms < 10_000, r);
    check("the withdrawn run is cancelled on the server, and the audit says why",
      after?.json?.status === "cancelled" && rec?.outcome === "cancelled" && /Claude Code's own prompt/.test(rec?.message ?? ""), { run: after?.json, rec });
    const late = run ? await decide(url, PHONE, run, "allow") : null;
    check("a decision in the panel after that decides nothing", late && late.status >= 400, late?.json);
  }
  // Codex's PermissionRequest (its input as 0.171.0's schema has it: Claude Code's
  // fields and `turn_id`, `model`): the same answer as Claude Code's.
  {
    const codexInput = (command) => JSON.stringify({ session_id: "cx-1", turn_id: "t-1", transcript_path: null, cwd: work, hook_event_name: "PermissionRequest", model: "gpt-5", permission_mode: "default", tool_name: "Bash", tool_input: { command } });
    const command = "touch codex-marker";
    const running = hook(codexInput(command), { server: url, host: "codex" });
    const run = await parked(url, PHONE, command);
    const d = run ? await decide(url, LAPTOP, run, "deny", "not now") : null;
    const r = await running;
    check("Codex's PermissionRequest: denied in the panel → deny with the message and who",
      d?.status === 200 && behavior(r) === "deny" && /alice-laptop: not now/.test(r.json?.hookSpecificOutput?.decision?.message ?? ""), { r });
  }
  // Copilot CLI's permissionRequest (its input as 1.0.102 sends it): `{behavior}`.
  {
    const copilotInput = (command) => JSON.stringify({ hookName: "permissionRequest", sessionId: "cp-1", timestamp: 1, cwd: work, toolName: "bash", toolInput: { command }, permissionSuggestions: [] });
    const copilotHook = (stdin, waitMs = 20_000) => hook(stdin, { server: url, waitMs, host: "copilot" });
    const command = "touch copilot-marker";
    const running = copilotHook(copilotInput(command));
    const run = await parked(url, PHONE, command);
    const d = run ? await decide(url, PHONE, run, "allow") : null;
    const r = await running;
    check("Copilot CLI's permissionRequest: approved in the panel → {behavior: allow}", d?.status === 200 && r.json?.behavior === "allow", { r });
    const quiet = await copilotHook(copilotInput("touch copilot-unanswered"), 1500);
    check("Copilot CLI's permissionRequest: nobody answers → {} (Copilot CLI's own flow), never an allow", quiet.code === 0 && quiet.json && Object.keys(quiet.json).length === 0, quiet);
  }
  // The policy denies: no park.
  {
    const r = await hook(input("sudo rm -rf /"), { server: url });
    const listed = (await api(url, "GET", "v1/runs", PHONE)).json?.runs ?? [];
    check("a call toolgate's policy denies is denied at once, never parked",
      behavior(r) === "deny" && /toolgate: /.test(r.json?.hookSpecificOutput?.decision?.message ?? "") && !listed.some((x) => x.marker?.calls?.[0]?.args?.command === "sudo rm -rf /") && r.ms < 5000, r);
  }
  // A wrong token, and the server down: never an allow.
  {
    const bad = join(work, "bad.token");
    writeFileSync(bad, "not-a-token-0123456789\n");
    const r = await hook(input("touch wrong-token"), { server: url, tokenPath: bad });
    check("a wrong token → no decision (the host's prompt), the reason said", r.code === 0 && r.json && !r.json.hookSpecificOutput && /did not park it \(401/.test(r.json.systemMessage ?? ""), r);
  }
  await server.stop();
  {
    const r = await hook(input("touch server-down"), { server: url });
    check("the server down → no decision (the host's prompt), never an allow, at once",
      r.code === 0 && r.json && !r.json.hookSpecificOutput && /not reachable/.test(r.json.systemMessage ?? "") && r.ms < 10_000, r);
  }
} finally {
  await browser?.close();
  await server.stop();
  rmSync(work, { recursive: true, force: true });
}
finish("remote answers (toolgate hook --event permission-request, toolgate-server)");
