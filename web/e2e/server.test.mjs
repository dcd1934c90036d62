// The approval panel a toolgate server serves, in headless Chromium against the real
// server (target/debug/toolgate-server: SQLite file, the reference agent, the panel
// assembled by scripts/build-panel from the package's tarball build):
// - `/` is the sign-in page under the server's CSP; a wrong token is refused, nothing shown;
// - a run the agent parks appears (the poll), Approve resumes it once and the agent goes on;
// - Deny with a message: the agent's next turn carries `User refused permission: <message>`;
// - a reload keeps the sign-in (this tab's sessionStorage) and the prompt (the marker);
// - two browser contexts (alice and bob, two devices) decide the same call at once: exactly
//   one wins, the other says "Already decided by <winner>", one audit record;
// - the server stops while a prompt is shown: the panel shows the failed poll, a click
//   decides nothing; after a restart on the same file the prompt is still there and a
//   decision resumes the run;
// - grants: Always allow… shows what each scope matches before it is given; the grant
//   chosen (scope, time) is listed, decides a covered park at once (not a compound line,
//   not another session), is revoked from the panel, and a short one expires;
// - a question parked over the API shows after a reload with no approval to give; the
//   answer typed in the panel reaches the agent once (and the audit);
// - another owner's token sees none of it.
//   node web/e2e/server.test.mjs   (part of web/e2e/run.mjs)
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./tarball.mjs";
import { api as serverApi } from "./server-proc.mjs";
import { checker, launchChromium } from "./checks.mjs";

const { check, finish } = checker();
const TARGET = process.env.CARGO_TARGET_DIR ?? join(ROOT, "target");
const dir = mkdtempSync(join(tmpdir(), "toolgate-server-e2e-"));
const TOKENS = {
  agent: "agent-token-0123456789abcdef",
  alice: "alice-token-0123456789abcdef",
  bob: "bob-token-0123456789abcdef00",
  eve: "eve-token-0123456789abcdef000",
};
const tokensEnv = JSON.stringify([
  { name: "agent", owner: "team", roles: ["agent"], token: TOKENS.agent },
  { name: "alice", owner: "team", roles: ["approver"], token: TOKENS.alice },
  { name: "bob", owner: "team", roles: ["approver"], token: TOKENS.bob },
  { name: "eve", owner: "other", roles: ["approver"], token: TOKENS.eve },
]);

execFileSync("cargo", ["build", "-q", "-p", "toolgate-server", "--bin", "toolgate-server"], { cwd: ROOT, stdio: "inherit" });
const panel = execFileSync(join(ROOT, "scripts", "build-panel"), [join(dir, "panel")], { cwd: ROOT, encoding: "utf8" }).trim();
const BIN = join(TARGET, "debug", "toolgate-server");
const DB = join(dir, "runs.db");

let server = null;
let base = null;

