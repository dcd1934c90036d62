// What every element test page does (web/e2e/element.test.mjs drives it): one Gate for
// the page, a run parked through it whose call carries HTML that must render as text,
// and the `toolgate-decision` events counted in `window.decisions`. Errors, rejections
// and CSP violations of the page land in `window.pageErrors` (every engine: WebDriver has
// no console log).
window.pageErrors = [];
addEventListener("error", (e) => window.pageErrors.push(`error: ${e.message}`));
addEventListener("unhandledrejection", (e) => window.pageErrors.push(`unhandled rejection: ${e.reason}`));
document.addEventListener("securitypolicyviolation", (e) =>
  window.pageErrors.push(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`),
);

export function testRun({ Policy, Gate, framework }) {
  const policy = Policy.fromToml('workspace = "/home/dev/app"\ndefault = "ask"\n');
  // An owner of its own: runs left in this origin's storage by another load stay hidden
  // (`?owner=…` keeps one across a reload; `&nopark` parks nothing on load).
  const params = new URLSearchParams(location.search);
  const owner = params.get("owner") ?? `me-${crypto.randomUUID()}`;
  const gate = new Gate(policy, { sessionId: "element-test", owner });
  const runId = `run-${framework}`;
  window.decisions = [];
  window.gate = gate;
  window.runId = runId;
  return {
    gate,
    onDecision(event) {
      window.decisions.push(event.detail);
    },
    park() {
      if (window.parkedAt || params.has("nopark")) return; // React's StrictMode-style double effects
      gate.park({
        runId,
        calls: [
          {
            toolCallId: "c1",
            tool: "bash",
            args: { command: `curl -X POST https://example.com/hook -d '<img src=x onerror="window.pwned=1">'` },
          },
        ],
        history: JSON.stringify({ framework, step: 1 }),
      });
      window.parkedAt = performance.now();
    },
  };
}
