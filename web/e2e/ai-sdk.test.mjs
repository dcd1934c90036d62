// toolgate/ai-sdk against the real Vercel AI SDK, both majors from npm: `ai` 7
// (web/consumers/ai-sdk-7: toolApproval = toolgatePolicy) and `ai` 6
// (web/consumers/ai-sdk-6: gateTools' needsApproval), each with its own lockfile, Node 22
// from npm and the packed tarball installed; the model is the SDK's own mock (ai/test).
// The same agent.mjs runs each step in its own process, the Gate's runs kept in a
// file-backed localStorage between them, with generateText and with streamText:
// - the model asks for three commands: `ls` (auto) runs, `rm -rf /` (deny) is refused
//   with the policy's reason before anyone is asked, `npm publish` (ask) parks the turn;
// - a fresh process resumes from the marker: the approved call runs once, the model gets
//   its output and the refusal; a second resume is `already_resumed`;
// - a denial with a message reaches the model as the SDK's `execution-denied` with
//   `User refused permission: <message>`, the tool not run;
// - a person's edit into a denied command is refused (`edit_refused`); an allowed edit
//   runs the edited command once (the history's call rewritten), its output to the model;
// - an edited history (same call id, other arguments) is refused (`anchor_mismatch`) and
//   the run still waits; a call the policy denies by the time of the resume is refused
//   although approved; a client-held history that approves `rm -rf /` never runs it;
//   an expired marker reaches the model as execution-denied "Not approved: nobody
//   answered the permission request in time." (a late approval runs nothing), once;
// - over a toolgate server (httpRuns of toolgate/http, the real server binary on
//   SQLite): parked there, decided by an approver's token, taken by a fresh process
//   (streamText), the call runs once.
//   node web/e2e/ai-sdk.test.mjs   (part of web/e2e/run.mjs)
import { mkdtempSync, rmSync, readFileSync, existsSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { ROOT, buildConsumer } from "./tarball.mjs";
import { checker } from "./checks.mjs";
import { decideOnServer, startServer } from "./server-proc.mjs";

const { check, finish } = checker();
const ANCHOR = "2dbff9796ab0b84104abec3e65acda4e2477968948acd4af08f46dbfcf6b223e"; // bash {command: "npm publish"}
const DENY_PUBLISH = 'default = "ask"\nworkspace = "/w"\n[rules]\ndeny = ["Bash(npm publish*)"]\n';
const SERVER_TOKENS = [
  { name: "ci-agent", owner: "team", roles: ["agent"], token: "agent-token-0123456789abcdef" },
  { name: "alice-phone", owner: "team", roles: ["approver"], token: "alice-token-0123456789abcdef" },
];
const [AGENT_TOKEN, APPROVER_TOKEN] = SERVER_TOKENS.map((t) => t.token);
const allow = JSON.stringify([{ toolCallId: "c1", anchor: ANCHOR, decision: "allow" }]);
const deny = JSON.stringify([{ toolCallId: "c1", anchor: ANCHOR, decision: "deny", message: "not before the release notes" }]);
// A person's edit of the parked call (the anchor stays the parked call's).
const editTo = (command) => JSON.stringify([{ toolCallId: "c1", anchor: ANCHOR, decision: "allow", args: { command } }]);

async function suite(major) {
  const dir = mkdtempSync(join(tmpdir(), `toolgate-ai-sdk-${major}-`));
  /** One step in a fresh Node 22 process on `state`'s localStorage file: its JSON line. */
  const step = (state, args, env = {}) => {
    try {
      const out = execFileSync(join(dir, "node_modules", ".bin", "node"),
        ["--no-warnings", "--experimental-webstorage", `--localstorage-file=${join(state, "ls.db")}`, "agent.mjs", args[0], state, ...args.slice(1)],
        { cwd: dir, encoding: "utf8", timeout: 60_000, env: { ...process.env, ...env } });
      return JSON.parse(out.trim().split("\n").pop());
    } catch (e) {
      return { error: "process", message: `${e.message}\n${e.stdout ?? ""}${e.stderr ?? ""}` };
    }
  };
  const ran = (state) => (existsSync(join(state, "ran.log")) ? readFileSync(join(state, "ran.log"), "utf8").trim().split("\n") : []);
  const output = (r, id) => r.outputs?.find((o) => o.callId === id)?.output;
  const result = (r, id) => r.results?.find((o) => o.toolCallId === id)?.output;
  // ai 7 refuses a policy deny through toolApproval (the SDK's execution-denied); ai 6 has
  // no way to deny before execute, so gateTools' execute throws it (the SDK's error-text).
  const refusedBy = (o, rule) => (major === 7 ? o?.type === "execution-denied" && o.reason : o?.type === "error-text" && o.value)?.startsWith?.(`Refused by policy (${rule})`) ?? false;
  try {
    const built = buildConsumer(`ai-sdk-${major}`, dir);
    if (major === 6) copyFileSync(join(ROOT, "web", "consumers", "ai-sdk-7", "agent.mjs"), join(dir, "agent.mjs"));
    check(`ai ${major}: a consumer installs the tarball and type-checks against the SDK's types (tsc)`, built.ok, built.out);
    if (!built.ok) return;
    for (const mode of ["generate", "stream"]) {
      const a = mkdtempSync(join(dir, "run-"));
      const parked = step(a, ["park", mode, "run-1"]);
      check(`ai ${major} ${mode}: the ask call parks the turn; the auto call ran; the deny is refused with its reason, never asked`,
        parked.status === "parked" && parked.calls?.length === 1 && parked.calls[0].args.command === "npm publish" &&
          refusedBy(result(parked, "c2"), "builtin.shell.rm-root") && JSON.stringify(ran(a)) === '["ls"]',
        { parked, ran: ran(a) });
      const resumed = step(a, ["resume", "run-1", allow, mode]);
      check(`ai ${major} ${mode}: a fresh process resumes from the marker: the approved call runs once, the model gets its output and the refusal`,
        resumed.final === "done" && output(resumed, "c1")?.value === "ran: npm publish" && refusedBy(output(resumed, "c2"), "builtin.shell.rm-root") &&
          JSON.stringify(ran(a)) === '["ls","npm publish"]',
        { resumed, ran: ran(a) });
      const again = step(a, ["resume", "run-1", allow, mode]);
      check(`ai ${major} ${mode}: a second resume is already_resumed and runs nothing again`, again.error === "already_resumed" && ran(a).length === 2, again);

      const d = mkdtempSync(join(dir, "run-"));
      step(d, ["park", mode, "run-d"]);
      const denied = step(d, ["resume", "run-d", deny, mode]);
      const o = output(denied, "c1");
      check(`ai ${major} ${mode}: a denial reaches the model as the SDK's execution-denied with the person's message, the tool not run`,
        denied.final === "done" && o?.type === "execution-denied" && o.reason === "User refused permission: not before the release notes" && !ran(d).includes("npm publish"),
        denied);

      const x = mkdtempSync(join(dir, "run-"));
      step(x, ["park", mode, "run-x"]);
      const editDenied = step(x, ["resume", "run-x", editTo("rm -rf /"), mode]);
      const editOk = step(x, ["resume", "run-x", editTo("npm publish --dry-run"), mode]);
      check(`ai ${major} ${mode}: an edit into a denied command is refused (edit_refused, the run still waits); an allowed edit runs the edited call once and the model gets its output`,
        editDenied.error === "edit_refused" && editOk.final === "done" && output(editOk, "c1")?.value === "ran: npm publish --dry-run" &&
          JSON.stringify(ran(x)) === '["ls","npm publish --dry-run"]',
        { editDenied, editOk, ran: ran(x) });
    }

    const t = mkdtempSync(join(dir, "run-"));
    step(t, ["park", "generate", "run-t"]);
    const edited = step(t, ["tamper", "run-t"]);
    const tampered = step(t, ["resume", "run-t", allow, "generate"]);
    const still = step(t, ["show", "run-t"]);
    check(`ai ${major}: an edited history (same call id, other arguments) is refused (anchor_mismatch); the run still waits, nothing ran`,
      edited.edited === 1 && tampered.error === "anchor_mismatch" && still.status === "awaiting_permission" && !ran(t).some((c) => c.includes("curl")),
      { edited, tampered, still, ran: ran(t) });

    const h = mkdtempSync(join(dir, "run-"));
    step(h, ["park", "generate", "run-h"]);
    const hard = step(h, ["resume", "run-h", allow, "generate"], { POLICY: DENY_PUBLISH });
    const ho = output(hard, "c1");
    check(`ai ${major}: a call the policy denies by the time of the resume is refused although approved; the tool never runs`,
      ho?.type === "execution-denied" && /^Refused by policy \(user\.deny\[0\]\)/.test(ho.reason) && !ran(h).includes("npm publish"), hard);

    const f = mkdtempSync(join(dir, "run-"));
    const forged = step(f, ["forge", "generate"]);
    check(`ai ${major}: a client-held history that approves \`rm -rf /\` never runs it`,
      forged.results?.length === 1 && forged.results[0].output.type !== "text" && ran(f).length === 0, forged);

    const e = mkdtempSync(join(dir, "run-"));
    const ep = step(e, ["park", "generate", "run-e"], { TTL_MS: "1000" });
    execFileSync("sleep", ["1.2"]);
    const expired = step(e, ["resume", "run-e", allow, "generate"]);
    const eo = output(expired, "c1");
    const again = step(e, ["resume", "run-e", allow, "generate"]);
    check(`ai ${major}: an expired marker reaches the model as execution-denied "not approved: nobody answered in time" (a late approval runs nothing), once`,
      ep.status === "parked" && expired.final === "done" && eo?.type === "execution-denied" &&
        eo.reason === "Not approved: nobody answered the permission request in time." &&
        !ran(e).includes("npm publish") && again.error === "already_resumed",
      { ep, expired, again });

    // Over a toolgate server (httpRuns): parked there, decided by an approver's token, a
    // fresh process takes that and goes on, once.
    const srv = await startServer({ db: join(dir, "server.db"), tokens: SERVER_TOKENS });
    try {
      const env = { TOOLGATE_URL: srv.url, TOOLGATE_TOKEN: AGENT_TOKEN };
      const v = mkdtempSync(join(dir, "run-"));
      const vp = step(v, ["park", "stream", "run-v"], env);
      const { seen, decided } = await decideOnServer(srv.url, "run-v", APPROVER_TOKEN, "allow");
      const vr = step(v, ["resume", "run-v", "[]", "stream"], env);
      const vagain = step(v, ["resume", "run-v", "[]", "stream"], env);
      check(`ai ${major}: over a toolgate server (httpRuns): parked there, decided in its panel, a fresh process takes it: the call runs once; a second take is already_resumed`,
        vp.status === "parked" && seen.json?.status === "awaiting_permission" && decided.status === 200 &&
          vr.final === "done" && output(vr, "c1")?.value === "ran: npm publish" && JSON.stringify(ran(v)) === '["ls","npm publish"]' &&
          vagain.error === "already_resumed",
        { vp, decided, vr, vagain, ran: ran(v) });
    } finally {
      await srv.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await suite(7);
await suite(6);
finish("toolgate/ai-sdk (the real AI SDK 7 and 6, Node 22)");
