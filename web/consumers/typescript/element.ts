// A consumer of toolgate/element: the element, its event and the Gate it takes, typed.
import init, {
  Policy, Gate, TAG, DECISION_EVENT, defineToolgateApproval,
  type ToolgateApprovalElement, type ToolgateDecisionEvent, type Resumed,
} from "toolgate/element";

export async function mount(owner: string): Promise<ToolgateApprovalElement> {
  await init();
  const gate: Gate = new Gate(Policy.defaults({ workspace: "/w", home: "/h" }), { sessionId: "s", owner });
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
