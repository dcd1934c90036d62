// A toolgate server for the adapter tests: target/debug/toolgate-server (built here) on a
// fresh SQLite file, with the given tokens; `stop()` ends it (SIGKILL after 10 s).
import { execFileSync, spawn } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "./tarball.mjs";

const TARGET = process.env.CARGO_TARGET_DIR ?? join(ROOT, "target");

/** `{ url, stop }` once the server listens; rejects if it does not within 20 s. `args`:
 * more of the server's options (`--panel DIR`). */
export function startServer({ db, tokens, args = [] }) {
  execFileSync("cargo", ["build", "-q", "-p", "toolgate-server", "--bin", "toolgate-server"], { cwd: ROOT, stdio: "inherit" });
  return new Promise((resolve, reject) => {
    const child = spawn(join(TARGET, "debug", "toolgate-server"), ["--listen", "127.0.0.1:0", "--database", `sqlite:${db}`, ...args], {
      env: { ...process.env, TOOLGATE_TOKENS: JSON.stringify(tokens) },
      stdio: ["ignore", "pipe", "ignore"],
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error("the server did not start within 20 s"));
    }, 20_000);
    let out = "";
    const stop = () =>
      new Promise((done) => {
        if (child.exitCode !== null) return done();
        const kill = setTimeout(() => child.kill("SIGKILL"), 10_000);
        child.on("exit", () => {
          clearTimeout(kill);
          done();
        });
        child.kill("SIGTERM");
      });
    child.stdout.on("data", (d) => {
      out += d;
      const m = /listening on (http:\/\/[^ ]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1].replace(/\/?$/, "/"), stop });
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before listening: ${out}`));
    });
  });
}

/** A JSON request to the server at `url` as `token`: `{ status, headers, json, text }`
 * (`json` null when the answer is not JSON). */
export async function api(url, method, path, token, body) {
  const res = await fetch(new URL(path, url), {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: res.status, headers: res.headers, json, text };
}

/** A person's decision on the server, as the panel makes it: reads the run's pending
 * call `c1` as `token` (an approver) and posts `decision` for it. `{ seen, decided }`. */
export async function decideOnServer(url, runId, token, decision) {
  const seen = await api(url, "GET", `v1/runs/${runId}`, token);
  const anchor = seen.json?.marker?.calls?.[0]?.anchor;
  const decided = await api(url, "POST", `v1/runs/${runId}/decisions`, token, { decisions: [{ toolCallId: "c1", anchor, decision }] });
  return { seen, decided };
}
