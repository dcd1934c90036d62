// A useChat page in Chromium: web/consumers/ai-sdk-react (React 19, `ai` 7 and
// @ai-sdk/react from npm, built with Vite, the packed tarball installed; its agent runs in
// the page on the SDK's MockLanguageModelV4). Through park → reload → approve:
// - Send: the model asks for `npm publish` (ask), the turn ends with the approval parked
//   in a toolgate marker; <toolgate-approval> shows the prompt; nothing ran;
// - reload: React's state is gone, the prompt comes back from the marker and so does
//   the conversation (the marker's history);
// - Approve once in the element: the decision becomes the SDK's addToolApprovalResponse,
//   useChat sends it on, the tool runs once and the model gets its output; a second
//   resume is already_resumed, another reload shows no prompt;
// - in a fresh profile, Deny: the model gets the SDK's execution-denied with "User
//   refused permission.", nothing ran;
// - in a fresh profile, a request nobody answers in time (`?ttl=1500`): after a reload
//   the model gets execution-denied "Not approved: nobody answered the permission
//   request in time.", nothing ran.
//   node web/e2e/ai-sdk-chat.test.mjs   (part of web/e2e/run.mjs)
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checker } from "./checks.mjs";
import { chromiumEngine } from "./drivers.mjs";
import { serveDir } from "./serve.mjs";
import { buildConsumer } from "./tarball.mjs";

const { check, finish } = checker();
const PROMPT = "toolgate-approval [data-testid=approval-prompt]";
const work = mkdtempSync(join(tmpdir(), "toolgate-ai-sdk-chat-"));
const state = `
  const texts = (window.chat?.messages ?? []).flatMap((m) => m.parts).filter((p) => p.type === "text").map((p) => p.text);
  const tools = (window.chat?.messages ?? []).flatMap((m) => m.parts).filter((p) => p.type === "tool-bash").map((p) => p.state);
  const run = window.gate.run("chat-1");
  return {
    prompt: document.querySelectorAll(${JSON.stringify(PROMPT)}).length,
    status: run?.status ?? null,
    texts, tools,
    ran: JSON.parse(localStorage.getItem("demo:ran") ?? "[]"),
    errors: window.pageErrors,
  };`;
let site;
let engine;
try {
  const built = buildConsumer("ai-sdk-react", work);
  check("a React page on useChat (ai 7, @ai-sdk/react) installs the tarball and builds with Vite", built.ok, built.out);
  if (built.ok) {
    writeFileSync(join(work, "dist", "favicon.ico"), "");
    site = await serveDir(join(work, "dist"));
    const url = `${site.url}chat.html`;
    engine = await chromiumEngine();

    const s = await engine.session();
    try {
      await s.open(url);
      await s.waitFor("return window.ready ? true : null;", 15_000);
      await s.click("#send");
      const parked = await s.waitFor(`return window.parked && document.querySelector(${JSON.stringify(PROMPT)}) ? true : null;`, 15_000);
      const before = await s.evaluate(state);
      check("Send: the ask call's approval is parked in a marker, the element shows the prompt, nothing ran",
        parked === true && before.status === "awaiting_permission" && before.prompt === 1 &&
          before.tools.includes("approval-requested") && before.ran.length === 0,
        before);

      await s.open(url);
      const back = await s.waitFor(`return window.ready && document.querySelector(${JSON.stringify(PROMPT)}) ? true : null;`, 15_000);
      const reloaded = await s.evaluate(state);
      check("reload: the prompt and the conversation come back from the marker, not from React state",
        back === true && reloaded.prompt === 1 && reloaded.tools.includes("approval-requested") && reloaded.ran.length === 0,
        reloaded);

      await s.click("toolgate-approval [data-testid=approve-once]");
      const done = await s.waitFor(`
        const texts = (window.chat?.messages ?? []).flatMap((m) => m.parts).filter((p) => p.type === "text").map((p) => p.text);
        return texts.some((t) => t.startsWith("done:")) ? true : null;`, 20_000);
      const after = await s.evaluate(`
        let again = "resumed again";
        try {
          await window.gate.resume("chat-1", { decisions: [{ toolCallId: "c1", anchor: window.gate.run("chat-1").decision?.calls?.[0]?.anchor ?? "", decision: "allow" }] });
        } catch (e) { again = e.code; }
        return { ...(await (async () => { ${state} })()), again, responses: window.responses };`);
      check("Approve once: the decision becomes addToolApprovalResponse, the tool runs once, the model gets its output",
        done === true && JSON.stringify(after.ran) === '["npm publish"]' && after.texts.some((t) => t.includes("ran: npm publish")) &&
          after.tools.includes("output-available") && after.responses?.[0]?.approved === true && after.prompt === 0,
        after);
      check("a second resume is already_resumed", after.again === "already_resumed", after.again);
      await s.open(url);
      await s.waitFor("return window.ready ? true : null;", 15_000);
      await new Promise((r) => setTimeout(r, 1000));
      const later = await s.evaluate(state);
      check("another reload shows no prompt and runs nothing again", later.prompt === 0 && later.ran.length === 1, later);
      const errors = [...later.errors, ...after.errors, ...s.consoleErrors()];
      check("no page error and no CSP violation", errors.length === 0, errors);
    } finally {
      await s.close();
    }

    const d = await engine.session();
    try {
      await d.open(url);
      await d.waitFor("return window.ready ? true : null;", 15_000);
      await d.click("#send");
      await d.waitFor(`return document.querySelector(${JSON.stringify(PROMPT)}) ? true : null;`, 15_000);
      await d.click("toolgate-approval [data-testid=deny]");
      const done = await d.waitFor(`
        const texts = (window.chat?.messages ?? []).flatMap((m) => m.parts).filter((p) => p.type === "text").map((p) => p.text);
        return texts.some((t) => t.startsWith("done:")) ? true : null;`, 20_000);
      const denied = await d.evaluate(state);
      check("Deny: the model gets the SDK's execution-denied with \"User refused permission.\", nothing ran",
        done === true && denied.ran.length === 0 &&
          denied.texts.some((t) => t.includes("execution-denied") && t.includes("User refused permission.")) && denied.prompt === 0,
        denied);
    } finally {
      await d.close();
    }

    const x = await engine.session();
    try {
      await x.open(`${url}?ttl=1500`);
      await x.waitFor("return window.ready ? true : null;", 15_000);
      await x.click("#send");
      await x.waitFor(`return window.parked && document.querySelector(${JSON.stringify(PROMPT)}) ? true : null;`, 15_000);
      await new Promise((r) => setTimeout(r, 2000));
      await x.open(`${url}?ttl=1500`);
      const done = await x.waitFor(`
        const texts = (window.chat?.messages ?? []).flatMap((m) => m.parts).filter((p) => p.type === "text").map((p) => p.text);
        return texts.some((t) => t.startsWith("done:")) ? true : null;`, 20_000);
      const expired = await x.evaluate(state);
      check("a request nobody answered in time: after a reload the model gets execution-denied \"Not approved: nobody answered…\", nothing ran",
        done === true && expired.ran.length === 0 && expired.status === "cancelled" &&
          expired.texts.some((t) => t.includes("execution-denied") && t.includes("Not approved: nobody answered the permission request in time.")) &&
          expired.prompt === 0 && expired.errors.length === 0,
        expired);
    } finally {
      await x.close();
    }
  }
} catch (e) {
  check("the chat page ran", false, String(e?.stack ?? e));
} finally {
  await engine?.close();
  site?.proc.kill();
  rmSync(work, { recursive: true, force: true });
}
finish("toolgate/ai-sdk in a useChat page (React, Vite, Chromium)");
