// toolgate/acp: toolgate's approvals in the Agent Client Protocol's terms
// (`session/request_permission`), both ways. Pure functions, no import of the SDK.
//
// Agent side (the agent asks its client):
//   permissionRequest(sessionId, call)     a pending toolgate call (a marker's call, or a
//                                          pending request) → the request's params
//   decisionFromResponse(request, answer)  the client's answer → a toolgate decision
//                                          for gate.resume, or `cancelled`
// Client side (an editor answers an agent, toolgate deciding or holding it):
//   toolCallFromRequest(request)           the agent's request → a toolgate call
//   responseFromOutcome(request, outcome)  toolgate's outcome → the answer to send
//
// Never an approval by accident: an option id this module did not offer, an answer of
// another shape, a decision without its option: each is an Error with `code:
// "bad_input"`; an expired or cancelled request is never an allow option.

const PREFIX = "toolgate.";

function badInput(message) {
  const e = new TypeError(`toolgate/acp: ${message}`);
  e.code = "bad_input";
  return e;
}

function isObject(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The options for a pending call: allow once, "always allow" once per scope the
 * policy offers (none offered: no allow_always option), deny. */
export function permissionOptions(scopes = []) {
  if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === "string" && s !== "")) {
    throw badInput("scopes must be an array of rule strings");
  }
  return [
    { optionId: `${PREFIX}allow_once`, name: "Allow once", kind: "allow_once" },
    ...scopes.map((scope, i) => ({
      optionId: `${PREFIX}allow_always.${i}`,
      name: `Always allow ${scope}`,
      kind: "allow_always",
      _meta: { toolgate: { scope } },
    })),
    { optionId: `${PREFIX}reject_once`, name: "Deny", kind: "reject_once" },
  ];
}

/** The params of `session/request_permission` for a pending toolgate call
 * (`{toolCallId, tool, args, anchor, rule?, reason?, scopes?}`: a parked marker's call, or
 * a pending request). The call's anchor travels in `_meta.toolgate` so the answer binds
 * to these arguments. */
export function permissionRequest(sessionId, call, { scopes, title, kind } = {}) {
  if (typeof sessionId !== "string" || sessionId === "") throw badInput("sessionId must be a non-empty string");
  if (!isObject(call) || typeof call.toolCallId !== "string" || typeof call.tool !== "string" || typeof call.anchor !== "string") {
    throw badInput("call must have toolCallId, tool and anchor (a parked call or a pending request)");
  }
  const command = isObject(call.args) && typeof call.args.command === "string" ? call.args.command : undefined;
  return {
    sessionId,
    toolCall: {
      toolCallId: call.toolCallId,
      title: title ?? (command !== undefined ? `${call.tool}: ${command}` : call.tool),
      ...(kind ? { kind } : {}),
      status: "pending",
      rawInput: call.args,
    },
    options: permissionOptions(scopes ?? call.scopes ?? []),
    _meta: {
      toolgate: {
        anchor: call.anchor,
        ...(call.rule ? { rule: call.rule } : {}),
        ...(call.reason ? { reason: call.reason } : {}),
      },
    },
  };
}

/** The client's answer to `request` (made by `permissionRequest`) as toolgate takes it:
 * `{outcome: "decided", decision}` (`decision` is one entry of `gate.resume`'s
 * `decisions`: `{toolCallId, anchor, decision: "allow" | "deny", scope?, message?}`) or
 * `{outcome: "cancelled"}` (the turn was cancelled: resume nothing, end the run) or
 * `{outcome: "expired"}` (a toolgate client's request expired unanswered: not approved,
 * and not a person's "no"). A denial's message is `message`, else the one a toolgate
 * client put in `_meta.toolgate.message`. */
export function decisionFromResponse(request, response, { message } = {}) {
  const anchor = request?._meta?.toolgate?.anchor;
  const toolCallId = request?.toolCall?.toolCallId;
  if (typeof anchor !== "string" || typeof toolCallId !== "string" || !Array.isArray(request.options)) {
    throw badInput("request must be what permissionRequest returned");
  }
  const outcome = response?.outcome;
  if (!isObject(outcome)) throw badInput("the answer has no outcome");
  if (outcome.outcome === "cancelled") return { outcome: "cancelled" };
  if (outcome.outcome !== "selected" || typeof outcome.optionId !== "string") {
    throw badInput(`the answer's outcome must be "selected" with an optionId, or "cancelled"`);
  }
  const option = request.options.find((o) => o.optionId === outcome.optionId);
  if (!option) throw badInput(`option ${JSON.stringify(outcome.optionId)} was not offered`);
  const base = { toolCallId, anchor };
  switch (option.kind) {
    case "allow_once":
      return { outcome: "decided", decision: { ...base, decision: "allow" } };
    case "allow_always": {
      const scope = option._meta?.toolgate?.scope;
      if (typeof scope !== "string") throw badInput(`option ${option.optionId} carries no scope`);
      return { outcome: "decided", decision: { ...base, decision: "allow", scope } };
    }
    case "reject_once":
    case "reject_always": {
      // A toolgate client says why in `_meta.toolgate` (expired: nobody answered).
      const meta = isObject(response._meta?.toolgate) ? response._meta.toolgate : {};
      if (meta.outcome === "expired") return { outcome: "expired" };
      const why = message ?? (typeof meta.message === "string" && meta.message !== "" ? meta.message : undefined);
      return { outcome: "decided", decision: { ...base, decision: "deny", ...(why ? { message: why } : {}) } };
    }
    default:
      throw badInput(`option kind ${JSON.stringify(option.kind)} is not one of ACP's`);
  }
}

