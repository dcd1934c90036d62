// A consumer of toolgate/element: the element, its event and the Gate it takes, typed.
import init, {
  Policy, Gate, TAG, DECISION_EVENT, defineToolgateApproval, loadPolicyReader,
  type ToolgateApprovalElement, type ToolgateDecisionEvent, type Resumed,
} from "toolgate/element";

export async function mount(owner: string): Promise<ToolgateApprovalElement> {
  await init();
  await loadPolicyReader();
  const gate: Gate = new Gate(Policy.fromToml('workspace = "/w"\n'), { sessionId: "s", owner });
  defineToolgateApproval();
  const el: ToolgateApprovalElement = document.createElement("toolgate-approval");
  el.gate = gate;
  el.addEventListener("toolgate-decision", (e: ToolgateDecisionEvent) => {
    const resumed: Resumed = e.detail;
    console.log(resumed.runId, resumed.results.length);
  });
  const tag: "toolgate-approval" = TAG;
  const event: "toolgate-decision" = DECISION_EVENT;
  console.log(tag, event);
  return el;
}

// toolgate/http: the element over a toolgate server's runs.
import { httpRunSource, ToolgateHttpError, type HttpRunSource } from "toolgate/http";
import type { ToolgateRunSource } from "toolgate/element";

export function mountServer(el: ToolgateApprovalElement, token: string): HttpRunSource {
  const source: HttpRunSource = httpRunSource({ url: "https://agents.example.com", token, timeoutMs: 5_000 });
  const generic: ToolgateRunSource = source;
  el.source = generic;
  el.source = null;
  el.source = source;
  source.runs().catch((e: unknown) => {
    if (e instanceof ToolgateHttpError) console.log(e.code, e.status, e.decidedBy ?? "");
  });
  return source;
}

// toolgate/tauri: the element over tauri-plugin-toolgate's runs, and the plugin's calls.
import {
  tauriRunSource, tauriRuns, check, respond, pending, ToolgateTauriError, CHANGED_EVENT,
  type TauriRunSource, type TauriPendingRequest,
} from "toolgate/tauri";
import type { toolgateApprovals } from "toolgate/ai-sdk";

/** The plugin's runs are what the AI SDK adapter takes as `runs`. */
export const adapterRuns: Parameters<typeof toolgateApprovals>[0]["runs"] = tauriRuns();

export async function mountTauri(el: ToolgateApprovalElement): Promise<boolean> {
  const source: TauriRunSource = tauriRunSource();
  el.source = source;
  const event: "toolgate://changed" = CHANGED_EVENT;
  console.log(event, tauriRuns().resume.length);
  try {
    const outcome = await check({ tool: "bash", args: { command: "npm publish" } }, { timeoutMs: 60_000 });
    const first: TauriPendingRequest | undefined = (await pending())[0];
    if (first) await respond(first.id, { decision: "deny", anchor: first.anchor, message: "no" });
    return outcome.outcome === "approved";
  } catch (e) {
    if (e instanceof ToolgateTauriError) console.log(e.code);
    return false;
  }
}