/** Starts the server on `listen` (port 0 the first time); resolves with its URL. */
function start(listen) {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, ["--listen", listen, "--database", `sqlite:${DB}`, "--panel", panel, "--demo-agent"], {
      env: { ...process.env, TOOLGATE_TOKENS: tokensEnv },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const timer = setTimeout(() => reject(new Error("the server did not start within 20 s")), 20_000);
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = /listening on (http:\/\/[^ ]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        server = child;
        resolve(m[1]);
      }
    });
    child.stderr.on("data", () => {});
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before listening: ${out}`));
    });
  });
}

function stop() {
  const child = server;
  server = null;
  if (!child) return Promise.resolve();
  return new Promise((resolve) => {
    child.removeAllListeners("exit");
    // A server that does not stop on SIGTERM within 10 s is killed: the test never hangs.
    const kill = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.on("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

const api = (method, path, token, body) => serverApi(base, method, path, token, body);

const startAgent = async () => (await api("POST", "/v1/agent/runs", TOKENS.agent)).json?.runId;
const runOf = async (id) => (await api("GET", `/v1/runs/${id}`, TOKENS.alice)).json;
const cmdOf = (run) => run?.marker?.calls?.[0]?.args?.command;
const transcript = (run) => JSON.parse(run?.marker?.history ?? "{}").transcript ?? [];

async function until(what, fn, ms = 12_000) {
  const t0 = Date.now();
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A signed-in page of a new browser context (a device), with its decision events. */
async function device(browser, token) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const csp = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) csp.push(m.text());
  });
  page.on("pageerror", (e) => csp.push(`pageerror: ${e.message}`));
  const polls = [];
  page.on("response", (r) => {
    if (new URL(r.url()).pathname === "/v1/runs") polls.push(r.status());
  });
  await page.goto(base + "/");
  await page.getByTestId("token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByTestId("who").waitFor({ state: "visible", timeout: 10_000 });
  await page.evaluate(() => {
    window.decisions = [];
    document.getElementById("approval").addEventListener("toolgate-decision", (e) => window.decisions.push(e.detail));
  });
  return { context, page, csp, polls };
}

/** The prompt of `runId` at `revision` on `page`, once it shows. */
function prompt(page, runId, revision) {
  return page.locator(`article[data-run-id="${runId}"][data-revision="${revision}"]`);
}

let browser;
try {
  base = await start("127.0.0.1:0");
  const port = new URL(base).port;

  // --- The page itself.
  const index = await fetch(base + "/");
  const csp = index.headers.get("content-security-policy") ?? "";
  check("GET / is the panel's page under a CSP without inline scripts",
    index.status === 200 && /text\/html/.test(index.headers.get("content-type")) && /script-src 'self' 'wasm-unsafe-eval'/.test(csp) && !/unsafe-inline/.test(csp),
    { status: index.status, csp });
  const wasm = await fetch(base + "/toolgate_ui_bg.wasm");
  check("the panel's .wasm is served as application/wasm", wasm.status === 200 && wasm.headers.get("content-type") === "application/wasm", wasm.headers.get("content-type"));
  const traversal = await Promise.all(["/..%2fCargo.toml", "/.env", "/runs.db", "/%2e%2e%2f%2e%2e%2fetc%2fpasswd"].map((p) => fetch(base + p).then((r) => r.status)));
  check("no file outside the panel's names is served (404)", traversal.every((s) => s === 404), traversal);

  browser = await launchChromium();

  // --- A wrong token is refused.
  {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(base + "/");
    await page.getByTestId("token").fill("not-a-token-at-all-000000");
    await page.getByRole("button", { name: "Sign in" }).click();
    // The error element may be on the page (empty) before the server's answer comes:
    // wait for the refusal's words, not just the element.
    const shown = page.getByTestId("sign-in-error").filter({ hasText: /\S/ });
    const err = await shown.waitFor({ timeout: 10_000 }).then(() => shown.textContent(), () => "");
    const stored = await page.evaluate(() => sessionStorage.length);
    check("a wrong token is refused on the sign-in page and not kept", /not accepted/.test(err) && stored === 0, { err, stored });
    await context.close();
  }

  const a = await device(browser, TOKENS.alice);
  const who = await a.page.getByTestId("who").textContent();
  const formShown = await a.page.getByTestId("sign-in").isVisible();
  check("signed in: the page says who, the sign-in form is gone", /alice/.test(who) && !formShown, { who, formShown });

  // --- Approve: the agent's run appears, one click resumes it, the agent goes on.
  const r1 = await startAgent();
  const parked1 = await runOf(r1);
  const t0 = Date.now();
  const p1 = prompt(a.page, r1, parked1.revision);
  await p1.waitFor({ timeout: 12_000 });
  const shownMs = Date.now() - t0;
  check(`the parked run's prompt appears by polling (${shownMs} ms, poll period 5 s idle)`, shownMs < 7_000, shownMs);
  const cmd1 = cmdOf(parked1);
  const args = await p1.getByTestId("tool-args").textContent();
  check("the prompt renders from the server's marker (the command)", typeof cmd1 === "string" && args.includes(JSON.stringify(cmd1).slice(1, -1)), { args, cmd1 });
  const askedBy = await p1.locator(".tg-asked-by").textContent();
  check("the prompt says which agent asked (the run's parkedBy)", parked1.parkedBy === "reference-agent" && /asked by reference-agent/.test(askedBy), { askedBy, parkedBy: parked1.parkedBy });
  await p1.getByTestId("approve-once").click();
  const afterApprove = await until("the agent's next turn", async () => {
    const run = await runOf(r1);
    return run?.revision > parked1.revision && run.status !== "running" ? run : null;
  });
  // The page's event follows the server's answer to its click; the agent may have
  // seen the decision and parked again before the page handled that answer: wait for
  // the event, then count.
  await until("the approval's event", async () => (await a.page.evaluate(() => window.decisions.length)) > 0).catch(() => {});
  const ev1 = await a.page.evaluate(() => window.decisions);
  check("Approve resumes the run once (one toolgate-decision, outcome approved)", ev1.length === 1 && ev1[0].runId === r1 && ev1[0].results[0].outcome === "approved", ev1);
  check("the agent went on after the approval (it ran the call, parked at its next ask)",
    afterApprove.status === "awaiting_permission" && transcript(afterApprove).includes(`ran \`${cmd1}\` (approved)`) && cmdOf(afterApprove) !== cmd1,
    { status: afterApprove.status, transcript: transcript(afterApprove) });

  // --- Deny with a message: the agent receives it.
  const denyMessage = "not before the review";
  const cmd1b = cmdOf(afterApprove);
  const p1b = prompt(a.page, r1, afterApprove.revision);
  await p1b.waitFor({ timeout: 12_000 });
  await p1b.getByTestId("deny-message").fill(denyMessage);
  await p1b.getByTestId("deny").click();
  const afterDeny = await until("the agent's turn after the denial", async () => {
    const run = await runOf(r1);
    return run?.revision > afterApprove.revision && run.status !== "running" ? run : null;
  });
  const ev2 = await until("the denial's event", async () => (await a.page.evaluate(() => window.decisions))[1]);
  check("Deny with a message: the result the agent receives is `User refused permission: <message>`",
    ev2?.results?.[0]?.outcome === "denied" && ev2.results[0].toolResult === `User refused permission: ${denyMessage}`,
    ev2);
  check("the agent's next turn carries the denial and its message (recorded as the run's decision)",
    afterDeny.status === "awaiting_permission" &&
      transcript(afterDeny).includes(`\`${cmd1b}\`: User refused permission: ${denyMessage}`),
    { status: afterDeny.status, transcript: transcript(afterDeny) });
  const audit1 = (await api("GET", "/v1/audit", TOKENS.alice)).json?.records ?? [];
  const denied = audit1.find((r) => r.runId === r1 && r.outcome === "denied");
  check("the audit trail has the approval and the denial, decided by alice",
    audit1.filter((r) => r.runId === r1 && r.outcome === "approved" && r.decidedBy === "alice").length === 1 && denied?.decidedBy === "alice",
    audit1.filter((r) => r.runId === r1));

  // --- Reload: still signed in, the prompt comes back from the marker.
  await a.page.reload();
  const p1c = prompt(a.page, r1, afterDeny.revision);
  await p1c.waitFor({ timeout: 12_000 });
  check("after a reload the page is still signed in and shows the waiting prompt",
    (await a.page.getByTestId("who").isVisible()) && (await p1c.getByTestId("tool-args").textContent()).includes(cmdOf(afterDeny)), "");
  await a.page.evaluate(() => {
    window.decisions = [];
    document.getElementById("approval").addEventListener("toolgate-decision", (e) => window.decisions.push(e.detail));
  });

  // --- Two devices decide the same call at the same moment: exactly one wins.
  const b = await device(browser, TOKENS.bob);
  const races = [];
  for (let round = 0; round < 3; round++) {
    const id = await startAgent();
    const parked = await runOf(id);
    const [pa, pb] = [prompt(a.page, id, parked.revision), prompt(b.page, id, parked.revision)];
    await Promise.all([pa.waitFor({ timeout: 12_000 }), pb.waitFor({ timeout: 12_000 })]);
    // Both clicks at the same moment: each page clicks at one wall-clock instant.
    const at = Date.now() + 300;
    const clickAt = (page, testid) =>
      page.evaluate(([sel, t]) => new Promise((done) => setTimeout(() => {
        document.querySelector(sel).click();
        done();
      }, t - Date.now())), [`article[data-run-id="${id}"][data-revision="${parked.revision}"] [data-testid=${testid}]`, at]);
    await Promise.all([clickAt(a.page, "approve-once"), clickAt(b.page, "deny")]);
    await until("the race's winner", async () => {
      const run = await runOf(id);
      return run?.revision > parked.revision ? run : null;
    });
    // The agent parks again at once: the decision that cleared the first marker is in
    // the audit trail (one record for it).
    const audit = (await api("GET", "/v1/audit", TOKENS.alice)).json?.records ?? [];
    const ends = audit.filter((r) => r.runId === id && r.anchor === parked.marker.calls[0].anchor);
    const loserPage = ends[0]?.decidedBy === "alice" ? b.page : a.page;
    const loserText = await until("the loser's message", async () =>
      (await loserPage.getByTestId("notice").textContent({ timeout: 100 }).catch(() => null)) || null);
    const eventCount = async () => (await a.page.evaluate(() => window.decisions.length)) + (await b.page.evaluate(() => window.decisions.length));
    await until("the winner's event", async () => (await eventCount()) > 0).catch(() => {});
    const events = await eventCount();
    races.push({ round, winner: ends[0]?.decidedBy, outcome: ends[0]?.outcome, records: ends.length, loserText, events });
    await a.page.evaluate(() => (window.decisions = []));
    await b.page.evaluate(() => (window.decisions = []));
  }
  console.log(`races: ${races.map((r) => `${r.winner} (${r.outcome})`).join(", ")}`);
  check("two devices at once: exactly one decision each time (one audit record, one event), the other told who won",
    races.every((r) => r.records === 1 && r.events === 1 && r.loserText.includes(`Already decided by ${r.winner}`)),
    races);

  // --- Grants: shown before they are given, kept, listed, revoked, expired.
  {
    const park = async (id, command, session = "grants-chat") =>
      (await api("POST", `/v1/runs/${id}/park`, TOKENS.agent, {
        sessionId: session,
        calls: [{ toolCallId: "c1", tool: "bash", args: { command } }],
        history: "[]",
      })).json?.run;
    const g1 = await park("grant-1", "git push origin main");
    const pg = prompt(a.page, "grant-1", g1.revision);
    await pg.waitFor({ timeout: 12_000 });
    await pg.getByTestId("approve-always").click();
    const box = pg.getByTestId("grant-box");
    await box.waitFor();
    const matches = await box.getByTestId("grant-matches").allTextContents();
    check("Always allow… shows each scope with what it matches before it is given",
      matches.length === 2 && /exactly the command `git push origin main`/.test(matches[0]) && /each command of a line on its own/.test(matches[1]), matches);
    await box.getByTestId("grant-ttl").selectOption({ label: "15 minutes" });
    await box.getByTestId("grant-approve").nth(1).click();
    const listed = a.page.getByTestId("grant");
    await listed.first().waitFor({ timeout: 12_000 });
    const item = await listed.first().textContent();
    const grants = (await api("GET", "/v1/grants", TOKENS.alice)).json?.grants ?? [];
    const ttl = grants[0] ? grants[0].expiresAt - grants[0].createdAt : 0;
    check("the grant is kept as chosen (the prefix scope, 15 minutes) and listed in the panel",
      grants.length === 1 && grants[0].rule === "Bash(git push:*)" && ttl === 15 * 60_000 && item.includes("Bash(git push:*)") && item.includes("grants-chat"),
      { grants, item });
    const covered = await park("grant-2", "git push origin dev");
    const compound = await park("grant-3", "git push origin dev; rm -rf build");
    const otherSession = await park("grant-4", "git push origin dev", "another-chat");
    check("a call the grant covers is decided by it at once; a compound line and another session ask",
      covered?.status === "running" && compound?.status === "awaiting_permission" && otherSession?.status === "awaiting_permission",
      { covered: covered?.status, compound: compound?.status, otherSession: otherSession?.status });
    await listed.first().getByTestId("revoke-grant").click();
    await a.page.getByTestId("no-grants").waitFor({ state: "visible", timeout: 10_000 });
    const afterRevoke = await park("grant-5", "git push origin dev");
    await prompt(a.page, "grant-5", afterRevoke.revision).waitFor({ timeout: 12_000 });
    check("a revoked grant decides nothing: the next matching call is a prompt again", afterRevoke?.status === "awaiting_permission", afterRevoke?.status);
    // A short grant (given over the API: the panel offers 15 minutes and more) expires
    // while the next call waits for it: that call asks.
    const g6 = await park("grant-6", "npm publish");
    await api("POST", "/v1/runs/grant-6/decisions", TOKENS.alice, {
      decisions: [{ toolCallId: "c1", anchor: g6.marker.calls[0].anchor, decision: "allow", scope: "Bash(npm publish)", ttlMs: 1500 }],
    });
    const live = await park("grant-7", "npm publish");
    await new Promise((r) => setTimeout(r, 1_600));
    const late = await park("grant-8", "npm publish");
    check("a grant covers its calls until it expires, then a call waits for a person",
      live?.status === "running" && late?.status === "awaiting_permission", { live: live?.status, late: late?.status });
    const audit = (await api("GET", "/v1/audit", TOKENS.alice)).json?.records ?? [];
    const byGrant = audit.find((r) => r.runId === "grant-2");
    check("the audit names the grant that approved a call", byGrant?.outcome === "approved" && byGrant.grant === grants[0]?.id, byGrant);
    for (const id of ["grant-3", "grant-4", "grant-5", "grant-8"]) await api("POST", `/v1/runs/${id}/cancel`, TOKENS.agent, { reason: "test done" });
  }

  // --- A question: parked over the API, shown after a reload, answered, taken once.
  {
    const q = (await api("POST", "/v1/runs/question-1/park", TOKENS.agent, {
      sessionId: "questions-chat",
      calls: [{ toolCallId: "q1", tool: "ask_user", args: { text: "Which branch?" }, question: "Which branch should I push?" }],
      history: "[]",
    })).json?.run;
    await prompt(a.page, "question-1", q.revision).waitFor({ timeout: 12_000 });
    await a.page.reload();
    const pq = prompt(a.page, "question-1", q.revision);
    await pq.waitFor({ timeout: 12_000 });
    const shown = {
      question: await pq.getByTestId("question").textContent(),
      approvals: await pq.locator("[data-testid=approve-once], [data-testid=approve-always], [data-testid=edit]").count(),
    };
    await pq.getByTestId("answer").fill("fix/parse-date");
    await pq.getByTestId("answer-submit").click();
    const taken = await until("the answered question", async () => {
      const r = await api("POST", "/v1/runs/question-1/resume", TOKENS.agent);
      return r.status === 200 ? r.json : null;
    });
    const again = await api("POST", "/v1/runs/question-1/resume", TOKENS.agent);
    const rec = ((await api("GET", "/v1/audit", TOKENS.alice)).json?.records ?? []).find((r) => r.runId === "question-1");
    check("a question shows after a reload with no approval to give; its answer reaches the agent once and the audit",
      shown.question === "Which branch should I push?" && shown.approvals === 0 && taken?.results?.[0]?.outcome === "answered" &&
        taken.results[0].toolResult === "fix/parse-date" && again.status === 409 && rec?.outcome === "answered" && rec.message === "fix/parse-date",
      { shown, taken, again: again.status, rec });
  }

  // --- The server stops while a prompt is shown, then restarts on the same file.
  const r4 = await startAgent();
  const parked4 = await runOf(r4);
  const p4 = prompt(a.page, r4, parked4.revision);
  await p4.waitFor({ timeout: 12_000 });
  await stop();
  const pollError = await until("the failed poll's message", async () =>
    (await a.page.locator("section.tg-approvals > [data-testid=error]").textContent({ timeout: 100 }).catch(() => null)) || null);
  await p4.getByTestId("approve-once").click();
  const clickError = await until("the failed decision's message", async () =>
    (await p4.getByTestId("error").textContent({ timeout: 100 }).catch(() => null)) || null);
  check("server down: the failed poll is shown, the prompt stays, a click decides nothing",
    /could not be reached|did not answer/.test(pollError) && /could not be reached|did not answer/.test(clickError) && (await p4.isVisible()),
    { pollError, clickError });
  base = await start(`127.0.0.1:${port}`);
  const still = await runOf(r4);
  check("after the restart the run still waits, untouched (same revision, no decision)",
    still?.status === "awaiting_permission" && still.revision === parked4.revision && !still.decision, still);
  await until("the error to clear", async () => !(await a.page.locator("section.tg-approvals > [data-testid=error]").count()));
  await p4.getByTestId("approve-once").click();
  const afterRestart = await until("the agent's turn after the restart", async () => {
    const run = await runOf(r4);
    return run?.revision > parked4.revision && run.status === "awaiting_permission" ? run : null;
  });
  check("a decision after the restart resumes the run (the agent went on)",
    transcript(afterRestart).includes(`ran \`${cmdOf(parked4)}\` (approved)`), transcript(afterRestart));

  // --- Another owner sees none of it.
  const e = await device(browser, TOKENS.eve);
  await e.page.waitForTimeout(500);
  const eveSees = await e.page.locator("[data-testid=approval-prompt]").count();
  const eveEmpty = await e.page.locator(".tg-empty").isVisible();
  check("another owner's token sees no prompt of this owner's", eveSees === 0 && eveEmpty, { eveSees, eveEmpty });

  // --- While nothing changes, a poll every 3 s (a run waits), each one a 304.
  await prompt(a.page, r4, afterRestart.revision).waitFor({ timeout: 12_000 });
  const mark = a.polls.length;
  await a.page.waitForTimeout(7_000);
  const quiet = a.polls.slice(mark);
  check(`unchanged polls are conditional: ${quiet.length} polls in 7 s, all 304`,
    quiet.length >= 2 && quiet.length <= 3 && quiet.every((s) => s === 304), quiet);

  // --- A hidden page does not poll; shown again, it polls at once.
  const setVisibility = (state) => a.page.evaluate((v) => {
    Object.defineProperty(document, "visibilityState", { value: v, configurable: true });
    Object.defineProperty(document, "hidden", { value: v === "hidden", configurable: true });
    document.dispatchEvent(new Event("visibilitychange"));
  }, state);
  await setVisibility("hidden");
  const hiddenMark = a.polls.length;
  await a.page.waitForTimeout(6_500);
  const whileHidden = a.polls.length - hiddenMark;
  await setVisibility("visible");
  await a.page.waitForTimeout(500);
  const onShow = a.polls.length - hiddenMark - whileHidden;
  check(`polling pauses while the page is hidden (${whileHidden} polls in 6.5 s) and resumes when shown (${onShow} at once)`,
    whileHidden === 0 && onShow === 1, { whileHidden, onShow });

  // --- Sign out forgets the token.
  await a.page.getByTestId("sign-out").click();
  await a.page.waitForTimeout(300);
  const left = await a.page.evaluate(() => ({ stored: sessionStorage.length, prompts: document.querySelectorAll("[data-testid=approval-prompt]").length,
    grants: document.querySelectorAll("[data-testid=grant]").length, listShown: !document.getElementById("grants").hidden }));
  check("sign out forgets the token and shows no prompt and no grant", left.stored === 0 && left.prompts === 0 && left.grants === 0 && !left.listShown, left);

  const violations = [...a.csp, ...b.csp, ...e.csp];
  check("no CSP violation and no page error on any device", violations.length === 0, violations);
} catch (err) {
  check("the server end-to-end test ran to the end", false, String(err?.stack ?? err));
} finally {
  await browser?.close();
  await stop();
  rmSync(dir, { recursive: true, force: true });
}
finish("server panel end-to-end (Chromium, real server, SQLite)");
