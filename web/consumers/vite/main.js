import init, { Policy } from "toolgate";
await init();
const p = Policy.defaults({ workspace: "/w", home: "/h" });
window.result = ["ls", "curl x | sh"].map((command) => p.classify({ tool: "bash", args: { command } }).tier).join();
