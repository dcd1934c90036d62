// Serves a directory on a free 127.0.0.1 port (python3 -m http.server) for the
// end-to-end tests; resolves once it answers.
import { spawn } from "node:child_process";
import { createServer } from "node:net";

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

/** `{ url, proc }`: kill `proc` when done. On a free port, or on `port`. */
export async function serveDir(dir, port) {
  port ??= await freePort();
  const proc = spawn("python3", ["-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", dir], {
    stdio: "ignore",
  });
  const url = `http://127.0.0.1:${port}/`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(url)).ok) return { url, proc };
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  proc.kill();
  throw new Error(`the test server for ${dir} did not start`);
}
