// toolgate/opencode: toolgate's gate as an OpenCode plugin (OpenCode 1.18's V1 plugin
// shape: a default export `{id, server}`; @opencode-ai/plugin's `Hooks`).
//
// Every tool call OpenCode makes reaches `tool.execute.before`, which OpenCode awaits
// before the tool runs (its own permission rules come after): the call goes to the
// native `toolgate hook opencode` on stdin, which classifies it with the full core
// (OpenCode's tool shapes, the policy file, file-system facts) and answers
// `{decision, reason, args?}`. `allow` lets the call run (with `args`, the command
// wrapped in `toolgate sandbox`, replacing its arguments); anything else throws, and
// OpenCode hands the error to the model as the tool's result: a deny, an ask (an
// OpenCode plugin cannot raise OpenCode's prompt: its `permission.ask` hook has not
// fired since 1.3.0, anomalyco/opencode#7006), and every failure (the binary missing,
// a crash, a timeout, an answer that is not JSON).
//
// `toolgate install opencode` writes this file into OpenCode's plugins directory with
// the hook command below filled in; from npm (`import plugin from "toolgate/opencode"`)
// the native binary is the platform package's, or `TOOLGATE_BINARY`. Options (OpenCode
// passes a plugin's options from `opencode.json`: `["…", {…}]`): `command` (the hook
// command, run through the shell), `timeoutMs` (default 30000).
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

// Filled in by `toolgate install opencode`: the hook command to run.
const INSTALLED_COMMAND = null;

// OpenCode's own bookkeeping: the to-do list, questions and plans it puts to you
// itself, skills, sub-agents (each of whose calls comes through here on its own).
const UNGATED = new Set(["todowrite", "todoread", "question", "plan_enter", "plan_exit", "skill", "task", "invalid"]);

const PACKAGES = {
  "linux x64": "@toolgate/cli-linux-x64",
  "linux arm64": "@toolgate/cli-linux-arm64",
  "darwin x64": "@toolgate/cli-darwin-x64",
  "darwin arm64": "@toolgate/cli-darwin-arm64",
  "win32 x64": "@toolgate/cli-win32-x64",
};

const quote = (s) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);

/** The hook command: the option, the installed one, TOOLGATE_BINARY, or the binary of
 * the platform package npm installed beside this one. */
function hookCommand(options) {
  if (typeof options?.command === "string" && options.command) return options.command;
  if (INSTALLED_COMMAND) return INSTALLED_COMMAND;
  if (process.env.TOOLGATE_BINARY) return `${quote(process.env.TOOLGATE_BINARY)} hook opencode`;
  const pkg = PACKAGES[`${process.platform} ${process.arch}`];
  if (!pkg) throw new Error(`no native toolgate binary is published for ${process.platform}-${process.arch}`);
  const manifest = createRequire(import.meta.url).resolve(`${pkg}/package.json`);
  JSON.parse(readFileSync(manifest, "utf8"));
  const exe = join(dirname(manifest), process.platform === "win32" ? "toolgate.exe" : "toolgate");
  return `${quote(exe)} hook opencode`;
}

/** Runs the hook on `input`: its parsed answer, or throws. */
function ask(command, input, cwd, timeoutMs) {
  return new Promise((resolve, reject) => {
    let child;
    try {
      // Its own process group (POSIX), so that a timeout kills the hook itself and not
      // only the shell that started it.
      const detached = process.platform !== "win32";
      child = spawn(command, { shell: true, cwd, stdio: ["pipe", "pipe", "pipe"], windowsHide: true, detached });
    } catch (e) {
      reject(e);
      return;
    }
    let out = "";
    let err = "";
    const timer = setTimeout(() => {
      try {
        if (process.platform === "win32") child.kill("SIGKILL");
        else process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    child.stdout.setEncoding("utf8").on("data", (d) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d) => (err += d));
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code !== 0) {
        reject(new Error(`\`${command}\` exited ${signal ?? code}${err.trim() ? `: ${err.trim().slice(0, 400)}` : ""}`));
        return;
      }
      try {
        const answer = JSON.parse(out);
        if (!answer || typeof answer.decision !== "string") throw new Error("no decision");
        resolve(answer);
      } catch (e) {
        reject(new Error(`its answer is not toolgate's (${e.message})`));
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(input));
  });
}

async function server({ directory, worktree } = {}, options = {}) {
  const timeoutMs = Number.isFinite(options?.timeoutMs) && options.timeoutMs > 0 ? options.timeoutMs : 30_000;
  return {
    "tool.execute.before": async (input, output) => {
      const tool = String(input?.tool ?? "");
      if (UNGATED.has(tool)) return;
      let answer;
      try {
        answer = await ask(
          hookCommand(options),
          { tool, sessionID: input?.sessionID, callID: input?.callID, args: output?.args ?? {}, directory, worktree },
          directory,
          timeoutMs,
        );
      } catch (e) {
        throw new Error(`toolgate could not judge this call (${e?.message ?? e}); denied`);
      }
      if (answer.decision !== "allow") throw new Error(String(answer.reason ?? "toolgate: denied"));
      // A sandbox verdict: the command wrapped in `toolgate sandbox`. OpenCode runs the
      // object it passed here, so it is changed in place.
      if (answer.args !== undefined) {
        if (!answer.args || typeof answer.args !== "object" || !output?.args || typeof output.args !== "object") {
          throw new Error("toolgate could not hand OpenCode the contained command; denied");
        }
        for (const k of Object.keys(output.args)) delete output.args[k];
        Object.assign(output.args, answer.args);
      }
    },
  };
}

export default { id: "toolgate", server };
