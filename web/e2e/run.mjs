// Entry point that scripts/test calls: builds the demo bundle (scripts/build-web:
// release, wasm-opt) and runs the end-to-end tests against it.
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
if (!process.env.TOOLGATE_E2E_NO_BUILD) {
  execFileSync(join(ROOT, "scripts", "build-web"), { stdio: "inherit", cwd: ROOT });
}
await import("./demo.test.mjs");
