// toolgate/acp against the real Agent Client Protocol SDK (@agentclientprotocol/sdk
// from npm, web/consumers/acp with its own lockfile, the packed tarball installed):
// `tsc` type-checks use.ts (the mapping's values are the SDK's request and response
// types), and roundtrip.mjs connects an SDK agent and an SDK client in memory and runs
// every mapping both ways (approve, always allow with a scope, deny with a message,
// expired, cancelled, a forged option id).
//   node web/e2e/acp.test.mjs   (part of web/e2e/run.mjs)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildConsumer, run } from "./tarball.mjs";
import { checker } from "./checks.mjs";

const { check, finish } = checker();
const dir = mkdtempSync(join(tmpdir(), "toolgate-acp-"));
try {
  const built = buildConsumer("acp", dir);
  check("an ACP consumer installs the tarball and type-checks against the SDK's types (tsc)", built.ok, built.out);
  if (built.ok) {
    const trip = run("node", ["roundtrip.mjs"], dir);
    for (const line of trip.out.split("\n").filter((l) => /^(ok  |FAIL)/.test(l))) {
      check(`acp roundtrip: ${line.slice(5)}`, line.startsWith("ok"), line);
    }
    check("the ACP roundtrip ran to the end", trip.ok && /all passed/.test(trip.out), trip.out);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
finish("toolgate/acp (the real ACP SDK)");
