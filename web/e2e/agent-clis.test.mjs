// The real agent CLIs, from npm (web/agent-clis' lockfile: @anthropic-ai/claude-code,
// @openai/codex, @google/gemini-cli, @github/copilot, OpenCode's opencode-linux-x64), run offline against scripted model endpoints
// (web/agent-clis/fake-models.mjs), with toolgate's hook installed in each one's own
// settings by `toolgate install`. For each CLI:
// - a harmless call (`echo harmless-ran`, auto) runs: its output reaches the model;
// - a dangerous call (`sudo touch MARKER`, deny) is blocked with toolgate's reason, and
//   the marker is never created;
// and for Claude Code in `-p`, a call that asks (`touch MARKER`) is deferred: the process
// ends with it parked, `toolgate runs` lists it, `toolgate decide RUN allow` approves it,
// and `claude -p --resume SESSION` runs it; the run is then completed. A second one is
// decided through toolgate-server's panel API on the same database.
// Only in ./scripts/test --full (TOOLGATE_FULL=1): the five CLIs are about 1.5 GB (and
// Copilot CLI unpacks 235 MB more into its cache on first run).
//   node web/e2e/agent-clis.test.mjs
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checker } from "./checks.mjs";
import { run } from "./cmd.mjs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { anthropic, gemini, openai, openaiChat } from "../agent-clis/fake-models.mjs";
import { api, startServer } from "./server-proc.mjs";

const { check, finish } = checker();
// Not from tarball.mjs, which packs the npm package on import: this test needs none,
// and two things that package at once break each other (scripts/package).
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

const CLIS = join(ROOT, "web", "agent-clis");
const BIN = join(CLIS, "node_modules", ".bin");
const toolgate = join(process.env.CARGO_TARGET_DIR ?? join(ROOT, "target"), "debug", "toolgate");
/** TOOLGATE_AGENT_CLIS=gemini,codex runs only those CLIs (all by default). */
const want = (name) => !process.env.TOOLGATE_AGENT_CLIS || process.env.TOOLGATE_AGENT_CLIS.split(",").includes(name);
const work = mkdtempSync(join(tmpdir(), "toolgate-agent-clis-"));
const pwned = join(work, "pwned");
const made = join(work, "made");
const HARMLESS = "echo harmless-ran";
const DANGEROUS = `sudo touch ${pwned}`;

/** Runs a CLI with only the environment given (and PATH), without blocking this
 * process's event loop (the fake endpoints live in it): {code, out, err}. */
