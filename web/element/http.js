// toolgate/http: a run source over a toolgate server's HTTP API, for <toolgate-approval>
// (`el.source = httpRunSource({ url, token })`) or any code that polls runs.
//
//   import init from "toolgate/element";
//   import { httpRunSource } from "toolgate/http";
//   await init({ gate: false });              // the panel alone: the runs are the server's
//   el.source = httpRunSource({ url: "https://agents.example.com", token });
//
// runs()    GET /v1/runs with If-None-Match: resolves with the answer's JSON text (on a
//           304, the text of the answer the ETag stands for: the server sent no body).
// resume()  POST /v1/runs/{id}/decisions: resolves with the server's answer
//           ({runId, sessionId, results, history, revision}).
// httpRuns({ url, token }) is the same server as the SDK adapters' `runs` (an agent's
// token): park() POST /v1/runs/{id}/park, run() GET /v1/runs/{id} (null when there is
// none), resume(id, { decisions: [] }) POST /v1/runs/{id}/resume, which takes what a
// person decided in the panel (or what expiry left), with the history, once.
// Every request carries the bearer token, is bounded by `timeoutMs` (aborted after it)
// and bypasses the HTTP cache. A failure rejects with a ToolgateHttpError whose `code`
// is the server's (`already_resumed` with `decidedBy`, `expired`, `anchor_mismatch`,
// `unauthorized`, …) or `timeout` / `unreachable` / `bad_answer`: the panel shows it and
// nothing is decided.

/** A request to the server that failed: `code`, `status` (0 when none came back),
 * `decidedBy` for `already_resumed`. */
export class ToolgateHttpError extends Error {
  constructor(message, { code, status = 0, decidedBy } = {}) {
    super(message);
    this.name = "ToolgateHttpError";
    this.code = code;
    this.status = status;
    if (decidedBy !== undefined) this.decidedBy = decidedBy;
  }
}

const DEFAULT_TIMEOUT_MS = 10_000;

function badInput(who, message) {
  const e = new TypeError(`${who}: ${message}`);
  e.code = "bad_input";
  return e;
}

/** The requests of either client: bearer token, deadline, errors as ToolgateHttpError. */
function client(who, { url, token, timeoutMs = DEFAULT_TIMEOUT_MS, fetch: fetchFn } = {}) {
  let base;
  try {
    base = new URL(url);
  } catch {
    throw badInput(who, `url must be an absolute URL (got ${JSON.stringify(url)})`);
  }
  if (!base.pathname.endsWith("/")) base.pathname += "/";
  if (typeof token !== "string" || token === "" || /[\r\n]/.test(token)) {
    throw badInput(who, "token must be a non-empty string (the server's bearer token)");
  }
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw badInput(who, "timeoutMs must be a positive number of milliseconds");
  }
  const doFetch = fetchFn ?? globalThis.fetch.bind(globalThis);
  async function request(method, path, { body, headers = {} } = {}) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    let res;
    try {
      res = await doFetch(new URL(path, base), {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: "application/json",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...headers,
        },
        body,
        cache: "no-store",
        credentials: "omit",
        signal: controller.signal,
      });
      if (res.status === 304) return { res, text: "" };
      // The body is read under the same deadline.
      const text = await res.text();
      return { res, text };
    } catch (e) {
      if (controller.signal.aborted) {
        throw new ToolgateHttpError(`The server did not answer within ${timeoutMs} ms.`, { code: "timeout" });
      }
      throw new ToolgateHttpError(`The server could not be reached (${e?.message ?? e}).`, { code: "unreachable" });
    } finally {
      clearTimeout(timer);
    }
  }

  function failure(res, text) {
    let error;
    try {
      error = JSON.parse(text)?.error;
    } catch {
      error = undefined;
    }
    if (res.status === 401) {
      return new ToolgateHttpError("The server did not accept this token: sign in again.", {
        code: error?.code ?? "unauthorized",
        status: 401,
      });
    }
    if (error && typeof error.code === "string") {
      return new ToolgateHttpError(String(error.message ?? error.code), {
        code: error.code,
        status: res.status,
        decidedBy: typeof error.decidedBy === "string" ? error.decidedBy : undefined,
      });
    }
    return new ToolgateHttpError(`The server answered HTTP ${res.status}.`, {
      code: "bad_answer",
      status: res.status,
    });
  }

  /** The answer's JSON, or the failure it is. */
  async function json(method, path, body) {
    const { res, text } = await request(method, path, body === undefined ? {} : { body: JSON.stringify(body) });
    if (!res.ok) throw failure(res, text);
    try {
      return JSON.parse(text);
    } catch {
      throw new ToolgateHttpError("The server's answer was not JSON.", { code: "bad_answer", status: res.status });
    }
  }

  return { base, request, failure, json };
}

