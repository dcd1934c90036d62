// <toolgate-approval> from the npm package, in Chromium (Playwright) and WebKitGTK
// (WebKitWebDriver under xvfb-run), each page under the strict CSP
// `default-src 'self'; script-src 'self' 'wasm-unsafe-eval'`:
// - a plain page (web/consumers/plain, the package copied beside it, imported by path);
// - a React 19 page and a Vue 3 page (web/consumers/frameworks: from npm, their own
//   lockfile, a Vite production build with the tarball installed).
// On each, the page parks a run through its one Gate (web/consumers/frameworks/test-run.js)
// and the test checks: the element shows the prompt (the panel's data-testids), the
// call's `<img onerror>` is text (no <img>, nothing ran), one real click on Approve
// resumes the run exactly once (one `toolgate-decision` event, the run `running`, a
// second resume refused), no error or CSP violation. The plain page also defines the
// element twice and hands it a Gate of another module (refused with `bad_input`), and
// edits a second run's call before approving it (a denied edit cannot be approved; the
// approved edit resumes the run once with the edited call).
// The element's bundle (ui.js + element.js + toolgate_ui_bg.wasm: the panel; the gate's
// module, web.js and its .wasm, is the main entry's, shared) stays within its
// size budget.
//
//   node web/e2e/element.test.mjs          (builds the package: scripts/package)
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checker } from "./checks.mjs";
import { eachEngine } from "./drivers.mjs";
import { serveDir } from "./serve.mjs";
import { PKG_DIR, ROOT, buildConsumer, installTarball } from "./tarball.mjs";

// The element's bundle, gzip -9: its budget is web/budgets.json's `element`.
const ELEMENT_BUDGET = JSON.parse(readFileSync(join(ROOT, "web", "budgets.json"), "utf8")).element.bytes;
const { check, finish } = checker();

const gz = (f) => Number(execFileSync("sh", ["-c", 'gzip -9 -c "$1" | wc -c', "sh", join(PKG_DIR, f)], { encoding: "utf8" }).trim());
const parts = ["toolgate_ui_bg.wasm", "ui.js", "element.js"].map((f) => [f, gz(f)]);
// What a page that gives the element a gate loads besides: the main entry's module,
// which the element shares (the policy reader's .wasm only with loadPolicyReader).
const shared = ["toolgate_wasm_bg.wasm", "web-glue.js", "web.js", "policy-reader.js", "verdict.js"].map((f) => [f, gz(f)]);
const total = parts.reduce((n, [, b]) => n + b, 0);
console.log(`size: the element's bundle is ${total} B gzipped (${parts.map(([f, b]) => `${f} ${b}`).join(", ")}; budget ${ELEMENT_BUDGET} B, web/budgets.json); with a gate, the main entry's module too: ${shared.map(([f, b]) => `${f} ${b}`).join(", ")}`);
check("the element's bundle is within its size budget", total <= ELEMENT_BUDGET, `${total} > ${ELEMENT_BUDGET}`);

const PROMPT = "toolgate-approval [data-testid=approval-prompt]";
const TESTIDS = ["approval-prompt", "tool-name", "tier", "countdown", "tool-args", "reason", "approve-once", "deny-message", "deny"];

