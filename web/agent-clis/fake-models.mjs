// Scripted model endpoints for the agent CLIs, so they run offline: each answers the
// first turn of a conversation with one tool call (`script`, changeable between runs)
// and a turn that carries the tool's result with a final text. Every request is kept
// (`requests`) so a test can read the tool result the CLI sent back.
//   Anthropic Messages API (Claude Code: ANTHROPIC_BASE_URL), streamed or not;
//   OpenAI Responses API (Codex: a model provider's base_url), streamed;
//   OpenAI Chat Completions (Copilot CLI: COPILOT_PROVIDER_BASE_URL), streamed or not;
//   Gemini API (Gemini CLI: GOOGLE_GEMINI_BASE_URL), streamed or not, and the JSON
//   answers of its helper calls (model routing, next speaker) filled from their schema.
import http from "node:http";

function serve(handle) {
  const requests = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      let json = {};
      try {
        json = JSON.parse(body || "{}");
      } catch {}
      requests.push({ url: req.url, body: json });
      handle(req.url, json, res);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ url: `http://127.0.0.1:${server.address().port}`, requests, close: () => server.close() }),
    ),
  );
}

const sse = (res) => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  return (event, data) => res.write(`${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`);
};
const sendJson = (res, v) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(v));
};

/** Anthropic: `script` = {name, input}: a tool_use when the request offers that tool. */
export function anthropic(script) {
  let n = 0;
  return serve((url, j, res) => {
    if (!url.startsWith("/v1/messages") || url.includes("count_tokens")) return sendJson(res, { input_tokens: 10 });
    const last = (j.messages ?? []).at(-1);
    const answered = Array.isArray(last?.content) && last.content.some((b) => b.type === "tool_result");
    const offered = (j.tools ?? []).some((t) => t.name === script.name);
    const blocks = !answered && offered
      ? [{ type: "tool_use", id: `toolu_fake${++n}`, name: script.name, input: script.input }]
      : [{ type: "text", text: answered ? "done" : "ok" }];
    const stop = blocks[0].type === "tool_use" ? "tool_use" : "end_turn";
    const message = { id: `msg_fake${n}`, type: "message", role: "assistant", model: j.model ?? "fake", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } };
    if (!j.stream) return sendJson(res, { ...message, content: blocks, stop_reason: stop });
    const ev = sse(res);
    ev("message_start", { type: "message_start", message });
    blocks.forEach((b, index) => {
      const start = b.type === "tool_use" ? { ...b, input: {} } : { type: "text", text: "" };
      ev("content_block_start", { type: "content_block_start", index, content_block: start });
      const delta = b.type === "tool_use" ? { type: "input_json_delta", partial_json: JSON.stringify(b.input) } : { type: "text_delta", text: b.text };
      ev("content_block_delta", { type: "content_block_delta", index, delta });
      ev("content_block_stop", { type: "content_block_stop", index });
    });
    ev("message_delta", { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } });
    ev("message_stop", { type: "message_stop" });
    res.end();
  });
}

/** OpenAI Responses: `script` = {name, arguments}: a function_call. */
export function openai(script) {
  let n = 0;
  return serve((url, j, res) => {
    if (!url.includes("/responses")) return sendJson(res, { object: "list", data: [] });
    const answered = (j.input ?? []).some((i) => i.type === "function_call_output");
    const id = `resp_fake${++n}`;
    const item = !answered
      ? { type: "function_call", id: `fc_${n}`, status: "completed", call_id: `call_${n}`, name: script.name, arguments: JSON.stringify(script.arguments) }
      : { type: "message", id: `msg_${n}`, status: "completed", role: "assistant", content: [{ type: "output_text", text: "done", annotations: [] }] };
    const ev = sse(res);
    ev("response.created", { type: "response.created", response: { id } });
    ev("response.output_item.added", { type: "response.output_item.added", output_index: 0, item });
    ev("response.output_item.done", { type: "response.output_item.done", output_index: 0, item });
    const usage = { input_tokens: 10, input_tokens_details: null, output_tokens: 5, output_tokens_details: null, total_tokens: 15 };
    ev("response.completed", { type: "response.completed", response: { id, usage } });
    res.end();
  });
}

/** OpenAI Chat Completions: `script` = {name, arguments}: a tool call when the request
 * offers that function. */
export function openaiChat(script) {
  let n = 0;
  return serve((url, j, res) => {
    if (!url.includes("/chat/completions")) return sendJson(res, { object: "list", data: [{ id: j.model ?? "gpt-4o", object: "model" }] });
    const answered = (j.messages ?? []).some((m) => m.role === "tool");
    const offered = (j.tools ?? []).some((t) => t.function?.name === script.name);
    const id = `chatcmpl_fake${++n}`;
    const call = { id: `call_${n}`, type: "function", function: { name: script.name, arguments: JSON.stringify(script.arguments) } };
    const message = !answered && offered
      ? { role: "assistant", content: null, tool_calls: [call] }
      : { role: "assistant", content: answered ? "done" : "ok" };
    const finish = message.tool_calls ? "tool_calls" : "stop";
    const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
    if (!j.stream) return sendJson(res, { id, object: "chat.completion", created: 1, model: j.model, choices: [{ index: 0, message, finish_reason: finish }], usage });
    const ev = sse(res);
    const delta = message.tool_calls ? { role: "assistant", tool_calls: [{ index: 0, ...call }] } : { role: "assistant", content: message.content };
    ev(null, { id, object: "chat.completion.chunk", created: 1, model: j.model, choices: [{ index: 0, delta, finish_reason: null }] });
    ev(null, { id, object: "chat.completion.chunk", created: 1, model: j.model, choices: [{ index: 0, delta: {}, finish_reason: finish }], usage });
    res.write("data: [DONE]\n\n");
    res.end();
  });
}

/** Gemini: `script` = {name, args}: a functionCall when the request declares it. */
export function gemini(script) {
  const fill = (s) => {
    if (s?.enum) return s.enum[0];
    switch (String(s?.type ?? "").toUpperCase()) {
      case "OBJECT": return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, fill(v)]));
      case "ARRAY": return [];
      case "INTEGER": case "NUMBER": return 1;
      case "BOOLEAN": return false;
      default: return "x";
    }
  };
  const reply = (parts) => ({ candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 } });
  return serve((url, j, res) => {
    if (url.includes(":countTokens")) return sendJson(res, { totalTokens: 10 });
    const schema = j.generationConfig?.responseJsonSchema ?? j.generationConfig?.responseSchema;
    if (j.generationConfig?.responseMimeType === "application/json" && schema) {
      return sendJson(res, reply([{ text: JSON.stringify(fill(schema)) }]));
    }
    const answered = (j.contents ?? []).some((c) => (c.parts ?? []).some((p) => p.functionResponse));
    const offered = (j.tools ?? []).some((t) => (t.functionDeclarations ?? []).some((f) => f.name === script.name));
    const parts = !answered && offered ? [{ functionCall: { name: script.name, args: script.args } }] : [{ text: answered ? "done" : "ok" }];
    if (!url.includes("alt=sse")) return sendJson(res, reply(parts));
    sse(res)(null, reply(parts));
    res.end();
  });
}