const runPath = (who, runId, tail = "") => {
  if (typeof runId !== "string" || runId === "") throw badInput(who, "runId must be a non-empty string");
  return `v1/runs/${encodeURIComponent(runId)}${tail}`;
};

/** A run source over the toolgate server at `url` for the owner `token` belongs to. */
export function httpRunSource(options) {
  const { base, request, failure, json } = client("httpRunSource", options);
  // The last 200 answer and its ETag: a 304 stands for it.
  let etag = null;
  let lastText = null;
  // The revision each run was listed at: a decision says which prompt it was made on,
  // so one for a prompt the run has since moved on from is refused (409 stale).
  let shown = new Map();
  return {
    url: base.href,

    /** `{runs}` as JSON text (a 304 is answered with the text it stands for). */
    async runs() {
      const { res, text } = await request("GET", "v1/runs", etag ? { headers: { "if-none-match": etag } } : {});
      if (res.status === 304 && lastText !== null) return lastText;
      if (!res.ok) throw failure(res, text);
      etag = res.headers.get("etag");
      lastText = text;
      try {
        const listed = JSON.parse(text)?.runs;
        if (Array.isArray(listed)) {
          shown = new Map(listed.filter((r) => typeof r?.runId === "string").map((r) => [r.runId, r.revision]));
        }
      } catch {
        // The element reports text that is not JSON; nothing to remember.
      }
      return text;
    },

    /** Decides `runId`'s pending calls: `[{toolCallId, anchor, decision, scope?, message?}]`,
     * for the revision the run was last listed at. */
    async resume(runId, decisions) {
      const revision = shown.get(runId);
      const body = Number.isSafeInteger(revision) ? { revision, decisions } : { decisions };
      return json("POST", runPath("httpRunSource", runId, "/decisions"), body);
    },
  };
}

/** The server's runs for an agent's token, in the shape the SDK adapters take (a Gate's
 * park, run and resume): resume with no decisions takes what was decided in the panel. */
export function httpRuns(options) {
  const { base, request, failure, json } = client("httpRuns", options);
  return {
    url: base.href,

    /** `POST /v1/runs/{runId}/park`: `{run, stopReason: "paused"}`. */
    async park({ runId, ...rest } = {}) {
      return json("POST", runPath("httpRuns", runId, "/park"), rest);
    },

    /** `GET /v1/runs/{runId}`: the run, or null when the server has none of this owner. */
    async run(runId) {
      const { res, text } = await request("GET", runPath("httpRuns", runId));
      if (res.status === 404) return null;
      if (!res.ok) throw failure(res, text);
      try {
        return JSON.parse(text);
      } catch {
        throw new ToolgateHttpError("The server's answer was not JSON.", { code: "bad_answer", status: res.status });
      }
    },

    /** With decisions: `POST /v1/runs/{runId}/decisions` (a token that may decide). With
     * none: `POST /v1/runs/{runId}/resume`, what was decided (or expired), once. */
    async resume(runId, { decisions = [] } = {}) {
      if (decisions.length === 0) return json("POST", runPath("httpRuns", runId, "/resume"));
      return json("POST", runPath("httpRuns", runId, "/decisions"), { decisions });
    },
  };
}
