// A React chat on the AI SDK's useChat whose tool approvals are durable: the agent runs in
// the page (ToolLoopAgent over DirectChatTransport, the SDK's MockLanguageModelV4), the
// policy answers toolApproval, a pending approval is parked in a toolgate marker, and
// <toolgate-approval> renders the prompt from the marker, so it is still there after a
// reload (React state is not). The person's decision becomes the SDK's
// addToolApprovalResponse, and useChat sends it on: the approved tool runs once. A request
// nobody answered in time comes back after a reload as not approved because it expired.
// (web/e2e/ai-sdk-chat.test.mjs builds this with Vite and drives it in Chromium.)
import init, { Policy, Gate, loadPolicyReader } from "toolgate/element";
import "toolgate/approval.css";
import { gateTools, toolgateApprovals, toolgatePolicy } from "toolgate/ai-sdk";
import {
  DirectChatTransport,
  ToolLoopAgent,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  simulateReadableStream,
  stepCountIs,
  tool,
} from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { useChat } from "@ai-sdk/react";
import { createElement as h, useEffect, useRef } from "react";
import { createRoot } from "react-dom/client";
import { z } from "zod";

await init();
await loadPolicyReader(); // the policy reader, for Policy.fromToml
const RUN_ID = "chat-1";
const RAN = "demo:ran"; // what the tool ran, kept across reloads
// `?ttl=MS`: how long a parked approval waits for a person (the test's expiry).
const TTL_MS = Number(new URLSearchParams(location.search).get("ttl")) || undefined;
const policy = Policy.fromToml('default = "ask"\nworkspace = "/w"\n');
const gate = new Gate(policy, { sessionId: "chat", owner: "me" });
const approvals = toolgateApprovals({ policy, runs: gate });
window.gate = gate;
window.pageErrors = [];
window.addEventListener("error", (e) => window.pageErrors.push(String(e.message)));
window.addEventListener("unhandledrejection", (e) => window.pageErrors.push(String(e.reason?.message ?? e.reason)));

const bash = tool({
  description: "run a shell command",
  inputSchema: z.object({ command: z.string() }),
  execute: async ({ command }) => {
    localStorage.setItem(RAN, JSON.stringify([...JSON.parse(localStorage.getItem(RAN) ?? "[]"), command]));
    return `ran: ${command}`;
  },
});

// The model answers from the prompt alone (it must, after a reload): no tool result yet →
// ask for `npm publish`; else say what came back.
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const model = new MockLanguageModelV4({
  doStream: async ({ prompt }) => {
    const results = prompt.filter((m) => m.role === "tool").flatMap((m) => m.content).filter((p) => p.type === "tool-result");
    const finish = (unified) => ({ type: "finish", finishReason: { unified, raw: unified }, usage });
    const chunks = results.length
      ? [{ type: "stream-start", warnings: [] }, { type: "text-start", id: "t" },
         { type: "text-delta", id: "t", delta: `done: ${JSON.stringify(results[0].output)}` }, { type: "text-end", id: "t" }, finish("stop")]
      : [{ type: "stream-start", warnings: [] },
         { type: "tool-call", toolCallId: "c1", toolName: "bash", input: JSON.stringify({ command: "npm publish" }) }, finish("tool-calls")];
    return { stream: simulateReadableStream({ chunks }) };
  },
});
const agent = new ToolLoopAgent({
  model,
  tools: gateTools({ bash }, { policy }),
  toolApproval: toolgatePolicy(policy),
  stopWhen: stepCountIs(5),
});
const transport = new DirectChatTransport({ agent });

function part(p, i) {
  if (p.type === "text") return h("p", { key: i, className: "text" }, p.text);
  if (p.type === "tool-bash") return h("p", { key: i, className: "tool", "data-state": p.state }, `bash ${p.input?.command ?? ""}: ${p.state}`);
  return null;
}

function App() {
  const chat = useChat({ transport, sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses });
  const { messages, setMessages, sendMessage, addToolApprovalResponse, status } = chat;
  const restored = useRef(false);
  // After a reload the conversation comes back from the marker, not from React state;
  // from a marker that expired, once, with each approval answered "not approved:
  // nobody answered in time".
  useEffect(() => {
    const run = gate.run(RUN_ID);
    if (run?.marker) setMessages(JSON.parse(run.marker.history).messages);
    const expired = run?.expiredAt !== undefined && run.resumedAt === undefined;
    const done = () => {
      restored.current = true;
      window.ready = true;
    };
    if (!expired) return done();
    approvals.resume(RUN_ID).then(({ messages: kept, responses }) => {
      setMessages(kept);
      for (const r of responses) addToolApprovalResponse(r);
      window.responses = responses;
      done();
    }, (e) => { window.pageErrors.push(e.message); done(); });
  }, []);
  // A turn that ends waiting for a person is parked (once): the prompt is the marker's.
  useEffect(() => {
    if (!restored.current || status !== "ready" || approvals.pending(messages).length === 0) return;
    if (gate.run(RUN_ID)?.marker) return;
    approvals.park(messages, { runId: RUN_ID, ttlMs: TTL_MS }).then(() => { window.parked = true; }, (e) => window.pageErrors.push(e.message));
  }, [messages, status]);
  window.chat = { messages, status };
  // The element resumed the run (exactly once): answer the SDK's approvals from it.
  const onDecision = (event) => {
    const { responses } = approvals.continueFrom(event.detail);
    for (const r of responses) addToolApprovalResponse(r);
    window.responses = responses;
  };
  return h(
    "main",
    null,
    h("h1", null, "Chat"),
    h("button", { id: "send", onClick: () => sendMessage({ text: "publish it" }) }, "Send"),
    h("div", { id: "messages" }, messages.map((m) => h("div", { key: m.id, className: m.role }, m.parts.map(part)))),
    h("toolgate-approval", { gate, "ontoolgate-decision": onDecision }),
  );
}

createRoot(document.getElementById("app")).render(h(App));