/** The whole flow on one page in one engine session. */
async function elementFlow(engine, label, url) {
  const s = await engine.session();
  const name = `${engine.name} ${label}`;
  try {
    await s.open(url);
    const shownMs = await s.waitFor(
      `return window.parkedAt !== undefined && document.querySelector(${JSON.stringify(PROMPT)}) ? Math.round(performance.now() - window.parkedAt) : null;`,
      15_000,
    );
    const shown = await s.evaluate(`
      const el = document.querySelector("toolgate-approval");
      const run = window.gate.run(window.runId);
      window.anchor = run.marker.calls[0].anchor;
      return {
        status: run.status,
        args: el.querySelector("[data-testid=tool-args]")?.textContent ?? "",
        command: el.querySelector(".tg-command")?.textContent ?? "",
        imgs: document.querySelectorAll("img").length,
        pwned: window.pwned ?? null,
        testids: [...new Set([...el.querySelectorAll("[data-testid]")].map((e) => e.dataset.testid))],
        pageChecks: window.pageChecks ?? null,
      };`);
    check(`${name}: the element shows the parked run's prompt`, shownMs !== null && shown.status === "awaiting_permission", { shownMs, shown });
    // The gate is the host's own: its park reaches the element at once, not at the next
    // 5 s idle poll.
    check(`${name}: the prompt appears at once after gate.park (${shownMs} ms)`, shownMs !== null && shownMs < 2500, shownMs);
    const missing = TESTIDS.filter((t) => !shown.testids.includes(t));
    check(`${name}: the panel's data-testids`, missing.length === 0, { missing, got: shown.testids });
    check(
      `${name}: <img onerror> in the args renders as text`,
      shown.args.includes(`<img src=x onerror=`) && shown.imgs === 0 && shown.pwned === null,
      shown,
    );
    if (label.startsWith("plain page")) {
      check(`${name}: defining the element twice (and from a second copy) is harmless`, shown.pageChecks?.definedTwice === true, shown.pageChecks);
      check(`${name}: a Gate of the main entry is the element's (one module); one of another copy of the package is refused (bad_input)`, shown.pageChecks?.mainGate === "accepted" && shown.pageChecks?.foreignGate === "bad_input", shown.pageChecks);
      check(`${name}: Policy.fromToml before loadPolicyReader() throws no_policy_reader (the run's policy is read after it)`, shown.pageChecks?.beforeReader === "no_policy_reader", shown.pageChecks);
    }

    await s.click(`toolgate-approval [data-testid=approve-once]`);
    const decided = await s.waitFor("return window.decisions.length > 0 ? window.decisions.length : null;", 15_000);
    await new Promise((r) => setTimeout(r, 1000));
    const after = await s.evaluate(`
      const run = window.gate.run(window.runId);
      let again = "resumed again";
      try {
        await window.gate.resume(window.runId, { decisions: [{ toolCallId: "c1", anchor: window.anchor, decision: "allow" }] });
      } catch (e) {
        again = e.code;
      }
      const d = window.decisions[0];
      return {
        events: window.decisions.length,
        status: run.status,
        outcome: d?.results?.[0]?.outcome,
        history: d?.history,
        runId: d?.runId,
        again,
        prompts: document.querySelectorAll(${JSON.stringify(PROMPT)}).length,
        guarantee: window.gate.resumeGuarantee,
        errors: window.pageErrors,
      };`);
    check(
      `${name}: one click on Approve resumes the run exactly once`,
      decided === 1 &&
        after.events === 1 &&
        after.status === "running" &&
        after.outcome === "approved" &&
        after.runId === (label.startsWith("plain page") ? "run-plain" : `run-${label.split(" ")[0].toLowerCase()}`) &&
        JSON.parse(after.history ?? "{}").step === 1 &&
        after.prompts === 0 &&
        after.again === "already_resumed",
      after,
    );
    console.log(`  ${name}: prompt after ${shownMs} ms, resume guarantee ${after.guarantee}`);
    if (label.startsWith("plain page")) {
      await editFlow(s, name);
      await grantFlow(s, name);
      await invisibleFlow(s, name);
      await questionFlow(s, name, url);
    }
    const errors = [...after.errors, ...s.consoleErrors()];
    check(`${name}: no error and no CSP violation`, errors.length === 0, errors);
  } catch (e) {
    check(`${name}: the page ran`, false, String(e?.stack ?? e));
  } finally {
    await s.close();
  }
}

/** Edit, then approve: the edit's verdict shows before the click (a denied edit cannot be
 * approved), and the approved edit resumes the run once with the edited call. */
