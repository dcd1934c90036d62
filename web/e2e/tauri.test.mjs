// A real Tauri app with tauri-plugin-toolgate (examples/tauri-app): its window is
// WebKitGTK, driven through tauri-driver (Tauri's WebDriver intermediary) and
// WebKitWebDriver under xvfb-run. The app's Rust side runs a scripted agent that asks
// the plugin before each tool call (`app.toolgate().check_with`): `git status` (auto),
// `npm publish` (ask), `rm -rf /` (deny). The window's <toolgate-approval> renders the
// plugin's runs (toolgate/tauri, from the packed tarball, built with Vite):
// - the auto call ran without a prompt; the ask call is shown; it has not run;
// - a reload of the window keeps the prompt (the run is in the plugin's SQLite store);
// - a click on "Approve once" resumes it through the plugin: the agent's check hears
//   `approved`, the call runs once, the deny never runs; a second decision is refused.
// The window loads its page from the app's devUrl (http://127.0.0.1:1420, a debug
// build), where this test serves the Vite build.
//   node web/e2e/tauri.test.mjs   (part of web/e2e/run.mjs)
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checker } from "./checks.mjs";
import { startWebDriver, webdriverSession } from "./drivers.mjs";
import { freePort, serveDir } from "./serve.mjs";
import { buildConsumer, ROOT, run } from "./tarball.mjs";

const { check, finish } = checker();
const PROMPT = "toolgate-approval [data-testid=approval-prompt]";
const DEV_PORT = 1420; // src-tauri/tauri.conf.json's devUrl
const work = mkdtempSync(join(tmpdir(), "toolgate-tauri-"));
const data = join(work, "xdg-data"); // XDG_DATA_HOME: the app's data directory is in it
const agentLog = join(data, "dev.toolgate.example", "agent.log");
const target = process.env.CARGO_TARGET_DIR ?? join(ROOT, "target");
const app = join(target, "debug", "toolgate-tauri-example");
const ran = () => (existsSync(agentLog) ? readFileSync(agentLog, "utf8").trim().split("\n") : []);
const count = (line) => ran().filter((l) => l === line).length;
const state = `
  const prompts = [...document.querySelectorAll(${JSON.stringify(PROMPT)})];
  return { ready: window.ready === true, prompts: prompts.length, text: prompts.map((p) => p.textContent).join(" "),
           errors: window.pageErrors ?? [], decisions: window.decisions ?? 0 };`;

let site;
let driver;
let session;
try {
  const built = run("cargo", ["build", "-p", "toolgate-tauri-example", "--locked"], ROOT);
  check("the example app builds (cargo build -p toolgate-tauri-example)", built.ok && existsSync(app), built.out.slice(-2000));
  const page = buildConsumer("tauri-app", join(work, "page"), join(ROOT, "examples", "tauri-app"));
  check("its window's page installs the tarball and @tauri-apps/api and builds with Vite", page.ok, page.out.slice(-2000));
  if (built.ok && page.ok) {
    site = await serveDir(join(work, "page", "dist"), DEV_PORT);
    const port = await freePort();
    const nativePort = await freePort();
    driver = await startWebDriver(
      "tauri-driver",
      ["--port", String(port), "--native-port", String(nativePort), "--native-driver", "/usr/bin/WebKitWebDriver"],
      port,
      { ...process.env, XDG_DATA_HOME: data, PATH: `${process.env.HOME}/.cargo/bin:${process.env.PATH}` },
    );
    const created = await driver.wd("POST", "/session", { capabilities: { alwaysMatch: { "tauri:options": { application: app } } } });
    session = webdriverSession(driver.wd, created.sessionId);

    const shown = await session.waitFor(`return window.ready && document.querySelector(${JSON.stringify(PROMPT)}) ? true : null;`, 30_000);
    const first = await session.evaluate(state);
    check("the app starts; its agent's auto call ran without a prompt; the ask call is shown in <toolgate-approval>; it has not run",
      shown === true && first.prompts === 1 && first.text.includes("npm publish") &&
        count("ran: git status") === 1 && count("ran: npm publish") === 0,
      { first, log: ran() });

    await session.refresh();
    const back = await session.waitFor(`return window.ready && document.querySelector(${JSON.stringify(PROMPT)}) ? true : null;`, 30_000);
    const reloaded = await session.evaluate(state);
    check("a reload of the window keeps the prompt (the run is in the plugin's store), and nothing ran",
      back === true && reloaded.prompts === 1 && reloaded.text.includes("npm publish") && count("ran: npm publish") === 0,
      { reloaded, log: ran() });

    const pendingCall = await session.evaluate(`
      const { runs } = await window.toolgate.runs();
      const run = runs.find((r) => r.status === "awaiting_permission");
      const call = run?.marker?.calls?.[0];
      return call ? { runId: run.runId, toolCallId: call.toolCallId, anchor: call.anchor } : null;`);
    await session.click("toolgate-approval [data-testid=approve-once]");
    const until = Date.now() + 20_000;
    while (Date.now() < until && !ran().some((l) => l.startsWith("not run: rm -rf /"))) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 500)); // a second run would show by now
    const after = await session.evaluate(state);
    check("Approve once: the agent's check hears approved, the call runs exactly once; the deny never runs",
      count("ran: npm publish") === 1 && count("ran: git status") === 1 && count("ran: rm -rf /") === 0 &&
        ran().some((l) => l.startsWith("not run: rm -rf /")) && after.decisions === 1,
      { after, log: ran() });
    const again = await session.evaluate(`
      const p = ${JSON.stringify(pendingCall)};
      const status = (await window.toolgate.run(p.runId))?.status;
      try {
        await window.toolgate.resume(p.runId, { decisions: [{ toolCallId: p.toolCallId, anchor: p.anchor, decision: "allow" }] });
        return { code: "resumed again", status };
      } catch (e) { return { code: e.code, status }; }`);
    check("a second decision of the same call is refused; the run is completed",
      ["already_resumed", "not_awaiting_permission"].includes(again?.code) && again.status === "completed" && count("ran: npm publish") === 1,
      again);
    const end = await session.evaluate(state);
    check("no prompt is left and the page had no error", end.prompts === 0 && end.errors.length === 0, end);
  }
} catch (e) {
  check("the Tauri app end to end", false, String(e?.stack ?? e));
} finally {
  await session?.close();
  driver?.kill();
  site?.proc.kill();
  rmSync(work, { recursive: true, force: true });
}
finish("tauri");
