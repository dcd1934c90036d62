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
