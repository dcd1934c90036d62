// toolgate/openai-agents against the real OpenAI Agents SDK (@openai/agents 0.20 from
// npm, its ScriptedModel; web/consumers/openai-agents with its own lockfile and Node 22
// from npm, the packed tarball installed). Each step runs in its own process, the
// Gate's runs kept in a file-backed localStorage between them:
// - the agent asks to run three commands: `ls` (auto) runs, `rm -rf /` (deny) is refused
//   with the policy's reason before anyone is asked, `npm publish` (ask) parks the turn;
// - a fresh process resumes from the marker: the approved call runs once, the model gets
//   its output and the refusal; a second resume is `already_resumed` (nothing runs again);
// - a person's edit into a denied command is refused (`edit_refused`); an approved edit
//   runs through the wrapped tool (`tg.tool`) instead of the model's input, once;
// - streaming: park, then a denial with a message reaches the model as `User refused
//   permission: <message>`, the tool not run;
// - an edited history (same call id, other arguments) is refused (`anchor_mismatch`) and
//   the run still waits; a call the policy denies by the time of the resume is refused
//   even though approved; an expired marker reaches the model as "Not approved: nobody
//   answered the permission request in time." (a late approval runs nothing), once;
// - over a toolgate server (httpRuns of toolgate/http, the real server binary on
//   SQLite): parked there, decided by an approver's token, taken by a fresh process,
//   the call runs once.
//   node web/e2e/openai-agents.test.mjs   (part of web/e2e/run.mjs)
import { mkdtempSync, rmSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { buildConsumer } from "./tarball.mjs";
import { decideOnServer, startServer } from "./server-proc.mjs";
import { checker } from "./checks.mjs";

const { check, finish } = checker();
const dir = mkdtempSync(join(tmpdir(), "toolgate-openai-agents-"));
const ANCHOR = "2dbff9796ab0b84104abec3e65acda4e2477968948acd4af08f46dbfcf6b223e"; // bash {command: "npm publish"}
const DENY_PUBLISH = 'default = "ask"\nworkspace = "/w"\n[rules]\ndeny = ["Bash(npm publish*)"]\n';

/** One step in a fresh Node 22 process on `state`'s localStorage file: its JSON line. */
function step(state, args, env = {}) {
  try {
    const out = execFileSync(join(dir, "node_modules", ".bin", "node"),
      ["--no-warnings", "--experimental-webstorage", `--localstorage-file=${join(state, "ls.db")}`, "agent.mjs", args[0], state, ...args.slice(1)],
      { cwd: dir, encoding: "utf8", timeout: 60_000, env: { ...process.env, ...env } });
    return JSON.parse(out.trim().split("\n").pop());
  } catch (e) {
    return { error: "process", message: `${e.message}\n${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}
const ran = (state) => (existsSync(join(state, "ran.log")) ? readFileSync(join(state, "ran.log"), "utf8").trim().split("\n") : []);
const SERVER_TOKENS = [
  { name: "ci-agent", owner: "team", roles: ["agent"], token: "agent-token-0123456789abcdef" },
  { name: "alice-phone", owner: "team", roles: ["approver"], token: "alice-token-0123456789abcdef" },
];
const [AGENT_TOKEN, APPROVER_TOKEN] = SERVER_TOKENS.map((t) => t.token);
const allow = JSON.stringify([{ toolCallId: "c1", anchor: ANCHOR, decision: "allow" }]);
const output = (r, id) => r.outputs?.find((o) => o.callId === id)?.output?.text;

try {
  const built = buildConsumer("openai-agents", dir);
  check("an Agents SDK consumer installs the tarball and type-checks against the SDK's types (tsc)", built.ok, built.out);
  if (built.ok) {
    const a = mkdtempSync(join(dir, "run-"));
    const parked = step(a, ["park", "-", "run-1"]);
    check("the ask call parks the turn; the auto call ran; the deny is refused with its reason, never asked",
      parked.status === "parked" && parked.calls?.length === 1 && parked.calls[0].args.command === "npm publish" &&
        parked.refused?.[0]?.rule === "builtin.shell.rm-root" && JSON.stringify(ran(a)) === '["ls"]',
      { parked, ran: ran(a) });
    const resumed = step(a, ["resume", "run-1", allow]);
    check("a fresh process resumes from the marker: the approved call runs once, the model gets its output and the refusal",
      resumed.final === "done" && output(resumed, "c1") === "ran: npm publish" && /^Refused by policy \(builtin\.shell\.rm-root\)/.test(output(resumed, "c2")) &&
        JSON.stringify(ran(a)) === '["ls","npm publish"]',
      { resumed, ran: ran(a) });
    const again = step(a, ["resume", "run-1", allow]);
    check("a second resume is already_resumed and runs nothing again", again.error === "already_resumed" && ran(a).length === 2, again);
    const x = mkdtempSync(join(dir, "run-"));
    step(x, ["park", "-", "run-x"]);
    const editTo = (command) => JSON.stringify([{ toolCallId: "c1", anchor: ANCHOR, decision: "allow", args: { command } }]);
    const editDenied = step(x, ["resume", "run-x", editTo("rm -rf /")]);
    const editOk = step(x, ["resume", "run-x", editTo("npm publish --dry-run")]);
    check("an edit into a denied command is refused (edit_refused); an approved edit runs through the wrapped tool (tg.tool) instead of the model's input, once, its output to the model",
      editDenied.error === "edit_refused" && editOk.final === "done" && output(editOk, "c1") === "ran: npm publish --dry-run" &&
        JSON.stringify(ran(x)) === '["ls","npm publish --dry-run"]',
      { editDenied, editOk, ran: ran(x) });
    const y = mkdtempSync(join(dir, "run-"));
    step(y, ["park", "-", "run-y"]);
    const unwrapped = step(y, ["resume", "run-y", editTo("npm publish --dry-run")], { NO_EDITS: "1" });
    check("an approved edit for a tool not wrapped with tg.tool is rejected: neither the edit nor the model's call runs",
      unwrapped.final === "done" && /cannot take the edit/.test(output(unwrapped, "c1") ?? "") && JSON.stringify(ran(y)) === '["ls"]',
      { unwrapped, ran: ran(y) });

    const s = mkdtempSync(join(dir, "run-"));
    const sp = step(s, ["park", "stream", "run-s"]);
    const deny = JSON.stringify([{ toolCallId: "c1", anchor: ANCHOR, decision: "deny", message: "not before the release notes" }]);
    const sr = step(s, ["resume", "run-s", deny, "stream"]);
    check("streamed runs: parked, then a denial reaches the model as `User refused permission: <message>`, the tool not run",
      sp.status === "parked" && sr.final === "done" && output(sr, "c1") === "User refused permission: not before the release notes" && !ran(s).includes("npm publish"),
      { sp, sr });

    const t = mkdtempSync(join(dir, "run-"));
    step(t, ["park", "-", "run-t"]);
    const edited = step(t, ["tamper", "run-t"]);
    const tampered = step(t, ["resume", "run-t", allow]);
    const still = step(t, ["show", "run-t"]);
    check("an edited history (same call id, other arguments) is refused (anchor_mismatch); the run still waits, nothing ran",
      edited.edited === 1 && tampered.error === "anchor_mismatch" && still.status === "awaiting_permission" && !ran(t).some((c) => c.includes("curl")),
      { edited, tampered, status: still.status, ran: ran(t) });

    const h = mkdtempSync(join(dir, "run-"));
    step(h, ["park", "-", "run-h"]);
    const hard = step(h, ["resume", "run-h", allow], { POLICY: DENY_PUBLISH });
    check("a call the policy denies is refused even though approved; the tool never runs",
      /^Refused by policy \(user\.deny\[0\]\)/.test(output(hard, "c1") ?? "") && !ran(h).includes("npm publish"), hard);

    const e = mkdtempSync(join(dir, "run-"));
    const ep = step(e, ["park", "-", "run-e"], { TTL_MS: "1000" });
    execFileSync("sleep", ["1.2"]);
    const expired = step(e, ["resume", "run-e", allow]);
    const twice = step(e, ["resume", "run-e", allow]);
    check("an expired marker reaches the model as not approved because nobody answered in time (a late approval runs nothing), once",
      ep.status === "parked" && expired.final === "done" &&
        output(expired, "c1") === "Not approved: nobody answered the permission request in time." &&
        !ran(e).includes("npm publish") && twice.error === "already_resumed",
      { ep, expired, twice });

    // Over a toolgate server (httpRuns): the agent parks there, a person decides in the
    // panel (the approver's POST here), a fresh process takes that and goes on, once.
    const srv = await startServer({ db: join(dir, "server.db"), tokens: SERVER_TOKENS });
    try {
      const env = { TOOLGATE_URL: srv.url, TOOLGATE_TOKEN: AGENT_TOKEN };
      const v = mkdtempSync(join(dir, "run-"));
      const vp = step(v, ["park", "-", "run-v"], env);
      const { seen, decided } = await decideOnServer(srv.url, "run-v", APPROVER_TOKEN, "allow");
      const vr = step(v, ["resume", "run-v", "[]"], env);
      const vagain = step(v, ["resume", "run-v", "[]"], env);
      check("over a toolgate server (httpRuns): parked there, decided in its panel, a fresh process takes the decision with the history: the call runs once; a second take is already_resumed",
        vp.status === "parked" && seen.json?.status === "awaiting_permission" && decided.status === 200 &&
          vr.final === "done" && output(vr, "c1") === "ran: npm publish" && JSON.stringify(ran(v)) === '["ls","npm publish"]' &&
          vagain.error === "already_resumed",
        { vp, decided, vr, vagain, ran: ran(v) });
    } finally {
      await srv.stop();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
finish("toolgate/openai-agents (the real Agents SDK, Node 22)");
