// The hook benchmark: milliseconds per invocation (process start, one decision, exit)
// of `toolgate hook claude-code` and of a peer hook run the same way (cc-safety-net,
// `hook --claude-code`, from npm), each fed the same Claude Code PreToolUse payloads
// on stdin, one process after another. Prints p50, p99 and max per hook. Each
// LABEL=COMMAND after N is another toolgate measured the same way (an installed one:
// the npm platform package's binary, a wheel's, npm's launcher), PEER_BIN `-` skips the
// peer.
//   node web/bench/hook.mjs TOOLGATE_BIN PEER_BIN [N] [LABEL=COMMAND ...]
//   (scripts/bench-hook runs it; web/e2e/registries.test.mjs with the installed ones)
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const [toolgate, peer, n = "200", ...others] = process.argv.slice(2);
const runs = Number(n);
const ws = mkdtempSync(join(tmpdir(), "toolgate-bench-hook-"));
const home = mkdtempSync(join(tmpdir(), "toolgate-bench-home-"));
const commands = ["git status", "ls -la src", "cat README.md", "npm publish", "rm -rf ~", "grep -rn TODO src | head"];
const payloads = commands.map((command, i) =>
  JSON.stringify({
    session_id: "bench", transcript_path: join(ws, "t.jsonl"), cwd: ws, permission_mode: "default",
    hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command }, tool_use_id: `toolu_${i}`,
  }),
);

function measure(label, cmd, args) {
  const times = [];
  const env = { ...process.env, HOME: home };
  for (let i = 0; i < runs; i++) {
    const input = payloads[i % payloads.length];
    const t0 = process.hrtime.bigint();
    const r = spawnSync(cmd, args, { input, env, encoding: "utf8", timeout: 30_000 });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    // Both answer with exit 0 (the peer says nothing when it has no objection).
    if (r.status !== 0 || (label.startsWith("toolgate") && !r.stdout.includes("permissionDecision"))) {
      console.error(`${label}: run ${i} failed (status ${r.status}): ${r.stderr}`);
      process.exit(1);
    }
    times.push(ms);
  }
  times.sort((a, b) => a - b);
  const q = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
  console.log(`${label.padEnd(40)} p50 ${q(0.5).toFixed(1).padStart(6)} ms   p99 ${q(0.99).toFixed(1).padStart(6)} ms   max ${times.at(-1).toFixed(1).padStart(6)} ms   (${runs} runs)`);
}

try {
  measure("toolgate hook claude-code", toolgate, ["hook", "claude-code"]);
  measure("toolgate hook claude-code --no-fs", toolgate, ["hook", "claude-code", "--no-fs"]);
  for (const other of others) {
    const at = other.indexOf("=");
    measure(`toolgate (${other.slice(0, at)}) hook claude-code`, other.slice(at + 1), ["hook", "claude-code"]);
  }
  if (peer !== "-") measure("cc-safety-net 2.4.5 hook --claude-code", process.execPath, [peer, "hook", "--claude-code"]);
} finally {
  rmSync(ws, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
}
