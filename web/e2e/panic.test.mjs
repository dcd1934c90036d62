// A panic inside the WebAssembly module fails closed, in headless Chromium, on the
// test-only panic-probe build (scripts/build-panic-probe: the core panics on the
// TOOLGATE_PANIC_PROBE marker). What it shows:
// - the call that panicked throws (sync) or rejects (a promise method) with an Error
//   whose .code is "internal_error", never a bare RuntimeError: unreachable;
// - the panic message reaches console.error;
// - a check that was waiting for its human rejects with internal_error (never approved);
// - every later call of every Policy and Gate rejects the same way (poisoned);
// - the parked run in localStorage is untouched: a reloaded page resumes it normally.
// And the element's panel module (its own module since it carries no gate): after a
// panic in it, a click on Approve sends no decision to its run source, and mounting
// again throws internal_error.
//
//   node web/e2e/panic.test.mjs        (builds the probe bundle first)

import { execFileSync } from "node:child_process";
import { serveDir } from "./serve.mjs";
import { checker, launchChromium } from "./checks.mjs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const DIR = execFileSync(join(ROOT, "scripts", "build-panic-probe"), { cwd: ROOT, encoding: "utf8" })
  .trim()
  .split("\n")
  .pop();
const SERVE = DIR.startsWith("/") ? DIR : join(ROOT, DIR);

const { url, proc: server } = await serveDir(SERVE);

const { check, finish } = checker();

const browser = await launchChromium();

async function open(ctx) {
  const page = await ctx.newPage();
  const log = { errors: [], pageErrors: [] };
  page.on("console", (m) => m.type() === "error" && log.errors.push(m.text()));
  page.on("pageerror", (e) => log.pageErrors.push(e.message));
  await page.goto(url);
  await page.waitForFunction(() => window.ready === true);
  return { page, log };
}

