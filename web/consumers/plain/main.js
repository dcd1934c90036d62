// <toolgate-approval> on a page with no framework: the package copied beside it
// (web/e2e/element.test.mjs), imported by path.
import init, { Policy, Gate, defineToolgateApproval, ToolgateApprovalElement, loadPolicyReader } from "./toolgate/element.js";
import { testRun } from "./test-run.js";

await init();
// Policy.fromToml needs the policy reader: before it is loaded, it says so.
let beforeReader = null;
try {
  Policy.fromToml('default = "ask"\n');
} catch (e) {
  beforeReader = e.code;
}
await loadPolicyReader();
const run = testRun({ Policy, Gate, framework: "plain" });
const el = document.getElementById("approval");
el.addEventListener("toolgate-decision", run.onDecision);
el.gate = run.gate;

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
// A Gate of the main entry lives in another WebAssembly instance: refused, clearly.
try {
  const main = await import("./toolgate/web.js");
  await main.default();
  const other = new main.Gate(main.Policy.defaults({ workspace: "/w", home: "/h" }), { sessionId: "x" });
  document.createElement("toolgate-approval").gate = other;
  checks.foreignGate = "accepted";
} catch (e) {
  checks.foreignGate = e.code;
}
window.pageChecks = checks;
run.park();
