// The npm package, tested as a user gets it: `./scripts/package` builds and packs it,
// and this test installs THE TARBALL (not the source tree) into throwaway consumer
// projects with their own lockfiles.
// - Node ESM: `import { Policy, Gate } from "toolgate"` classifies with no init call;
//   a Gate checks and is answered; `init()` exists and does nothing.
// - Node CommonJS: `require("toolgate")` the same.
// - publint (--strict) and @arethetypeswrong/cli report no problems.
// - The browser entry in Chromium under a strict CSP
//   (`script-src 'self' 'wasm-unsafe-eval'`, as an Electron renderer would set it):
//   `await init()` loads the .wasm beside it and classifies.
//
//   node web/e2e/package.test.mjs

import { chromium } from "playwright-core";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, rmSync, cpSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { serveDir } from "./serve.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const BIN = join(ROOT, "web", "node_modules", ".bin");
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
const tgz = execFileSync(join(ROOT, "scripts", "package"), { cwd: ROOT, encoding: "utf8" }).trim().split("\n").pop();
const TGZ = tgz.startsWith("/") ? tgz : join(ROOT, tgz);
const PKG_DIR = join(dirname(TGZ), "toolgate");

let passed = 0;
let failed = 0;
function check(name, cond, detail) {
  if (cond) {
    passed++;
    console.log(`ok   ${name}`);
  } else {
    failed++;
    console.log(`FAIL ${name}: ${typeof detail === "string" ? detail : JSON.stringify(detail)}`);
  }
}
function run(cmd, args, cwd) {
  try {
    return { ok: true, out: execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }) };
  } catch (e) {
    return { ok: false, out: `${e.stdout ?? ""}${e.stderr ?? ""}${e.message}` };
  }
}

const work = mkdtempSync(join(tmpdir(), "toolgate-consumer-"));
try {
  // A consumer project: its own package.json and lockfile, the tarball installed.
  const app = join(work, "node-app");
  execFileSync("mkdir", ["-p", app]);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  const install = run("npm", ["install", TGZ, "--no-audit", "--no-fund", "--loglevel=error"], app);
  check("npm install of the tarball", install.ok && existsSync(join(app, "package-lock.json")), install.out);

  writeFileSync(
    join(app, "esm.mjs"),
    `import init, { Policy, Gate } from "toolgate";
const p = Policy.defaults({ workspace: "/home/dev/app", home: "/home/dev" });
const tiers = ["ls -la", "git push", "rm -rf /"].map((command) => p.classify({ tool: "bash", args: { command } }).tier);
await init();
const g = new Gate(p, { sessionId: "s" });
const auto = (await g.check({ tool: "bash", args: { command: "ls" } })).outcome;
const waiting = g.check({ tool: "bash", args: { command: "git push" }, toolCallId: "c1" });
const [req] = g.pending();
g.respond(req.id, { decision: "deny", anchor: req.anchor, message: "no" });
const asked = await waiting;
g.dispose();
console.log(JSON.stringify({ tiers, auto, asked: asked.outcome, message: asked.message }));
`,
  );
  const esm = run("node", ["esm.mjs"], app);
  let r = null;
  try {
    r = JSON.parse(esm.out.trim().split("\n").pop());
  } catch {}
  check(
    "Node ESM: classifies with no init call, a Gate is answered",
    r && r.tiers.join() === "auto,ask,deny" && r.auto === "approved" && r.asked === "denied" && r.message === "no",
    esm.out,
  );

  writeFileSync(
    join(app, "cjs.cjs"),
    `const tg = require("toolgate");
const p = tg.Policy.defaults({ workspace: "/home/dev/app", home: "/home/dev" });
console.log(JSON.stringify({ tier: p.classify({ tool: "bash", args: { command: "cat .env" } }).tier, init: typeof tg.default, gate: typeof tg.Gate }));
`,
  );
  const cjs = run("node", ["cjs.cjs"], app);
  check("Node CommonJS: require works", cjs.ok && cjs.out.includes('"tier":"ask"') && cjs.out.includes('"init":"function"'), cjs.out);

  const lint = run(join(BIN, "publint"), ["--strict", PKG_DIR], ROOT);
  check("publint --strict: no problems", lint.ok && /All good/.test(lint.out), lint.out);
  const attw = run(join(BIN, "attw"), [TGZ, "--exclude-entrypoints", "./toolgate_wasm_bg.wasm", "--format", "ascii"], ROOT);
  check("@arethetypeswrong/cli: no problems", attw.ok && /No problems found/.test(attw.out), attw.out);

  // The browser entry, from the installed package, under a strict CSP.
  const site = join(work, "site");
  cpSync(join(app, "node_modules", "toolgate"), join(site, "toolgate"), { recursive: true });
  writeFileSync(join(site, "favicon.ico"), "");
  writeFileSync(
    join(site, "index.html"),
    `<!doctype html>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self' 'wasm-unsafe-eval'">
<title>toolgate package</title>
<script type="module" src="./main.js"></script>
`,
  );
  writeFileSync(
    join(site, "main.js"),
    `import init, { Policy } from "./toolgate/web.js";
await init();
const p = Policy.defaults({ workspace: "/w", home: "/h" });
window.result = ["ls", "curl x | sh"].map((command) => p.classify({ tool: "bash", args: { command } }).tier).join();
`,
  );
  const { url, proc } = await serveDir(site);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(url);
    const result = await page.waitForFunction(() => window.result, null, { timeout: 15000 }).then(
      (h) => h.jsonValue(),
      (e) => `timeout: ${e.message}`,
    );
    check("browser entry under a strict CSP: init() loads the .wasm and classifies", result === "auto,deny", { result, errors });
    check("no CSP violation or console error", errors.length === 0, errors);
  } finally {
    await browser.close();
    proc.kill();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
console.log(`package: ${passed} passed, ${failed} failed`);
if (failed) process.exit(1);