async function editFlow(s, name) {
  const card = 'toolgate-approval article[data-run-id="run-edit"]';
  await s.evaluate(`window.gate.park({ runId: "run-edit", calls: [{ toolCallId: "c1", tool: "bash", args: { command: "python deploy.py" } }],
    history: JSON.stringify({ step: 2 }) });`);
  await s.waitFor(`return document.querySelector(${JSON.stringify(card)}) ? true : null;`, 15_000);
  await s.click(`${card} [data-testid=edit]`);
  await s.waitFor(`return document.querySelector(${JSON.stringify(`${card} [data-testid=edit-args]`)}) ? true : null;`, 5_000);
  // Typing, as the textarea's input events carry it.
  const typed = (text) => s.evaluate(`
    const box = document.querySelector(${JSON.stringify(`${card} [data-testid=edit-args]`)});
    box.value = ${JSON.stringify(text)};
    box.dispatchEvent(new Event("input", { bubbles: true }));
    await new Promise((r) => setTimeout(r, 100));
    const verdict = document.querySelector(${JSON.stringify(`${card} [data-testid=edit-verdict]`)})?.textContent ?? "";
    const button = document.querySelector(${JSON.stringify(`${card} [data-testid=approve-edit]`)});
    const once = document.querySelector(${JSON.stringify(`${card} [data-testid=approve-once]`)});
    return { verdict, disabled: button?.disabled ?? null, once: once?.disabled ?? null };`);
  const denied = await typed("sudo python deploy.py");
  const asked = await typed("python deploy.py --dry-run");
  check(`${name}: an edit's verdict shows before the click; a denied edit cannot be approved; while editing, Approve once (the unedited call) is off`,
    /^Denied by the policy/.test(denied.verdict) && denied.disabled === true && /^This edit is ask/.test(asked.verdict) && asked.disabled === false &&
      denied.once === true && asked.once === true,
    { denied, asked });
  // The always key is named only where a call offers a scope (`)` in a command: none).
  const keys = await s.evaluate(`
    await window.gate.park({ runId: "run-keys", calls: [{ toolCallId: "c1", tool: "bash", args: { command: "python -c 'print(1)'" } }], history: "{}" });
    for (let i = 0; i < 100 && !document.querySelector('toolgate-approval article[data-run-id="run-keys"]'); i++) await new Promise((r) => setTimeout(r, 50));
    const text = (id) => document.querySelector(\`toolgate-approval article[data-run-id="\${id}"] [data-testid=keys]\`)?.textContent ?? null;
    return { scoped: text("run-edit"), unscoped: text("run-keys") };`);
  check(`${name}: the keys hint names \`s\` (always allow) only where a scope is offered`,
    /always allow/.test(keys.scoped ?? "") && keys.unscoped !== null && !/always allow/.test(keys.unscoped), keys);
  await s.click(`${card} [data-testid=approve-edit]`);
  await s.waitFor("return window.decisions.length > 1 ? true : null;", 15_000);
  const done = await s.evaluate(`
    const d = window.decisions[1];
    const run = window.gate.run("run-edit");
    return { events: window.decisions.length, runId: d?.runId, result: d?.results?.[0], status: run.status,
             decided: run.decision?.calls?.[0], prompts: document.querySelectorAll(${JSON.stringify(card)}).length };`);
  check(`${name}: Approve edit resumes the run once with the edited call (editedFrom: the parked one)`,
    done.events === 2 && done.runId === "run-edit" && done.status === "running" && done.result?.outcome === "approved" &&
      done.result?.args?.command === "python deploy.py --dry-run" && done.result?.editedFrom?.command === "python deploy.py" &&
      done.decided?.editedFrom?.command === "python deploy.py" && done.prompts === 0,
    done);
}

/** Always allow…: each offered scope shows what it matches before it is given; the one
 * chosen resumes the run once, with that scope. */
