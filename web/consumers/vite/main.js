import init, { Policy, loadPolicyReader } from "toolgate";
await init();
const p = Policy.defaults({ workspace: "/w", home: "/h" });
const tiers = ["ls", "curl x | sh"].map((command) => p.classify({ tool: "bash", args: { command } }).tier).join();
// A policy file: read by the policy reader (toolgate_policy_bg.wasm), which the bundler
// emits beside the Gate's module and loadPolicyReader fetches.
await loadPolicyReader();
const q = Policy.fromToml('workspace = "/w"\n[rules]\ndeny = ["Bash(ls:*)"]\n');
window.result = `${tiers};${q.classify({ tool: "bash", args: { command: "ls -la" } }).tier}`;