/** The agent's `session/request_permission` params as a call toolgate classifies:
 * `{toolCallId, tool, args}`. `kind: "execute"` with a `command` string in `rawInput` is
 * a `bash` call; `read` / `edit` with a `path` are `read` / `edit`; `fetch` with a `url`
 * is `webfetch`; anything else is `acp.<kind>` (toolgate's default applies: ask).
 * `toTool(request)` overrides it. */
export function toolCallFromRequest(request, { toTool } = {}) {
  const toolCall = request?.toolCall;
  if (!isObject(toolCall) || typeof toolCall.toolCallId !== "string") throw badInput("request.toolCall.toolCallId is required");
  if (toTool) {
    const mapped = toTool(request);
    if (!isObject(mapped) || typeof mapped.tool !== "string") throw badInput("toTool must return {tool, args}");
    return { toolCallId: toolCall.toolCallId, tool: mapped.tool, args: mapped.args ?? {} };
  }
  const input = isObject(toolCall.rawInput) ? toolCall.rawInput : {};
  const kind = toolCall.kind ?? "other";
  const has = (k) => typeof input[k] === "string";
  let tool;
  if (kind === "execute" && has("command")) tool = "bash";
  else if (kind === "read" && has("path")) tool = "read";
  else if ((kind === "edit" || kind === "delete" || kind === "move") && has("path")) tool = "edit";
  else if (kind === "fetch" && has("url")) tool = "webfetch";
  else tool = `acp.${kind}`;
  return { toolCallId: toolCall.toolCallId, tool, args: input };
}

/** toolgate's outcome for the agent's request as the answer to send:
 * - `{outcome: "approved", scope?}` selects `allow_always` only when the request offers
 *   that option for exactly the granted scope (an option `permissionOptions` made, its
 *   `_meta.toolgate.scope`): an agent's own `allow_always` may reach further than the
 *   person granted, so then it is `allow_once` (toolgate keeps the grant itself); with
 *   no such option and no `allow_once` it is an error, never a wider allow;
 * - `{outcome: "denied", message?}` selects `reject_once` (else `reject_always`);
 * - `{outcome: "expired"}` selects a reject option too (nobody answered in time: not
 *   approved), saying so in `_meta.toolgate`; without one it is `cancelled`;
 * - `{outcome: "cancelled"}` is ACP's `cancelled` (what a `session/cancel` requires).
 * Anything else is an error, never an allow. The answer's `_meta.toolgate` carries the
 * outcome, and the message of a denial. */
export function responseFromOutcome(request, result) {
  const options = request?.options;
  if (!Array.isArray(options)) throw badInput("request.options is required");
  const pick = (...kinds) => {
    for (const k of kinds) {
      const o = options.find((x) => x?.kind === k && typeof x.optionId === "string");
      if (o) return o;
    }
    return undefined;
  };
  const selected = (option, meta) => ({ outcome: { outcome: "selected", optionId: option.optionId }, _meta: { toolgate: meta } });
  switch (result?.outcome) {
    case "approved": {
      const exact = result.scope
        ? options.find((x) => x?.kind === "allow_always" && typeof x.optionId === "string" && x._meta?.toolgate?.scope === result.scope)
        : undefined;
      const option = exact ?? pick("allow_once");
      if (!option) throw badInput("the request offers no allow option that is no wider than this approval (allow_once, or allow_always for exactly the scope granted)");
      return selected(option, { outcome: "approved", ...(result.scope ? { scope: result.scope } : {}) });
    }
    case "denied": {
      const option = pick("reject_once", "reject_always");
      if (!option) return { outcome: { outcome: "cancelled" }, _meta: { toolgate: { outcome: "denied" } } };
      return selected(option, { outcome: "denied", ...(result.message ? { message: result.message } : {}) });
    }
    case "expired": {
      const option = pick("reject_once", "reject_always");
      const meta = { outcome: "expired", message: "Not approved: nobody answered before the request expired." };
      return option ? selected(option, meta) : { outcome: { outcome: "cancelled" }, _meta: { toolgate: meta } };
    }
    case "cancelled":
      return { outcome: { outcome: "cancelled" }, _meta: { toolgate: { outcome: "cancelled" } } };
    default:
      throw badInput(`outcome ${JSON.stringify(result?.outcome)}: expected approved, denied, expired or cancelled`);
  }
}