try {
  // 1. A classification that panics, with a check waiting and a run parked.
  {
    const ctx = await browser.newContext();
    const { page, log } = await open(ctx);
    const r = await page.evaluate(async () => {
      const { Policy, Gate } = window.toolgate;
      const err = (e) => ({ isError: e instanceof Error, code: e.code, message: String(e.message) });
      const policy = Policy.defaults({ workspace: "/w", home: "/h" });
      const gate = new Gate(policy, { sessionId: "s1" });
      const before = policy.classify({ tool: "bash", args: { command: "ls" } }).tier;
      gate.park({ runId: "r1", calls: [{ toolCallId: "p1", tool: "bash", args: { command: "make deploy" } }], history: "[]" });
      const waiting = gate
        .check({ tool: "bash", args: { command: "git push" }, toolCallId: "c1" })
        .then((v) => ({ resolved: v.outcome }), (e) => ({ rejected: err(e) }));
      const pendingBefore = gate.pending().length;
      let thrown = null;
      try {
        policy.classify({ tool: "bash", args: { command: "echo TOOLGATE_PANIC_PROBE" } });
      } catch (e) {
        thrown = err(e);
      }
      const waited = await waiting;
      const later = {};
      const attempt = async (name, f) => {
        try {
          const v = await f();
          later[name] = { returned: JSON.stringify(v) };
        } catch (e) {
          later[name] = err(e);
        }
      };
      await attempt("classify", () => policy.classify({ tool: "bash", args: { command: "ls" } }));
      await attempt("pending", () => gate.pending());
      await attempt("respond", () => gate.respond("x", { decision: "allow_once", anchor: "0".repeat(64) }));
      await attempt("check", () => gate.check({ tool: "bash", args: { command: "ls" } }));
      await attempt("resume", () => gate.resume("r1", { decisions: [] }));
      await attempt("runs", () => gate.runs());
      await attempt("size", () => gate.size);
      await attempt("newGate", () => new Gate(policy, { sessionId: "s2" }));
      await attempt("defaults", () => Policy.defaults({ workspace: "/w", home: "/h" }));
      await attempt("dispose", () => gate.dispose());
      const stored = Object.keys(localStorage).filter((k) => localStorage.getItem(k).includes("make deploy")).length;
      return { before, pendingBefore, thrown, waited, later, stored };
    });
    check("before the panic the module works", r.before === "auto" && r.pendingBefore === 1, r);
    check(
      "the panicking classify throws an Error with code internal_error",
      r.thrown && r.thrown.isError && r.thrown.code === "internal_error" && r.thrown.message.includes("panic-probe"),
      r.thrown,
    );
    check(
      "the check waiting for a human rejects with internal_error (never approved)",
      r.waited.rejected && r.waited.rejected.code === "internal_error",
      r.waited,
    );
    const calls = Object.entries(r.later);
    check(
      `every later call (${calls.length}) rejects with internal_error`,
      calls.every(([, v]) => v.isError && v.code === "internal_error"),
      r.later,
    );
    check(
      "the panic message reaches console.error",
      log.errors.some((t) => t.includes("toolgate: internal error") && t.includes("panic-probe")),
      log.errors,
    );
    check("no bare RuntimeError reaches the page", !log.pageErrors.some((t) => /unreachable/i.test(t)), log.pageErrors);
    check("the parked run is still stored", r.stored >= 1, r.stored);
    // 2. A reload is a new module: the parked run is intact and resumes.
    await page.reload();
    await page.waitForFunction(() => window.ready === true);
    const after = await page.evaluate(async () => {
      const { Policy, Gate } = window.toolgate;
      const gate = new Gate(Policy.defaults({ workspace: "/w", home: "/h" }), { sessionId: "s1" });
      const run = gate.run("r1");
      const call = run.marker.calls[0];
      const resumed = await gate.resume("r1", {
        decisions: [{ toolCallId: call.toolCallId, anchor: call.anchor, decision: "deny", message: "no" }],
      });
      return { status: run.status, outcome: resumed.results[0].outcome };
    });
    check(
      "after a reload the parked run is awaiting_permission and resumes once",
      after.status === "awaiting_permission" && after.outcome === "denied",
      after,
    );
    await ctx.close();
  }
  // 3. The panic inside Gate.check: a rejected promise, not a synchronous throw.
  {
    const ctx = await browser.newContext();
    const { page, log } = await open(ctx);
    const r = await page.evaluate(async () => {
      const { Policy, Gate } = window.toolgate;
      const gate = new Gate(Policy.defaults({ workspace: "/w", home: "/h" }), { sessionId: "s1" });
      let p;
      try {
        p = gate.check({ tool: "bash", args: { command: "cat TOOLGATE_PANIC_PROBE" }, toolCallId: "c9" });
      } catch (e) {
        return { threwSync: e.code ?? String(e) };
      }
      const isPromise = p instanceof Promise;
      const settled = await p.then((v) => ({ resolved: v.outcome }), (e) => ({ code: e.code }));
      return { isPromise, settled };
    });
    check(
      "a panic inside gate.check rejects its promise with internal_error",
      r.isPromise && r.settled.code === "internal_error",
      r,
    );
    check("no bare RuntimeError from gate.check", !log.pageErrors.some((t) => /unreachable/i.test(t)), log.pageErrors);
    await ctx.close();
  }
  // 4. A panic outside any classification (the probe export).
  {
    const ctx = await browser.newContext();
    const { page } = await open(ctx);
    const r = await page.evaluate(() => {
      try {
        window.toolgate.__toolgatePanicProbe();
        return { returned: true };
      } catch (e) {
        return { code: e.code, message: String(e.message) };
      }
    });
    check("a panic in any call throws internal_error", r.code === "internal_error", r);
    await ctx.close();
  }
  // 5. The element's panel module: after a panic, no decision leaves it.
  {
    const ctx = await browser.newContext();
    const page = await ctx.newPage();
    const errors = [];
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    await page.goto(`${url}panel.html`);
    await page.waitForFunction(() => window.ready === true);
    await page.evaluate(() => {
      window.resumed = [];
      const call = { toolCallId: "c1", tool: "bash", args: { command: "git push" }, anchor: "a".repeat(64),
        tier: "ask", rule: "builtin.default", reason: "runs a program: git" };
      const run = { runId: "r1", status: "awaiting_permission", revision: 1, updatedAt: Date.now(),
        marker: { expiresAt: Date.now() + 600_000, calls: [call] } };
      const source = {
        runs: async () => ({ runs: [run] }),
        resume: async (runId, decisions) => {
          window.resumed.push({ runId, decisions });
          return { runId, results: [] };
        },
      };
      // Kept: a dropped handle unmounts the panel.
      window.handle = window.panel.mountApprovalSource(document.getElementById("approval"), source, () => {});
    });
    await page.waitForSelector("[data-testid=approve-once]", { timeout: 15_000 });
    const r = await page.evaluate(async () => {
      let probe = null;
      try {
        window.panel.__toolgatePanelPanicProbe();
      } catch (e) {
        probe = e.code;
      }
      document.querySelector("[data-testid=approve-once]")?.click();
      await new Promise((done) => setTimeout(done, 1500));
      let again = null;
      try {
        window.panel.mountApprovalSource(document.body, { runs: async () => ({ runs: [] }), resume: async () => ({}) }, () => {});
        again = "mounted";
      } catch (e) {
        again = e.code;
      }
      return { probe, resumed: window.resumed.length, again };
    });
    check(
      "the element's panel module: after a panic (internal_error, on the console) a click on Approve sends no decision, and mounting again throws internal_error",
      r.probe === "internal_error" && r.resumed === 0 && r.again === "internal_error" && errors.some((e) => e.includes("TOOLGATE_PANEL_PANIC_PROBE")),
      { r, errors },
    );
    await ctx.close();
  }
} finally {
  await browser.close();
  server.kill();
}
finish("panic probe");
