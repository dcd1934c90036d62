// A bounded command run for the end-to-end tests, with no side effect on import (unlike
// tarball.mjs, which packs the npm package when it is imported).
import { execFileSync } from "node:child_process";

/** Runs `cmd args` in `cwd`, bounded: an install or a build that hangs fails after 5
 * minutes. `{ ok, out }` (stdout, or stdout + stderr + the error on failure). */
export function run(cmd, args, cwd) {
  try {
    const opts = { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 300_000, killSignal: "SIGKILL" };
    return { ok: true, out: execFileSync(cmd, args, opts) };
  } catch (e) {
    return { ok: false, out: `${e.stdout ?? ""}${e.stderr ?? ""}${e.message}` };
  }
}
