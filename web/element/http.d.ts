// toolgate/http: a run source over a toolgate server's HTTP API.
import type { ResumeDecision, Resumed } from "./index.js";
import type { ToolgateRunSource } from "./element.js";

/** A request to the server that failed. `code` is the server's error code
 * (`already_resumed`, `expired`, `anchor_mismatch`, `stale`, `unauthorized`, …) or
 * `timeout` / `unreachable` / `bad_answer`; `status` is the HTTP status (0: none came
 * back); `decidedBy` names who decided first (`already_resumed`). */
export declare class ToolgateHttpError extends Error {
  readonly code: string;
  readonly status: number;
  readonly decidedBy?: string;
}

export interface HttpRunSourceOptions {
  /** The server's base URL (`https://agents.example.com`). */
  url: string | URL;
  /** A bearer token the server knows (its owner's runs are the ones shown). */
  token: string;
  /** Each request is aborted after this long (default 10,000 ms). */
  timeoutMs?: number;
  /** The fetch to use (default `globalThis.fetch`). */
  fetch?: typeof fetch;
}

export interface HttpRunSource extends ToolgateRunSource {
  /** The base URL requests go to (ends with `/`). */
  readonly url: string;
  /** `GET /v1/runs` (conditional): the answer's JSON text; on a 304, the text of the
   * answer its ETag stands for. */
  runs(): Promise<string>;
  /** `POST /v1/runs/{runId}/decisions`: the server's answer. */
  resume(runId: string, decisions: ResumeDecision[]): Promise<Resumed>;
}

/** A run source over the toolgate server at `url`; throws a `TypeError` with
 * `code: "bad_input"` for a URL that does not parse, an empty token or a bad timeout. */
export declare function httpRunSource(options: HttpRunSourceOptions): HttpRunSource;

/** The server's runs for an agent's token, in the shape the SDK adapters take as `runs`
 * (`toolgateAgents({ runs })`, `toolgateApprovals({ runs })`): the same server the panel
 * decides on. */
export interface HttpRuns {
  /** The base URL requests go to (ends with `/`). */
  readonly url: string;
  /** `POST /v1/runs/{runId}/park` (a token with the agent role). */
  park(request: { runId: string; calls: { toolCallId: string; tool: string; args: unknown }[]; history: string; sessionId?: string; ttlMs?: number }): Promise<import("./index.js").Parked>;
  /** `GET /v1/runs/{runId}`: the run, or null when this owner has none of that id. */
  run(runId: string): Promise<import("./index.js").Run | null>;
  /** No decisions: `POST /v1/runs/{runId}/resume`, what a person decided in the panel
   * (or what expiry left) with the history, once (`already_resumed` after). With
   * decisions: `POST /v1/runs/{runId}/decisions` (a token with the approver role). */
  resume(runId: string, request?: { decisions?: ResumeDecision[] }): Promise<Resumed>;
}

/** The server at `url` as an adapter's `runs`; throws a `TypeError` with
 * `code: "bad_input"` for a URL that does not parse, an empty token or a bad timeout. */
export declare function httpRuns(options: HttpRunSourceOptions): HttpRuns;
