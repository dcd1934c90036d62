// What the SDK adapters share (not a subpath of its own): errors with a `code`, the
// canonical form two calls' arguments are compared in, the policy's verdict with every
// failure turned into `ask`, and the check that `runs` can park and resume.

/** An Error named for its adapter, with a machine-readable `code`. */
export function failure(adapter, code, message) {
  const e = new Error(`toolgate/${adapter}: ${message}`);
  e.code = code;
  return e;
}

/** JSON with sorted keys: two values are the same arguments when these are equal. */
export function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`;
  }
  return JSON.stringify(v);
}

/** The toolgate call for an SDK tool's input: `tools[name](input)` → {tool, args}, or the
 * tool's own name with its input. */
export function callMapper(tools = {}) {
  return (name, input) => {
    const map = Object.hasOwn(tools, name) ? tools[name] : undefined;
    if (typeof map === "function") {
      const c = map(input);
      return { tool: String(c.tool), args: c.args ?? {} };
    }
    return { tool: String(name), args: input ?? {} };
  };
}

/** The policy's verdict for `call` (a value, or a function making it); a call that cannot
 * be made or classified is `ask` (with `error: true`), never auto. A `sandbox` verdict
 * (from a policy that classifies for a host running calls in `toolgate sandbox`, such as
 * a toolgate server's `/v1/classify` with `[sandbox] agents = true`) is `ask` here: the
 * adapters run the SDK's own tool, not the sandboxed command. */
export function verdictFor(policy, call) {
  try {
    const v = policy.classify(typeof call === "function" ? call() : call);
    if (v && (v.tier === "auto" || v.tier === "ask" || v.tier === "deny")) return v;
    if (v && v.tier === "sandbox") {
      return { ...v, tier: "ask", reason: `${v.reason} (asked: this host does not run calls in toolgate's sandbox)` };
    }
    return { tier: "ask", rule: "adapter.error", reason: "the policy returned no verdict", error: true };
  } catch (e) {
    return { tier: "ask", rule: "adapter.error", reason: `the call could not be classified: ${e?.message ?? e}`, error: true };
  }
}

/** The tool result of a policy deny. */
export const refusal = (v) => `Refused by policy (${v.rule}): ${v.reason}`;

/** Throws unless `policy` classifies and `runs` parks, reads and resumes runs. */
export function checkSetup(adapter, policy, runs, { needRuns = true } = {}) {
  if (!policy || typeof policy.classify !== "function") throw failure(adapter, "bad_input", "policy must be a toolgate Policy");
  if (!needRuns) return;
  if (!runs || typeof runs.park !== "function" || typeof runs.resume !== "function" || typeof runs.run !== "function") {
    throw failure(adapter, "bad_input", "runs must be a toolgate Gate or httpRuns(…): park, run and resume");
  }
}
