// Entry point that scripts/test calls: builds the demo bundle (scripts/build-web:
// release, wasm-opt) and runs the end-to-end tests against it, after the panic-probe
// test (web/e2e/panic.test.mjs, which builds its own test-only bundle).
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
if (!process.env.TOOLGATE_E2E_NO_BUILD) {
  execFileSync(join(ROOT, "scripts", "build-web"), { stdio: "inherit", cwd: ROOT });
}
// A panic in the module fails closed (its own test-only build; exits on failure).
await import("./panic.test.mjs");
// The npm package, installed from its tarball (scripts/package, built once for both
// tests; each exits on failure).
await import("./package.test.mjs");
// The package classifies every corpus call exactly as the CLI does (host shapes and a
// policy's [tools] included).
await import("./parity.test.mjs");
// The SDK adapters against the SDKs from npm: toolgate/acp, toolgate/openai-agents,
// toolgate/ai-sdk (ai 7 and 6, and a useChat page in Chromium).
await import("./acp.test.mjs");
await import("./openai-agents.test.mjs");
await import("./ai-sdk.test.mjs");
await import("./ai-sdk-chat.test.mjs");
// <toolgate-approval> from the package: Chromium and WebKitGTK, plain, React and Vue.
await import("./element.test.mjs");
// A real Tauri app (examples/tauri-app) with tauri-plugin-toolgate: its window through
// tauri-driver and WebKitWebDriver under xvfb-run. Only in ./scripts/test --full
// (TOOLGATE_FULL=1): with it a cold run would pass 45 minutes.
if (process.env.TOOLGATE_FULL) await import("./tauri.test.mjs");
// The real agent CLIs from npm (Claude Code, Codex, Gemini CLI, Copilot CLI, OpenCode;
// about 1.5 GB) offline
// against scripted model endpoints, with toolgate's hook installed: also --full only.
if (process.env.TOOLGATE_FULL) await import("./agent-clis.test.mjs");
// Install in one command: the platform package and toolgate through a local npm
// registry, the wheel through a local PyPI index, installed by name from empty caches
// (npx, npm -g, a Vite app, pip, uvx): --full only, it needs scripts/dist's binary.
if (process.env.TOOLGATE_FULL) await import("./registries.test.mjs");
else console.log("SKIPPED: the Tauri app end to end (./scripts/test --full runs it)");
// toolgate/http against a local HTTP server; the panel a toolgate server serves,
// against the real server (Chromium).
await import("./http-source.test.mjs");
await import("./server.test.mjs");
// Remote answers: the hook's --event permission-request against the real server.
await import("./remote.test.mjs");
await import("./demo.test.mjs");
