// Two ways to drive a page for the tests that must pass in more than one engine
// (element.test.mjs): Chromium through Playwright, and WebKitGTK (the engine of Tauri's
// webview on Linux, a close relative of Safari's) through WebKitWebDriver, the W3C
// WebDriver server Debian's webkit2gtk-driver ships, under xvfb-run (WebKitGTK needs a
// display). Both give one interface:
//   open(url)                 navigate and wait for the load
//   evaluate(body)            run `body`, the text of an async function, in the page
//                             (it `return`s a JSON value)
//   waitFor(body, ms)         evaluate until it returns something not null
//   click(selector)           a real click (Playwright's, WebDriver's Element Click)
//   refresh()                 reload the page (WebDriver only)
//   consoleErrors()           console errors seen (Chromium; WebDriver has no log API)
//   close()
import { spawn } from "node:child_process";
import { launchChromium } from "./checks.mjs";
import { freePort } from "./serve.mjs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function poll(evaluate, body, ms) {
  const until = Date.now() + ms;
  for (;;) {
    const v = await evaluate(body);
    if (v !== null && v !== undefined) return v;
    if (Date.now() > until) return null;
    await sleep(100);
  }
}

/** Chromium: one browser; each `session()` is a fresh context (its own storage). */
export async function chromiumEngine() {
  const browser = await launchChromium();
  return {
    name: "chromium",
    version: browser.version(),
    async session() {
      const context = await browser.newContext();
      const page = await context.newPage();
      const errors = [];
      page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
      page.on("pageerror", (e) => errors.push(e.message));
      const evaluate = (body) => page.evaluate(`(async () => { ${body} })()`);
      return {
        open: (url) => page.goto(url, { waitUntil: "load" }),
        evaluate,
        waitFor: (body, ms) => poll(evaluate, body, ms),
        click: (selector) => page.click(selector, { timeout: 10_000 }),
        consoleErrors: () => errors,
        close: () => context.close(),
      };
    },
    close: () => browser.close(),
  };
}

const MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";

/** A W3C WebDriver client for the server at `base`: `wd(method, path, body)` resolves
 * with the answer's `value`, rejects with the server's error. */
export function webdriverClient(base) {
  return async function wd(method, path, body) {
    const res = await fetch(base + path, {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    const json = await res.json();
    if (!res.ok) throw new Error(`WebDriver ${method} ${path}: ${json.value?.error}: ${json.value?.message}`);
    return json.value;
  };
}

/** Starts `xvfb-run -a CMD ARGS` (a WebDriver server, in its own process group) and
 * waits until it is ready: `{ wd, kill }`. */
export async function startWebDriver(cmd, args, port, env = process.env) {
  const proc = spawn("xvfb-run", ["-a", cmd, ...args], { stdio: "ignore", detached: true, env });
  const kill = () => {
    try {
      process.kill(-proc.pid, "SIGKILL");
    } catch {}
  };
  const wd = webdriverClient(`http://127.0.0.1:${port}`);
  for (let i = 0; i < 100; i++) {
    try {
      if ((await wd("GET", "/status")).ready) return { wd, kill };
    } catch {
      await sleep(100);
    }
  }
  kill();
  throw new Error(`${cmd} did not start (./scripts/setup installs it)`);
}

/** The session interface over WebDriver session `id` (see the top of this file), plus
 * `refresh()`. */
export function webdriverSession(wd, id) {
  const s = `/session/${id}`;
  const evaluate = async (body) => {
    const script = `const done = arguments[arguments.length - 1];
(async () => { ${body} })().then((v) => done({ ok: v === undefined ? null : v }), (e) => done({ error: String((e && e.stack) || e) }));`;
    const r = await wd("POST", `${s}/execute/async`, { script, args: [] });
    if (r && "error" in r) throw new Error(r.error);
    return r?.ok ?? null;
  };
  return {
    open: (url) => wd("POST", `${s}/url`, { url }),
    refresh: () => wd("POST", `${s}/refresh`, {}),
    evaluate,
    waitFor: (body, ms) => poll(evaluate, body, ms),
    async click(selector) {
      const el = await wd("POST", `${s}/element`, { using: "css selector", value: selector });
      const elementId = Object.values(el)[0];
      await wd("POST", `${s}/element/${elementId}/click`, {});
    },
    consoleErrors: () => [],
    close: () => wd("DELETE", s).catch(() => {}),
  };
}

/** WebKitGTK: WebKitWebDriver under xvfb-run (its own process group, killed by
 * close()); each `session()` is a WebDriver session (a fresh MiniBrowser). */
export async function webkitEngine() {
  const port = await freePort();
  const { wd, kill } = await startWebDriver("WebKitWebDriver", [`--port=${port}`], port).catch((e) => {
    throw new Error(`WebKitWebDriver did not start (is webkit2gtk-driver installed? ./scripts/setup): ${e.message}`);
  });
  let version = "";
  return {
    name: "webkitgtk",
    get version() {
      return version;
    },
    async session() {
      const caps = { "webkitgtk:browserOptions": { binary: MINIBROWSER, args: ["--automation"] } };
      const created = await wd("POST", "/session", { capabilities: { alwaysMatch: caps } });
      version = `${created.capabilities.browserName} ${created.capabilities.browserVersion}`;
      return webdriverSession(wd, created.sessionId);
    },
    async close() {
      kill();
    },
  };
}

/** Runs `fn(engine)` in Chromium, then in WebKitGTK (unless TOOLGATE_SKIP_WEBKIT is
 * set, which is said); an engine that does not start is a failed `check`. Each engine
 * is closed after its turn, whatever happened. */
export async function eachEngine(check, fn) {
  const engines = [chromiumEngine];
  if (process.env.TOOLGATE_SKIP_WEBKIT) console.log("SKIPPED: WebKitGTK (TOOLGATE_SKIP_WEBKIT is set)");
  else engines.push(webkitEngine);
  for (const start of engines) {
    let engine;
    try {
      engine = await start();
    } catch (e) {
      check(`${start.name}: the engine starts`, false, String(e?.stack ?? e));
      continue;
    }
    try {
      await fn(engine);
    } finally {
      await engine.close();
    }
  }
}
