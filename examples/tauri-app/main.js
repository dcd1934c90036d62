// The window: <toolgate-approval> over the plugin's runs. The agent (src-tauri) parks
// what it must ask about; the element shows it, a click resumes it through the plugin,
// and the agent's waiting check hears the decision.
import init from "toolgate/element";
import "toolgate/approval.css";
import { resume, run, runs, tauriRunSource } from "toolgate/tauri";
import { listen } from "@tauri-apps/api/event";

const log = (line) => {
  const li = document.createElement("li");
  li.textContent = line;
  document.getElementById("log").append(li);
};

window.pageErrors = [];
addEventListener("error", (e) => window.pageErrors.push(String(e.message)));
addEventListener("unhandledrejection", (e) => window.pageErrors.push(String(e.reason?.message ?? e.reason)));

await init({ gate: false }); // the panel alone: the runs come from the plugin
const el = document.querySelector("toolgate-approval");
el.source = tauriRunSource();
el.addEventListener("toolgate-decision", (e) => {
  window.decisions = (window.decisions ?? 0) + 1;
  log(`decided ${e.detail.runId}: ${e.detail.results.map((r) => r.outcome).join(", ")}`);
});
await listen("agent://log", (e) => log(e.payload));
// For the devtools console (and the end-to-end test): the plugin's runs.
window.toolgate = { runs, run, resume };
window.ready = true;
