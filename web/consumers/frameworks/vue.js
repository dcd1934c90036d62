// <toolgate-approval> in Vue 3: `.gate` binds the property (`:gate.prop` in a template),
// `onToolgateDecision` listens to `toolgate-decision` (`@toolgate-decision`). With
// templates, tell the compiler it is a custom element:
// compilerOptions.isCustomElement = (tag) => tag === "toolgate-approval".
import init, { Policy, Gate, loadPolicyReader } from "toolgate/element";
import "toolgate/approval.css";
import { createApp, h, onMounted } from "vue";
import { testRun } from "./test-run.js";

await init();
await loadPolicyReader(); // the policy reader, for Policy.fromToml
const run = testRun({ Policy, Gate, framework: "vue" });

createApp({
  setup() {
    onMounted(() => run.park());
    return () =>
      h("main", [
        h("h1", "Chat (Vue)"),
        h("toolgate-approval", { ".gate": run.gate, onToolgateDecision: run.onDecision }),
      ]);
  },
}).mount("#app");