async function grantFlow(s, name) {
  const card = 'toolgate-approval article[data-run-id="run-grant"]';
  await s.evaluate(`window.gate.park({ runId: "run-grant", calls: [{ toolCallId: "c1", tool: "bash", args: { command: "git push origin main" } }],
    history: JSON.stringify({ step: 3 }) });`);
  await s.waitFor(`return document.querySelector(${JSON.stringify(card)}) ? true : null;`, 15_000);
  const hidden = await s.evaluate(`return document.querySelector(${JSON.stringify(`${card} [data-testid=grant-box]`)})?.hidden ?? null;`);
  await s.click(`${card} [data-testid=approve-always]`);
  const shown = await s.evaluate(`
    const box = document.querySelector(${JSON.stringify(`${card} [data-testid=grant-box]`)});
    const matches = [...box.querySelectorAll("[data-testid=grant-matches]")].map((e) => e.textContent);
    return { hidden: box.hidden, matches, decided: window.decisions.length,
             timed: !!box.querySelector("[data-testid=grant-ttl], [data-testid=grant-once]"), text: box.textContent };`);
  check(`${name}: Always allow… shows each scope and what it would match, how long and single use, before anything is decided`,
    hidden === true && shown.hidden === false && shown.matches.length === 2 && /exactly the command/.test(shown.matches[0]) &&
      /each command of a line on its own/.test(shown.matches[1]) && shown.decided === 2 && shown.timed && !/host keeps it/.test(shown.text),
    { hidden, shown });
  await s.evaluate(`document.querySelectorAll(${JSON.stringify(`${card} [data-testid=grant-approve]`)})[1].click();`);
  await s.waitFor("return window.decisions.length > 2 ? true : null;", 15_000);
  await s.waitFor(`return document.querySelector("toolgate-approval [data-testid=grant]") ? true : null;`, 5_000).catch(() => null);
  const done = await s.evaluate(`const d = window.decisions[2]; const g = window.gate.grants();
    return { runId: d?.runId, result: d?.results?.[0], grants: g,
             listed: [...document.querySelectorAll("toolgate-approval [data-testid=grant]")].map((e) => e.textContent) };`);
  const hour = done.grants?.[0] ? done.grants[0].expiresAt - done.grants[0].createdAt : 0;
  check(`${name}: Approve and keep resumes the run once with the scope chosen; the page's Gate keeps it (1 hour) and the element lists it`,
    done.runId === "run-grant" && done.result?.outcome === "approved" && done.result?.scope === "Bash(git push:*)" &&
      done.grants?.length === 1 && done.grants[0].rule === "Bash(git push:*)" && done.grants[0].state === "live" && hour === 3_600_000 &&
      done.listed.length === 1 && done.listed[0].includes("Bash(git push:*)"),
    done);
  await grantsDecide(s, name, done.grants?.[0]?.id);
}

/** The Gate's grants decide the parks they cover (the element settles them, the host
 * gets a `toolgate-decision` naming the grant, no prompt stays), not a compound line;
 * a grant expires while its session goes on; a revoked grant decides nothing. */
async function grantsDecide(s, name, grantId) {
  const card = (id) => `toolgate-approval article[data-run-id="${id}"]`;
  const parkAndWait = (id, command) => s.evaluate(`
    const before = window.decisions.length;
    window.gate.park({ runId: ${JSON.stringify(id)}, calls: [{ toolCallId: "c1", tool: "bash", args: { command: ${JSON.stringify(command)} } }], history: "{}" });
    for (let i = 0; i < 60; i++) {
      if (window.decisions.length > before) break;
      if (document.querySelector(${JSON.stringify(card(id))})) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const d = window.decisions.length > before ? window.decisions[window.decisions.length - 1] : null;
    return { decided: d ? { runId: d.runId, outcome: d.results?.[0]?.outcome, grant: d.results?.[0]?.grant } : null,
             prompt: !!document.querySelector(${JSON.stringify(card(id))}), status: window.gate.run(${JSON.stringify(id)}).status,
             marks: [...document.querySelectorAll(${JSON.stringify(`${card(id)} mark`)})].map((m) => m.textContent) };`);
  const covered = await parkAndWait("run-g2", "git push origin dev");
  const compound = await parkAndWait("run-g3", "git push origin dev; rm -rf build");
  check(`${name}: a park the grant covers is decided by it at once (named, no prompt); a compound line gets a prompt, both deciding parts marked`,
    covered.decided?.runId === "run-g2" && covered.decided.outcome === "approved" && covered.decided.grant === grantId && !covered.prompt &&
      covered.status === "running" && compound.decided === null && compound.prompt && compound.status === "awaiting_permission" &&
      compound.marks.join(",") === "git,rm",
    { covered, compound });
  // A short grant (given through the API: the prompt offers 15 minutes and more).
  const short = await s.evaluate(`
    const p = window.gate.park({ runId: "run-t1", calls: [{ toolCallId: "c1", tool: "bash", args: { command: "npm publish" } }], history: "{}" });
    await window.gate.resume("run-t1", { decisions: [{ toolCallId: "c1", anchor: p.run.marker.calls[0].anchor, decision: "allow",
      scope: "Bash(npm publish)", ttlMs: 1500 }] });
    return window.gate.grants().filter((g) => g.state === "live").map((g) => g.rule);`);
  const live = await parkAndWait("run-t2", "npm publish");
  await new Promise((r) => setTimeout(r, 1700));
  const late = await parkAndWait("run-t3", "npm publish");
  check(`${name}: a 1.5 s grant decides a call while it lives; after it expired the next one waits for a person`,
    short.includes("Bash(npm publish)") && live.decided?.runId === "run-t2" && live.decided.outcome === "approved" &&
      late.decided === null && late.prompt && late.status === "awaiting_permission",
    { short, live, late });
  await s.click(`toolgate-approval [data-grant-id="${grantId}"] [data-testid=revoke-grant]`);
  await s.waitFor(`return window.gate.grants().some((g) => g.id === ${JSON.stringify(grantId)} && g.state === "revoked") ? true : null;`, 5_000);
  const revoked = await parkAndWait("run-g4", "git push origin dev");
  const listed = await s.evaluate(`return document.querySelectorAll("toolgate-approval [data-testid=grant]").length;`);
  check(`${name}: Revoke in the element: the next matching call gets a prompt; the list shows no grant`,
    revoked.decided === null && revoked.prompt && revoked.status === "awaiting_permission" && listed === 0, { revoked, listed });
}