function exec(cmd, args, cwd, env, timeoutMs = 120_000) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env: { PATH: process.env.PATH, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

/**
 * Runs `cmd args` in a terminal (util-linux `script` gives it one) until `prompt` shows
 * on its screen; checks for a few seconds that `done()` is still false (the call waits
 * for the person), presses Enter, and waits for `done()`. Kills the whole process group.
 */
async function inTerminal(cmd, args, cwd, env, prompt, done, timeoutMs = 90_000) {
  const quote = (a) => `'${a.replaceAll("'", "'\\''")}'`;
  const line = ["stty cols 120 rows 40;", quote(cmd), ...args.map(quote)].join(" ");
  const child = spawn("script", ["-qfec", line, "/dev/null"], {
    cwd, env: { PATH: process.env.PATH, TERM: "xterm-256color", ...env }, stdio: ["pipe", "pipe", "pipe"], detached: true,
  });
  let screen = "";
  child.stdout.on("data", (d) => (screen += d));
  child.stderr.on("data", (d) => (screen += d));
  const plain = () => screen.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const until = async (f, ms) => {
    const end = Date.now() + ms;
    while (Date.now() < end && !f()) await sleep(250);
    return f();
  };
  const result = { asked: false, ranBefore: false, ran: false };
  try {
    result.asked = await until(() => prompt.test(plain()) && /toolgate: /.test(plain()), timeoutMs);
    if (result.asked) {
      await sleep(4_000);
      result.ranBefore = done();
      child.stdin.write("\r");
      result.ran = await until(done, 30_000);
    }
  } finally {
    try { process.kill(-child.pid, "SIGKILL"); } catch { /* gone */ }
  }
  return { ...result, screen: plain() };
}

/** A fresh HOME and workspace for one CLI. */
function fresh(name) {
  const home = join(work, `${name}-home`);
  const ws = join(work, `${name}-ws`);
  mkdirSync(home, { recursive: true });
  mkdirSync(ws, { recursive: true });
  return { home, ws };
}

/** `toolgate install ARGS` with this environment: {ok, out}. */
function install(env, args) {
  try {
    return { ok: true, out: execFileSync(toolgate, ["install", ...args], { cwd: work, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }) };
  } catch (e) {
    return { ok: false, out: `${e.stdout ?? ""}${e.stderr ?? ""}${e.message}` };
  }
}
const json = (text) => {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
};

/** A copy of the toolgate binary in its own directory, to be removed later: installs a
 * hook that runs it (with toolgate install's failure guard), and returns a function
 * that deletes the copy, as a move, an upgrade or `cargo clean` would. */
function removableHook(env, host, name) {
  const dir = join(work, `${name}-gone`);
  mkdirSync(dir, { recursive: true });
  const bin = join(dir, "toolgate");
  copyFileSync(toolgate, bin);
  chmodSync(bin, 0o755);
  install(env, [host, "--uninstall"]);
  const inst = install(env, [host, "--command", `${bin} hook ${host}`]);
  return { inst, remove: () => rmSync(bin, { force: true }) };
}

/** The settings file at `file` with toolgate's failure guard taken out (`|| exit 2`,
 * Claude Code's onFailure): the entry an older toolgate install wrote. */
function unguard(file) {
  const text = readFileSync(file, "utf8").replaceAll(" || exit 2", "").replace(/,\s*"onFailure": "block"/g, "");
  writeFileSync(file, text);
  return !text.includes("exit 2") && !text.includes("onFailure");
}

// What each CLI sent back to the model as the tool's result.
const claudeResults = (reqs) =>
  reqs.flatMap((r) => (Array.isArray(r.body.messages?.at(-1)?.content) ? r.body.messages.at(-1).content : []))
    .filter((b) => b.type === "tool_result")
    .map((b) => (typeof b.content === "string" ? b.content : JSON.stringify(b.content)));
const codexResults = (reqs) =>
  reqs.flatMap((r) => r.body.input ?? []).filter((i) => i.type === "function_call_output").map((i) => String(i.output));
/** A key in the home and a script in the workspace that builds, tries the key and
 * prints `sandboxed-ran 42`: what a sandboxed run must show (ranContained). */
function plantSandboxWorld(home, ws) {
  mkdirSync(join(home, ".ssh"), { recursive: true });
  writeFileSync(join(home, ".ssh", "id_rsa"), "-----BEGIN PRIVATE KEY----- sb-secret\n");
  writeFileSync(join(ws, "t.py"), [
    "import os",
    "open('built.txt', 'w').write('built')",
    "try:",
    "    print('key', open(os.path.expanduser('~/.ssh/id_rsa')).read())",
    "except OSError as e:",
    "    print('key refused', type(e).__name__)",
    "print('sandboxed-ran', 6 * 7)",
  ].join("\n"));
}

/** The script ran contained: its output reached the model, it wrote its build output in
 * the workspace, and the home's key was refused and never printed. */
const ranContained = (results, ws) =>
  results.some((t) => t.includes("sandboxed-ran 42") && t.includes("key refused")) && !results.some((t) => t.includes("sb-secret"))
  && existsSync(join(ws, "built.txt"));

/** Starts an agent CLI run (`start()`, a promise of its result) whose call is `command`
 * and, when `decision` is given, decides the call as a person would from the panel:
 * finds it parked on toolgate-server (`remote`) as `token`, an approver, and posts the
 * decision through the panel's API (a deny with the message "not now"). `{shown,
 * answer, r}`. */
async function answerRemotely(remote, token, command, decision, start) {
  const running = start();
  let shown = null;
  for (let i = 0; i < 80 && !shown && decision; i++) {
    const runs = (await api(remote.url, "GET", "v1/runs?status=awaiting_permission", token)).json?.runs ?? [];
    shown = runs.find((x) => x.marker?.calls?.[0]?.args?.command === command) ?? null;
    if (!shown) await new Promise((res) => setTimeout(res, 100));
  }
  const call = shown?.marker?.calls?.[0] ?? {};
  const answer = shown
    ? await api(remote.url, "POST", `v1/runs/${shown.runId}/decisions`, token,
      { decisions: [{ toolCallId: call.toolCallId, anchor: call.anchor, decision, ...(decision === "deny" ? { message: "not now" } : {}) }] })
    : null;
  return { shown, answer, r: await running };
}

const geminiResults = (reqs) =>
  reqs.flatMap((r) => r.body.contents ?? []).flatMap((c) => c.parts ?? []).filter((p) => p.functionResponse)
    .map((p) => JSON.stringify(p.functionResponse.response));

try {
  const ci = run("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], CLIS);
  check("the five CLIs install from npm (web/agent-clis/package-lock.json)", ci.ok, ci.out.slice(-2000));
  check("the toolgate binary is built (cargo build -p toolgate-cli)", existsSync(toolgate), toolgate);

  // --- Claude Code ---
  if (want("claude")) {
    const { home, ws } = fresh("claude");
    const script = { name: "Bash", input: { command: HARMLESS, description: "greet" } };
    const fake = await anthropic(script);
    const env = {
      HOME: home,
      ANTHROPIC_BASE_URL: fake.url,
      ANTHROPIC_API_KEY: "sk-ant-fake",
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
      DISABLE_AUTOUPDATER: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    };
    const claude = (args) => exec(join(BIN, "claude"), [...args, "--output-format", "json"], ws, env);
    const inst = install({ HOME: home, PATH: process.env.PATH }, ["claude-code"]);
    check("claude: `toolgate install claude-code` adds the hook to ~/.claude/settings.json", inst.ok && /added/.test(inst.out), inst.out);

    let r = await claude(["-p", "greet"]);
    let results = claudeResults(fake.requests);
    check("claude -p: the harmless call (auto) runs: its output reaches the model", results.some((t) => t.includes("harmless-ran")), { r, results });

    script.input = { command: DANGEROUS, description: "x" };
    fake.requests.length = 0;
    r = await claude(["-p", "do it"]);
    results = claudeResults(fake.requests);
    check("claude -p: the dangerous call (deny) is blocked with toolgate's reason and never runs",
      results.some((t) => t.includes("toolgate: privilege escalation")) && !existsSync(pwned), { r, results });

    // The sandbox verdict: a script that only runs code is allowed, rewritten by the
    // hook to run inside `toolgate sandbox`; Claude Code runs the rewritten command:
    // the script's output reaches the model, its build output lands in the workspace,
    // and the key planted in the home stays out of reach.
    plantSandboxWorld(home, ws);
    script.input = { command: "python3 t.py", description: "test" };
    fake.requests.length = 0;
    r = await claude(["-p", "run the tests"]);
    results = claudeResults(fake.requests);
    check("claude -p: a script (sandbox) runs inside toolgate sandbox, as the hook rewrote it: it ran, wrote in the workspace, and could not read the home's key",
      ranContained(results, ws), { r, results });

    // Park and resume: the hook with --defer, installed by toolgate install.
    const db = `sqlite:${join(work, "runs.db")}`;
    install({ HOME: home, PATH: process.env.PATH }, ["claude-code", "--uninstall"]);
    const deferInst = install({ HOME: home, PATH: process.env.PATH }, ["claude-code", "--command", `${toolgate} hook claude-code --defer --database ${db}`]);
    check("claude: the --defer hook is installed by toolgate install --command", deferInst.ok, deferInst.out);
    script.input = { command: `touch ${made}`, description: "x" };
    r = await claude(["-p", "make it"]);
    const out = json(r.out) ?? {};
    check("claude -p: the call that asks is deferred: the process ends with it parked, not run",
      out.stop_reason === "tool_deferred" && !existsSync(made), { out: r.out.slice(0, 600), err: r.err.slice(-600) });
    const listed = json(run(toolgate, ["runs", "--json", "--database", db], work).out) ?? [];
    const parked = listed.find((x) => x.session_id === out.session_id);
    check("toolgate runs lists the parked call with its session", parked?.status === "awaiting_permission", listed);
    const decided = run(toolgate, ["decide", parked?.run_id ?? "none", "allow", "--database", db], work);
    check("toolgate decide RUN allow approves it", decided.ok, decided.out);
    r = await claude(["-p", "--resume", String(out.session_id)]);
    const resumed = json(r.out) ?? {};
    check("claude -p --resume: the hook answers the decision: the approved call runs",
      existsSync(made) && resumed.stop_reason === "end_turn", { out: r.out.slice(0, 600), err: r.err.slice(-600) });
    const after = json(run(toolgate, ["runs", "--all", "--json", "--database", db], work).out) ?? [];
    check("the run is completed: its decision was taken once", after.find((x) => x.run_id === parked?.run_id)?.status === "completed", after);

    // The same, decided in toolgate-server's panel API on the same database (the
    // owner of the phone's token is the hook's default owner, `local`).
    const server = await startServer({ db: join(work, "runs.db"), tokens: [{ name: "phone", owner: "local", roles: ["approver"], token: "phone-secret-0123456789" }] });
    try {
      const made2 = join(work, "made2");
      script.input = { command: `touch ${made2}`, description: "x" };
      r = await claude(["-p", "make another"]);
      const second = json(r.out) ?? {};
      const runs = (await api(server.url, "GET", "v1/runs", "phone-secret-0123456789")).json?.runs ?? [];
      const shown = runs.find((x) => x.sessionId === second.session_id && x.status === "awaiting_permission");
      check("toolgate-server lists the deferred call (GET /v1/runs): its panel shows it", second.stop_reason === "tool_deferred" && shown, { second, runs });
      const call = shown?.marker?.calls?.[0] ?? {};
      const answer = await api(server.url, "POST", `v1/runs/${shown?.runId}/decisions`, "phone-secret-0123456789",
        { decisions: [{ toolCallId: call.toolCallId, anchor: call.anchor, decision: "allow" }] });
      check("the panel's decision (POST /v1/runs/ID/decisions) is accepted", answer.status === 200, answer);
      r = await claude(["-p", "--resume", String(second.session_id)]);
      check("claude -p --resume runs the call the panel approved", existsSync(made2), { out: r.out.slice(0, 400), err: r.err.slice(-400) });
    } finally {
      await server.stop();
    }

    // Remote answers: Claude Code's own prompt put to
    // toolgate-server by the PermissionRequest hook, answered through the panel's API
    // while `claude -p` waits.
    {
      const AGENT = "agent-secret-0123456789";
      const PHONE = "phone-secret-0123456789";
      const tokenFile = join(work, "agent.token");
      writeFileSync(tokenFile, `${AGENT}\n`);
      const remote = await startServer({ db: join(work, "remote.db"), tokens: [
        { name: "ci-agent", owner: "alice", roles: ["agent"], token: AGENT },
        { name: "alice-phone", owner: "alice", roles: ["approver"], token: PHONE },
      ] });
      try {
        // Only the PermissionRequest hook: in `claude -p` a PreToolUse hook's `ask` is
        // refused without Claude Code's dialog, so its PermissionRequest never comes;
        // without it, Claude Code's own rules prompt for a write outside the workspace.
        install({ HOME: home, PATH: process.env.PATH }, ["claude-code", "--uninstall"]);
        const pr = install({ HOME: home, PATH: process.env.PATH }, ["claude-code", "--event", "permission-request",
          "--server", remote.url, "--token-file", tokenFile, "--command", `${toolgate} hook claude-code --wait-ms 8000`]);
        const prSettings = json(readFileSync(join(home, ".claude", "settings.json"), "utf8"));
        check("claude: `toolgate install claude-code --event permission-request --server URL --token-file F` adds a PermissionRequest hook (the token stays in its file)",
          pr.ok && prSettings?.hooks?.PermissionRequest?.[0]?.hooks?.[0]?.command?.includes("--event permission-request") && !JSON.stringify(prSettings).includes(AGENT), { out: pr.out, prSettings });
        const ask = async (marker, decision) => {
          script.input = { command: `touch ${marker}`, description: "x" };
          fake.requests.length = 0;
          const a = await answerRemotely(remote, PHONE, `touch ${marker}`, decision, () => claude(["-p", "make it"]));
          return { ...a, results: claudeResults(fake.requests) };
        };
        const approvedMarker = join(work, "made-remote-approved");
        let a = await ask(approvedMarker, "allow");
        check("claude -p: the prompt reaches toolgate-server's panel; approved there, the call runs", a.shown && a.answer?.status === 200 && existsSync(approvedMarker), { a: a.answer?.json, out: a.r.out.slice(0, 400), err: a.r.err.slice(-400) });
        const deniedMarker = join(work, "made-remote-denied");
        a = await ask(deniedMarker, "deny");
        check("claude -p: denied in the panel, the call does not run and the model is told who and why",
          a.answer?.status === 200 && !existsSync(deniedMarker) && a.results.some((t) => t.includes("alice-phone: not now")), { results: a.results, out: a.r.out.slice(0, 400) });
        const unanswered = join(work, "made-remote-unanswered");
        a = await ask(unanswered, null);
        check("claude -p: nobody answers in the panel → Claude Code's own prompt, which -p refuses: it does not run", !existsSync(unanswered), { results: a.results, out: a.r.out.slice(0, 400) });
        await remote.stop();
        const down = join(work, "made-remote-down");
        a = await ask(down, null);
        check("claude -p: toolgate-server down → Claude Code's own prompt, never an allow: it does not run", !existsSync(down), { results: a.results, out: a.r.out.slice(0, 400) });
        install({ HOME: home, PATH: process.env.PATH }, ["claude-code", "--event", "permission-request", "--uninstall"]);
      } finally {
        await remote.stop();
      }
    }

    // The hook cannot run (its binary removed): the call is blocked, not run. Claude
    // Code's own permissions allow Bash here, so only the hook can stop it.
    const hookEnv = { HOME: home, PATH: process.env.PATH };
    const gone = removableHook(hookEnv, "claude-code", "claude");
    const settings = readFileSync(join(home, ".claude", "settings.json"), "utf8");
    check("claude: the installed hook has the failure guard and onFailure: block",
      gone.inst.ok && settings.includes("|| exit 2") && settings.includes('"onFailure": "block"'), settings);
    gone.remove();
    const madeGone = join(work, "made-claude-gone");
    script.input = { command: `touch ${madeGone}`, description: "x" };
    r = await claude(["-p", "make it", "--allowedTools", "Bash"]);
    check("claude -p: with toolgate's binary removed, the hook blocks: the call does not run", !existsSync(madeGone),
      { out: r.out.slice(0, 600), err: r.err.slice(-600) });
    // The control: the same entry without the guard lets the call run (the hole).
    const open = join(work, "made-claude-open");
    script.input = { command: `touch ${open}`, description: "x" };
    const unguarded = unguard(join(home, ".claude", "settings.json"));
    r = await claude(["-p", "make it", "--allowedTools", "Bash"]);
    check("claude -p: the control, an unguarded entry with the binary removed, lets the call run", unguarded && existsSync(open),
      { out: r.out.slice(0, 600), err: r.err.slice(-600) });
    fake.close();
  }

  // --- Codex ---
  if (want("codex")) {
    const { home, ws } = fresh("codex");
    const script = { name: "exec_command", arguments: { cmd: HARMLESS } };
    const fake = await openai(script);
    const codexHome = join(home, ".codex");
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(join(codexHome, "config.toml"),
      `model = "gpt-fake"\nmodel_provider = "fake"\n[model_providers.fake]\nname = "fake"\nbase_url = "${fake.url}/v1"\nwire_api = "responses"\nenv_key = "FAKE_OPENAI_KEY"\n`);
    const env = { HOME: home, CODEX_HOME: codexHome, FAKE_OPENAI_KEY: "fake" };
    const inst = install({ ...env, PATH: process.env.PATH }, ["codex"]);
    check("codex: `toolgate install codex` adds the hook to $CODEX_HOME/hooks.json", inst.ok && existsSync(join(codexHome, "hooks.json")), inst.out);
    // A new hook runs once trusted (interactively); a test run bypasses the review. The
    // sandbox is off: this machine has no codex-linux-sandbox, and the hook is the gate.
    const codex = () => exec(join(BIN, "codex"), ["exec", "--sandbox", "danger-full-access", "--dangerously-bypass-hook-trust", "--skip-git-repo-check", "do it"], ws, env);
    let r = await codex();
    let results = codexResults(fake.requests);
    check("codex exec: the harmless call (auto) runs: its output reaches the model", results.some((t) => t.includes("harmless-ran")), { r, results });
    script.arguments = { cmd: DANGEROUS };
    fake.requests.length = 0;
    r = await codex();
    results = codexResults(fake.requests);
    check("codex exec: the dangerous call (deny) is blocked by the PreToolUse hook with toolgate's reason and never runs",
      results.some((t) => t.includes("blocked by PreToolUse hook: toolgate: privilege escalation")) && !existsSync(pwned), { r, results });
    // The hook cannot run (its binary removed): the guard's exit 2 blocks the call.
    const gone = removableHook({ ...env, PATH: process.env.PATH }, "codex", "codex");
    check("codex: the hook is reinstalled with the failure guard", gone.inst.ok, gone.inst.out);
    gone.remove();
    const madeGone = join(work, "made-codex-gone");
    script.arguments = { cmd: `touch ${madeGone}` };
    r = await codex();
    check("codex exec: with toolgate's binary removed, the hook blocks: the call does not run", !existsSync(madeGone),
      { out: r.out.slice(0, 600), err: r.err.slice(-600) });
    const open = join(work, "made-codex-open");
    script.arguments = { cmd: `touch ${open}` };
    const unguarded = unguard(join(codexHome, "hooks.json"));
    r = await codex();
    check("codex exec: the control, an unguarded entry with the binary removed, lets the call run", unguarded && existsSync(open),
      { out: r.out.slice(0, 600), err: r.err.slice(-600) });
    fake.close();
  }

  // --- Gemini CLI ---
  if (want("gemini")) {
    const { home, ws } = fresh("gemini");
    const script = { name: "run_shell_command", args: { command: HARMLESS } };
    const fake = await gemini(script);
    mkdirSync(join(home, ".gemini"), { recursive: true });
    writeFileSync(join(home, ".gemini", "settings.json"), JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }, null, 2));
    const env = { HOME: home, GEMINI_API_KEY: "fake", GOOGLE_GEMINI_BASE_URL: fake.url, GEMINI_CLI_TRUST_WORKSPACE: "true" };
    const inst = install({ HOME: home, PATH: process.env.PATH }, ["gemini"]);
    check("gemini: `toolgate install gemini` adds the hook to ~/.gemini/settings.json, keeping its auth setting", inst.ok && /added/.test(inst.out), inst.out);
    // yolo: Gemini CLI approves every call itself, so the hook alone decides.
    const gem = () => exec(join(BIN, "gemini"), ["-p", "do it", "--approval-mode", "yolo"], ws, env);
    let r = await gem();
    let results = geminiResults(fake.requests);
    check("gemini -p: the harmless call (auto) runs: its output reaches the model", results.some((t) => t.includes("harmless-ran")), { r, results });
    script.args = { command: DANGEROUS };
    fake.requests.length = 0;
    r = await gem();
    results = geminiResults(fake.requests);
    check("gemini -p: the dangerous call (deny) is blocked by the BeforeTool hook with toolgate's reason and never runs",
      results.some((t) => t.includes("toolgate: privilege escalation")) && !existsSync(pwned), { r, results });
    // The sandbox verdict: the hook allows the script with tool_input rewriting the
    // command into `toolgate sandbox`; Gemini CLI merges it and runs the rewritten one.
    plantSandboxWorld(home, ws);
    script.args = { command: "python3 t.py" };
    fake.requests.length = 0;
    r = await gem();
    results = geminiResults(fake.requests);
    check("gemini -p: a script (sandbox) runs inside toolgate sandbox, as the hook's tool_input rewrote it: it ran, wrote in the workspace, and could not read the home's key",
      ranContained(results, ws), { r, results });
    // An ask: headless (`-p`), nobody would answer Gemini CLI's confirmation, so the hook
    // denies it saying why, and the run ends (an `ask` there would wait forever).
    const asked = join(work, "made-gemini-asked");
    script.args = { command: "touch ../made-gemini-asked" };
    fake.requests.length = 0;
    r = await gem();
    results = geminiResults(fake.requests);
    check("gemini -p: an ask is a deny saying Gemini CLI runs headless there, and the call does not run",
      results.some((t) => t.includes("runs headless here")) && !existsSync(asked), { r, results });
    // Interactive (a terminal, the prompt given with -i): the hook answers ask, Gemini CLI
    // (0.36.0 and later) puts it to you even in yolo mode: the call waits, and runs once
    // Enter (its first choice, allow once) is pressed.
    fake.requests.length = 0;
    const tty = await inTerminal(join(BIN, "gemini"), ["-i", "do it", "--approval-mode", "yolo"], ws, env,
      /Action Required/, () => existsSync(asked));
    check("gemini -i in a terminal: the hook's ask is Gemini CLI's confirmation (toolgate's reason shown), the call waits for it",
      tty.asked && !tty.ranBefore, { screen: tty.screen.slice(-1500) });
    check("gemini -i in a terminal: Enter at the confirmation runs the call", tty.ran, { screen: tty.screen.slice(-1500) });
    // The hook cannot run (its binary removed): Gemini CLI only warns on a failed hook,
    // but the guard's exit 2 is its "block".
    const gone = removableHook({ HOME: home, PATH: process.env.PATH }, "gemini", "gemini");
    check("gemini: the hook is reinstalled with the failure guard", gone.inst.ok, gone.inst.out);
    gone.remove();
    const madeGone = join(work, "made-gemini-gone");
    script.args = { command: `touch ${madeGone}` };
    r = await gem();
    check("gemini -p: with toolgate's binary removed, the hook blocks: the call does not run", !existsSync(madeGone),
      { out: r.out.slice(0, 600), err: r.err.slice(-600) });
    const open = join(work, "made-gemini-open");
    script.args = { command: `touch ${open}` };
    const unguarded = unguard(join(home, ".gemini", "settings.json"));
    r = await gem();
    // Gemini CLI's docs say a hook's other exit codes only warn; 0.61.0 was seen to
    // block the call itself when the command could not run. Reported, not asserted:
    // the guard blocks either way (checked above).
    check("gemini: the control entry was written without the guard", unguarded, "");
    console.log(`note: gemini -p with an unguarded entry and the binary removed: the call ${existsSync(open) ? "ran" : "was blocked by Gemini CLI itself"}`);
    fake.close();
  }

  // --- GitHub Copilot CLI ---
  if (want("copilot")) {
    const { home, ws } = fresh("copilot");
    const script = { name: "bash", arguments: { command: HARMLESS, description: "greet" } };
    const fake = await openaiChat(script);
    // Offline, against the scripted endpoint (BYOK), without GitHub's sign-in; its
    // package unpacks into the cache once.
    const env = {
      HOME: home,
      XDG_CACHE_HOME: join(work, "copilot-cache"),
      COPILOT_OFFLINE: "true",
      COPILOT_PROVIDER_BASE_URL: `${fake.url}/v1`,
      COPILOT_PROVIDER_API_KEY: "fake",
      COPILOT_MODEL: "gpt-4o",
      COPILOT_AUTO_UPDATE: "false",
    };
    const inst = install({ HOME: home, PATH: process.env.PATH }, ["copilot"]);
    check("copilot: `toolgate install copilot` writes ~/.copilot/hooks/toolgate.json", inst.ok && existsSync(join(home, ".copilot", "hooks", "toolgate.json")), inst.out);
    // --allow-all-tools: Copilot CLI approves every call itself, so the hook alone decides.
    const copilot = () => exec(join(BIN, "copilot"), ["-p", "do it", "--allow-all-tools"], ws, env);
    const copilotResults = (reqs) => reqs.flatMap((r) => r.body.messages ?? []).filter((m) => m.role === "tool").map((m) => String(m.content));
    let r = await copilot();
    let results = copilotResults(fake.requests);
    check("copilot -p: the harmless call (auto) runs: its output reaches the model", results.some((t) => t.includes("harmless-ran")), { r, results });
    script.arguments = { command: DANGEROUS, description: "x" };
    fake.requests.length = 0;
    r = await copilot();
    results = copilotResults(fake.requests);
    check("copilot -p: the dangerous call (deny) is blocked by the preToolUse hook with toolgate's reason and never runs",
      results.some((t) => t.includes("toolgate: privilege escalation")) && !existsSync(pwned), { r, results });
    // An ask: Copilot CLI's own prompt, which in -p (nobody watching) it turns into a deny.
    const asked = join(work, "made-copilot-ask");
    script.arguments = { command: `touch ${asked}`, description: "x" };
    fake.requests.length = 0;
    r = await copilot();
    results = copilotResults(fake.requests);
    check("copilot -p: a call that asks is put to Copilot CLI's prompt, which -p denies: it never runs",
      results.some((t) => t.includes("unable to ask user")) && !existsSync(asked), { r, results });
    // The sandbox verdict: the hook allows the script with modifiedArgs rewriting the
    // command into `toolgate sandbox`; Copilot CLI runs the rewritten one.
    plantSandboxWorld(home, ws);
    script.arguments = { command: "python3 t.py", description: "x" };
    fake.requests.length = 0;
    r = await copilot();
    results = copilotResults(fake.requests);
    check("copilot -p: a script (sandbox) runs inside toolgate sandbox, as the hook's modifiedArgs rewrote it: it ran, wrote in the workspace, and could not read the home's key",
      ranContained(results, ws), { r, results });
    // Remote answers: Copilot CLI's permissionRequest put to toolgate-server, answered
    // through the panel's API while `copilot -p` (without --allow-all-tools) waits. Only
    // that hook: in -p a preToolUse `ask` is denied without reaching permissionRequest.
    {
      const AGENT = "agent-secret-0123456789";
      const PHONE = "phone-secret-0123456789";
      const tokenFile = join(work, "copilot-agent.token");
      writeFileSync(tokenFile, `${AGENT}\n`);
      const remote = await startServer({ db: join(work, "copilot-remote.db"), tokens: [
        { name: "ci-agent", owner: "alice", roles: ["agent"], token: AGENT },
        { name: "alice-phone", owner: "alice", roles: ["approver"], token: PHONE },
      ] });
      try {
        install({ HOME: home, PATH: process.env.PATH }, ["copilot", "--uninstall"]);
        const pr = install({ HOME: home, PATH: process.env.PATH }, ["copilot", "--event", "permission-request",
          "--server", remote.url, "--token-file", tokenFile, "--command", `${toolgate} hook copilot --wait-ms 8000`]);
        check("copilot: `toolgate install copilot --event permission-request …` adds a permissionRequest hook", pr.ok && /hooks\.permissionRequest/.test(pr.out), pr.out);
        const copilotAsks = () => exec(join(BIN, "copilot"), ["-p", "do it"], ws, env);
        const ask = async (marker, decision) => {
          script.arguments = { command: `touch ${marker}`, description: "x" };
          fake.requests.length = 0;
          const a = await answerRemotely(remote, PHONE, `touch ${marker}`, decision, copilotAsks);
          return { ...a, results: copilotResults(fake.requests) };
        };
        const approved = join(work, "made-copilot-remote-approved");
        let a = await ask(approved, "allow");
        check("copilot -p: the permission request reaches toolgate-server's panel; approved there, the call runs", a.answer?.status === 200 && existsSync(approved), { a: a.answer?.json, results: a.results });
        const denied = join(work, "made-copilot-remote-denied");
        a = await ask(denied, "deny");
        check("copilot -p: denied in the panel, the call does not run and the model is told who and why",
          !existsSync(denied) && a.results.some((t) => t.includes("alice-phone: not now")), { results: a.results });
        const unanswered = join(work, "made-copilot-remote-unanswered");
        a = await ask(unanswered, null);
        check("copilot -p: nobody answers → Copilot CLI's own flow, which -p denies: it does not run", !existsSync(unanswered), { results: a.results });
        await remote.stop();
        const down = join(work, "made-copilot-remote-down");
        a = await ask(down, null);
        check("copilot -p: toolgate-server down → never an allow: it does not run", !existsSync(down), { results: a.results });
        install({ HOME: home, PATH: process.env.PATH }, ["copilot", "--event", "permission-request", "--uninstall"]);
      } finally {
        await remote.stop();
      }
    }
    // The hook cannot run (its binary removed): the guard's exit 2 blocks the call.
    const gone = removableHook({ HOME: home, PATH: process.env.PATH }, "copilot", "copilot");
    check("copilot: the hook is reinstalled with the failure guard", gone.inst.ok, gone.inst.out);
    gone.remove();
    const madeGone = join(work, "made-copilot-gone");
    script.arguments = { command: `touch ${madeGone}`, description: "x" };
    r = await copilot();
    check("copilot -p: with toolgate's binary removed, the hook blocks: the call does not run", !existsSync(madeGone),
      { out: r.out.slice(0, 600), err: r.err.slice(-600) });
    const open = join(work, "made-copilot-open");
    script.arguments = { command: `touch ${open}`, description: "x" };
    const unguarded = unguard(join(home, ".copilot", "hooks", "toolgate.json"));
    r = await copilot();
    // Copilot CLI 1.0.102 denies when a hook errors (its changelog; seen here), so the
    // control is reported, not asserted: the guard blocks either way (checked above).
    check("copilot: the control entry was written without the guard", unguarded, "");
    console.log(`note: copilot -p with an unguarded entry and the binary removed: the call ${existsSync(open) ? "ran" : "was blocked by Copilot CLI itself"}`);
    fake.close();
  }

  // --- OpenCode ---
  if (want("opencode")) {
    const { home, ws } = fresh("opencode");
    const script = { name: "bash", arguments: { command: HARMLESS, description: "greet" } };
    const fake = await openaiChat(script);
    // Offline against the scripted endpoint as an OpenAI-compatible provider (its SDK is
    // bundled in OpenCode). OpenCode installs @opencode-ai/plugin from npm into a config
    // directory that has plugins, in the background, on its first start there.
    const config = {
      autoupdate: false,
      share: "disabled",
      provider: { fake: { npm: "@ai-sdk/openai-compatible", name: "Fake", options: { baseURL: `${fake.url}/v1`, apiKey: "fake" }, models: { "gpt-4o": { name: "gpt-4o", tool_call: true } } } },
      model: "fake/gpt-4o",
    };
    const env = {
      HOME: home,
      OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
      OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
      OPENCODE_DISABLE_SHARE: "1",
    };
    const plugin = join(home, ".config", "opencode", "plugins", "toolgate.js");
    const inst = install({ HOME: home, PATH: process.env.PATH }, ["opencode"]);
    check("opencode: `toolgate install opencode` writes toolgate's plugin to ~/.config/opencode/plugins/toolgate.js", inst.ok && existsSync(plugin), inst.out);
    // `opencode run`: OpenCode's own permissions allow every tool by default, so the
    // plugin alone decides.
    // Its Linux x64 binary package (web/agent-clis/package.json says why not opencode-ai).
    const opencode = () => exec(join(CLIS, "node_modules", "opencode-linux-x64", "bin", "opencode"), ["run", "do it"], ws, env, 240_000);
    const opencodeResults = (reqs) => reqs.flatMap((r) => r.body.messages ?? []).filter((m) => m.role === "tool")
      .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)));
    let r = await opencode();
    let results = opencodeResults(fake.requests);
    check("opencode run: the harmless call (auto) runs: its output reaches the model", results.some((t) => t.includes("harmless-ran")), { r, results });
    script.arguments = { command: DANGEROUS, description: "x" };
    fake.requests.length = 0;
    r = await opencode();
    results = opencodeResults(fake.requests);
    check("opencode run: the dangerous call (deny) is refused by the plugin with toolgate's reason and never runs",
      results.some((t) => t.includes("toolgate: privilege escalation")) && !existsSync(pwned), { r, results });
    // An ask: an OpenCode plugin cannot raise OpenCode's prompt, so it is refused, saying
    // a person must approve it.
    const asked = join(work, "made-opencode-ask");
    script.arguments = { command: `touch ${asked}`, description: "x" };
    fake.requests.length = 0;
    r = await opencode();
    results = opencodeResults(fake.requests);
    check("opencode run: a call that asks is refused, saying it needs a person's approval: it never runs",
      results.some((t) => t.includes("needs a person's approval")) && !existsSync(asked), { r, results });
    // The sandbox verdict: the plugin rewrites the command into `toolgate sandbox` in
    // the arguments OpenCode then runs.
    plantSandboxWorld(home, ws);
    script.arguments = { command: "python3 t.py", description: "x" };
    fake.requests.length = 0;
    r = await opencode();
    results = opencodeResults(fake.requests);
    check("opencode run: a script (sandbox) runs inside toolgate sandbox, as the plugin rewrote it: it ran, wrote in the workspace, and could not read the home's key",
      ranContained(results, ws), { r, results });
    // The hook cannot run (its binary removed): the plugin refuses the call.
    const gone = removableHook({ HOME: home, PATH: process.env.PATH }, "opencode", "opencode");
    check("opencode: the plugin is reinstalled with another hook command", gone.inst.ok && readFileSync(plugin, "utf8").includes("opencode-gone"), gone.inst.out);
    gone.remove();
    const madeGone = join(work, "made-opencode-gone");
    script.arguments = { command: `touch ${madeGone}`, description: "x" };
    fake.requests.length = 0;
    r = await opencode();
    results = opencodeResults(fake.requests);
    check("opencode run: with toolgate's binary removed, the plugin refuses the call: it does not run",
      !existsSync(madeGone) && results.some((t) => t.includes("toolgate could not judge this call")), { r, results });
    fake.close();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
finish("agent CLIs (Claude Code, Codex, Gemini CLI, Copilot CLI, OpenCode from npm, offline)");
