// <toolgate-approval> in React 19: the gate is set as a property and the decision event
// is listened to with an `on`-prefixed prop (React 19 passes both to custom elements).
import init, { Policy, Gate, loadPolicyReader } from "toolgate/element";
import "toolgate/approval.css";
import { createElement as h, useEffect } from "react";
import { createRoot } from "react-dom/client";
import { testRun } from "./test-run.js";

await init();
await loadPolicyReader(); // the policy reader, for Policy.fromToml
const run = testRun({ Policy, Gate, framework: "react" });

function App() {
  useEffect(() => run.park(), []);
  return h(
    "main",
    null,
    h("h1", null, "Chat (React)"),
    h("toolgate-approval", { gate: run.gate, "ontoolgate-decision": run.onDecision }),
  );
}

createRoot(document.getElementById("app")).render(h(App));