/** A command holding a right-to-left override and a zero-width space: both shown as
 * visible escapes, with a warning; the call's other arguments under the command. */
async function invisibleFlow(s, name) {
  const card = 'toolgate-approval article[data-run-id="run-bidi"]';
  await s.evaluate(`window.gate.park({ runId: "run-bidi", calls: [{ toolCallId: "c1", tool: "bash",
    args: { command: "python tools/\u202Egnp.py\u202C --all \u200B# ok", cwd: "/srv/app" } }], history: "{}" });`);
  await s.waitFor(`return document.querySelector(${JSON.stringify(card)}) ? true : null;`, 15_000);
  const got = await s.evaluate(`
    const c = document.querySelector(${JSON.stringify(card)});
    return { args: c.querySelector("[data-testid=tool-args]")?.textContent ?? "",
             warning: c.querySelector("[data-testid=invisible-warning]")?.textContent ?? null,
             plain: document.querySelector('toolgate-approval article[data-run-id="run-grant"] [data-testid=invisible-warning]') };`);
  check(`${name}: a bidi override and a zero-width space show as visible escapes, with a warning; the command as a command, its cwd under it`,
    got.args.includes("tools/\\u{202E}gnp.py\\u{202C} --all \\u{200B}# ok") && !/[\u202E\u200B]/.test(got.args) &&
      got.args.includes('"cwd": "/srv/app"') && !got.args.includes('"command"') && /invisible or text-direction/.test(got.warning ?? "") && got.plain === null,
    got);
}

/** A question parked in the page's Gate survives a reload: the element shows it from the
 * stored marker alone, it offers no approval, and the answer typed after the reload
 * resumes the run once with the answer (the agent's tool never runs). */
