// toolgate/http (web/element/http.js) in Node against a real local HTTP server that
// answers as toolgate-server does, or hangs, or is gone: the bearer token on every
// request, conditional polls (a 304 answered with the text its ETag stands for), the
// decisions' body (with the revision the run was listed at), every failure a ToolgateHttpError with the server's code (and
// `decidedBy`), a request that hangs aborted after `timeoutMs`, bad options refused.
//   node web/e2e/http-source.test.mjs   (part of web/e2e/run.mjs)
import { createServer } from "node:http";
import { checker } from "./checks.mjs";

const { check, finish } = checker();
const { httpRunSource, ToolgateHttpError } = await import("../element/http.js");

const seen = [];
let mode = "ok";
const RUNS = JSON.stringify({ runs: [
  { runId: "r1", status: "awaiting_permission", revision: 1, updatedAt: 1 },
  { runId: "r/1", status: "awaiting_permission", revision: 5, updatedAt: 1 },
] });
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (d) => (body += d));
  req.on("end", () => {
    seen.push({ method: req.method, url: req.url, auth: req.headers.authorization, inm: req.headers["if-none-match"], type: req.headers["content-type"], body });
    const send = (status, json, headers = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(json === undefined ? undefined : JSON.stringify(json));
    };
    if (mode === "hang") return; // never answers
    if (req.headers.authorization !== "Bearer tok-0123456789abcdef") {
      return send(401, { error: { code: "unauthorized", message: "unknown token" } }, { "www-authenticate": "Bearer" });
    }
    if (req.method === "GET" && req.url === "/base/v1/runs") {
      if (req.headers["if-none-match"] === '"e1"') return send(304, undefined, { etag: '"e1"' });
      res.writeHead(200, { "content-type": "application/json", etag: '"e1"' });
      return res.end(RUNS);
    }
    if (req.method === "POST" && req.url === "/base/v1/runs/r%2F1/decisions") {
      if (mode === "lost") return send(409, { error: { code: "already_resumed", message: "already decided by `bob`", decidedBy: "bob" } });
      if (mode === "html") {
        res.writeHead(502, { "content-type": "text/html" });
        return res.end("<h1>Bad gateway</h1>");
      }
      return send(200, { runId: "r/1", sessionId: "s", results: [], history: "[]", revision: 2 });
    }
    send(404, { error: { code: "not_found", message: "no such endpoint" } });
  });
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const url = `http://127.0.0.1:${server.address().port}/base`;

async function rejection(p) {
  try {
    await p;
    return null;
  } catch (e) {
    return e;
  }
}

try {
  const bad = [
    () => httpRunSource({ url: "not a url", token: "t" }),
    () => httpRunSource({ url, token: "" }),
    () => httpRunSource({ url, token: "a\nb" }),
    () => httpRunSource({ url, token: "t", timeoutMs: 0 }),
    () => httpRunSource(),
  ].map((f) => {
    try {
      f();
      return null;
    } catch (e) {
      return e.code;
    }
  });
  check("bad options are refused with code bad_input", bad.every((c) => c === "bad_input"), bad);

  const source = httpRunSource({ url, token: "tok-0123456789abcdef", timeoutMs: 1_000 });
  const first = await source.runs();
  const second = await source.runs();
  check("runs(): the answer's text, then on a 304 the same text", first === RUNS && second === RUNS, { first, second });
  check("the bearer token on every request, If-None-Match with the last ETag",
    seen[0].auth === "Bearer tok-0123456789abcdef" && seen[0].inm === undefined && seen[1].inm === '"e1"', seen.slice(0, 2));

  const decisions = [{ toolCallId: "c1", anchor: "a".repeat(64), decision: "deny", message: "no" }];
  const resumed = await source.resume("r/1", decisions);
  const post = seen.at(-1);
  check("resume(): POST to the run's decisions (id escaped), the body {revision, decisions} with the revision the run was listed at, the server's answer back",
    resumed.revision === 2 && post.type === "application/json" && JSON.parse(post.body).decisions[0].message === "no" &&
      JSON.parse(post.body).revision === 5, { resumed, post });

  mode = "lost";
  const lost = await rejection(source.resume("r/1", decisions));
  check("a 409 is a ToolgateHttpError with the server's code, message and decidedBy",
    lost instanceof ToolgateHttpError && lost.code === "already_resumed" && lost.status === 409 && lost.decidedBy === "bob" && /bob/.test(lost.message),
    { code: lost?.code, decidedBy: lost?.decidedBy });
  mode = "html";
  const html = await rejection(source.resume("r/1", decisions));
  check("an answer that is not the API's (a proxy's HTML 502) is bad_answer", html?.code === "bad_answer" && html.status === 502, html?.code);
  mode = "ok";
  const wrongToken = await rejection(httpRunSource({ url, token: "wrong-token-000000000" }).runs());
  check("a refused token is unauthorized (sign in again)", wrongToken?.code === "unauthorized" && wrongToken.status === 401, wrongToken?.message);

  mode = "hang";
  const t0 = Date.now();
  const hung = await rejection(httpRunSource({ url, token: "tok-0123456789abcdef", timeoutMs: 300 }).runs());
  const took = Date.now() - t0;
  check(`a request that hangs is aborted after timeoutMs (${took} ms for 300)`, hung?.code === "timeout" && took >= 280 && took < 2_000, { code: hung?.code, took });
  mode = "ok";

  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  const gone = await rejection(source.runs());
  check("a server that is gone is unreachable (nothing decided)", gone?.code === "unreachable" && gone.status === 0, gone?.message);
} catch (err) {
  check("the toolgate/http test ran to the end", false, String(err?.stack ?? err));
} finally {
  server.closeAllConnections();
  server.close();
}
finish("toolgate/http against a local HTTP server");
