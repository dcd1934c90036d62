// <toolgate-approval> on a page with no framework: the package copied beside it
// (web/e2e/element.test.mjs), imported by path.
import init, { Policy, Gate, defineToolgateApproval, ToolgateApprovalElement, loadPolicyReader, gateRunSource } from "./toolgate/element.js";
import { testRun } from "./test-run.js";

await init();
// main-entry.html: the Gate comes from the main entry, shown through gateRunSource.
const main = window.mainEntry ? await import("./toolgate/web.js") : null;
if (main) await main.default();
// Policy.fromToml needs the policy reader: before it is loaded, it says so.
let beforeReader = null;
try {
  Policy.fromToml('default = "ask"\n');
} catch (e) {
  beforeReader = e.code;
}
await loadPolicyReader();
const run = testRun(main ? { Policy: main.Policy, Gate: main.Gate, framework: "plain" } : { Policy, Gate, framework: "plain" });
const el = document.getElementById("approval");
el.addEventListener("toolgate-decision", run.onDecision);
if (main) el.source = gateRunSource(run.gate);
else el.gate = run.gate;

// Safe to define twice: again from this module, and from a second copy of it (another
// bundle would be one); the name stays bound to the first class.
const checks = { beforeReader };
try {
  defineToolgateApproval();
  await import("./toolgate/element.js?second-copy");
  checks.definedTwice = customElements.get("toolgate-approval") === ToolgateApprovalElement;
} catch (e) {
  checks.definedTwice = `threw: ${e}`;
}
// A Gate of the main entry is the element's own (one module): accepted. One of another
// copy of the package lives in another WebAssembly instance: refused, clearly.
try {
  const entry = await import("./toolgate/web.js");
  await entry.default();
  const same = new entry.Gate(entry.Policy.defaults({ workspace: "/w", home: "/h" }), { sessionId: "x" });
  document.createElement("toolgate-approval").gate = same;
  checks.mainGate = entry.Gate === Gate ? "accepted" : "another class";
  const copy = await import("./toolgate/web-glue.js?second-copy");
  await copy.default();
  const other = new copy.Gate(copy.Policy.defaults({ workspace: "/w", home: "/h" }), { sessionId: "y" });
  document.createElement("toolgate-approval").gate = other;
  checks.foreignGate = "accepted";
} catch (e) {
  checks.foreignGate = e.code;
}
window.pageChecks = checks;
run.park();