async function questionFlow(s, name, url) {
  const at = `${url}?owner=q-${Date.now()}&nopark`;
  const card = 'toolgate-approval article[data-run-id="run-q"]';
  const ready = "return window.gate && document.querySelector('toolgate-approval') ? true : null;";
  await s.open(at);
  await s.waitFor(ready, 15_000);
  await s.evaluate(`await window.gate.park({ runId: "run-q", calls: [{ toolCallId: "q1", tool: "ask_user",
    args: { text: "Which branch?" }, question: "Which branch should I push to, \u202Emain\u202C or a new one?" }],
    history: JSON.stringify({ step: 4 }) });`);
  await s.waitFor(`return document.querySelector(${JSON.stringify(card)}) ? true : null;`, 15_000);
  await s.open(at); // the reload: a new page, the same owner, the marker in localStorage
  await s.waitFor(`return document.querySelector(${JSON.stringify(card)}) ? true : null;`, 15_000);
  const shown = await s.evaluate(`
    const c = document.querySelector(${JSON.stringify(card)});
    return { question: c.querySelector("[data-testid=question]")?.textContent ?? null,
             title: c.querySelector("h3")?.textContent ?? "",
             approve: c.querySelectorAll("[data-testid=approve-once], [data-testid=approve-always], [data-testid=edit]").length,
             submit: c.querySelector("[data-testid=answer-submit]")?.disabled ?? null,
             keys: c.querySelector("[data-testid=keys]") !== null, decisions: window.decisions.length };`);
  check(`${name}: after a reload the pending question shows from its marker alone, with no approval to give (Answer off until typed)`,
    shown.question === "Which branch should I push to, \\u{202E}main\\u{202C} or a new one?" && /asks you 1 question/.test(shown.title) &&
      shown.approve === 0 && shown.submit === true && !shown.keys && shown.decisions === 0,
    shown);
  await s.evaluate(`
    const box = document.querySelector(${JSON.stringify(`${card} [data-testid=answer]`)});
    box.value = "a new one: fix/parse-date";
    box.dispatchEvent(new Event("input", { bubbles: true }));
    await new Promise((r) => setTimeout(r, 100));`);
  await s.click(`${card} [data-testid=answer-submit]`);
  await s.waitFor("return window.decisions.length > 0 ? true : null;", 15_000);
  const done = await s.evaluate(`
    const d = window.decisions[0];
    const run = window.gate.run("run-q");
    let again = "answered again";
    try {
      await window.gate.resume("run-q", { decisions: [{ toolCallId: "q1", anchor: d.results[0] && run.decision.calls[0].anchor, decision: "answer", answer: "main" }] });
    } catch (e) {
      again = e.code;
    }
    return { events: window.decisions.length, result: d?.results?.[0], status: run.status, decided: run.decision?.calls?.[0],
             history: d?.history, again, prompts: document.querySelectorAll(${JSON.stringify(card)}).length, errors: window.pageErrors };`);
  check(`${name}: the answer after the reload resumes the run once: outcome answered, the answer as the tool's result`,
    done.events === 1 && done.result?.outcome === "answered" && done.result?.answer === "a new one: fix/parse-date" &&
      done.result?.toolResult === "a new one: fix/parse-date" && done.status === "running" && done.decided?.answer === "a new one: fix/parse-date" &&
      JSON.parse(done.history ?? "{}").step === 4 && done.again === "already_resumed" && done.prompts === 0 && done.errors.length === 0,
    done);
}

const work = mkdtempSync(join(tmpdir(), "toolgate-element-"));
const servers = [];
try {
  const app = join(work, "app");
  const installed = installTarball(app);
  check("npm install of the tarball", installed.ok, installed.out);
  const plain = join(work, "plain");
  cpSync(join(ROOT, "web", "consumers", "plain"), plain, { recursive: true });
  cpSync(join(ROOT, "web", "consumers", "frameworks", "test-run.js"), join(plain, "test-run.js"));
  cpSync(join(app, "node_modules", "toolgate"), join(plain, "toolgate"), { recursive: true });
  writeFileSync(join(plain, "favicon.ico"), "");
  const frameworks = join(work, "frameworks");
  const built = buildConsumer("frameworks", frameworks);
  check("React and Vue pages: npm ci, the tarball installed, a Vite production build", built.ok, built.out);
  writeFileSync(join(frameworks, "dist", "favicon.ico"), "");

  const plainSite = await serveDir(plain);
  servers.push(plainSite.proc);
  const appSite = await serveDir(join(frameworks, "dist"));
  servers.push(appSite.proc);
  const pages = [
    ["plain page", `${plainSite.url}index.html`],
    // The same flows over a Gate of the main entry, through `el.source = gateRunSource(gate)`.
    ["plain page, main entry's gate", `${plainSite.url}main-entry.html`],
    ["React page", `${appSite.url}react.html`],
    ["Vue page", `${appSite.url}vue.html`],
  ];
  await eachEngine(check, async (engine) => {
    for (const [label, url] of pages) await elementFlow(engine, label, url);
    console.log(`engine: ${engine.name} ${engine.version}`);
  });
} finally {
  for (const p of servers) p.kill();
  rmSync(work, { recursive: true, force: true });
}
finish("element");
