// The panel a toolgate server serves at `/`: sign in with a token (kept in this tab's
// sessionStorage), then <toolgate-approval> shows the token owner's runs waiting for
// permission, polled from this server (toolgate/http), and decides them here.
import init from "./element.js";
import { httpRunSource } from "./http.js";

const KEY = "toolgate.server.token";
const GRANTS_POLL_MS = 10_000;
let grantsTimer = null;
let signedIn = null; // the token while signed in
const $ = (id) => document.getElementById(id);
const approval = $("approval");
const form = $("sign-in");

function storage() {
  try {
    return window.sessionStorage;
  } catch {
    return null; // storage disabled: sign in again after a reload
  }
}

function showSignIn(message) {
  approval.source = null;
  clearInterval(grantsTimer);
  signedIn = null;
  $("grants").hidden = true;
  $("grant-list").replaceChildren();
  $("who").hidden = true;
  $("sign-out").hidden = true;
  form.hidden = false;
  $("sign-in-error").hidden = !message;
  $("sign-in-error").textContent = message ?? "";
  $("token").focus();
}

// Who the token is, or why not.
async function whoAmI(token) {
  const res = await fetch("/v1/me", {
    headers: { authorization: `Bearer ${token}` },
    cache: "no-store",
    signal: AbortSignal.timeout(10_000),
  });
  if (res.status === 401) throw new Error("This token was not accepted.");
  if (!res.ok) throw new Error(`The server answered HTTP ${res.status}.`);
  return res.json();
}

async function signIn(token) {
  let me;
  try {
    me = await whoAmI(token);
  } catch (e) {
    storage()?.removeItem(KEY);
    showSignIn(e.name === "TimeoutError" ? "The server did not answer." : e.message);
    return;
  }
  storage()?.setItem(KEY, token);
  form.hidden = true;
  $("who").hidden = false;
  $("who").textContent = `Signed in as ${me.name} (runs of ${me.owner})` +
    (me.roles.includes("approver") ? "" : ": this token may not decide");
  $("sign-out").hidden = false;
  approval.source = httpRunSource({ url: location.origin, token });
  clearInterval(grantsTimer);
  signedIn = token;
  if (me.roles.includes("approver")) {
    showGrants(token);
    grantsTimer = setInterval(() => document.hidden || showGrants(token), GRANTS_POLL_MS);
  }
}

// The owner's live grants, each with what it matches and a Revoke button (text only:
// nothing from the server is read as HTML).
async function showGrants(token) {
  let list;
  try {
    const res = await api("GET", "/v1/grants", token);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    list = (await res.json()).grants;
  } catch {
    return; // the next poll tries again; the list shown stays as it was
  }
  // Signed out (or in as someone else) while this answer was on its way: not shown.
  if (signedIn !== token) return;
  const ul = $("grant-list");
  ul.replaceChildren(...list.map((g) => grantItem(g, token)));
  $("grants").hidden = false;
  $("no-grants").hidden = list.length > 0;
}

function grantItem(g, token) {
  const li = document.createElement("li");
  li.dataset.testid = "grant";
  li.dataset.grantId = g.id;
  const rule = document.createElement("code");
  rule.textContent = g.rule;
  const left = Math.max(0, Math.round((g.expiresAt - Date.now()) / 60_000));
  const life = document.createElement("span");
  life.textContent = `session ${g.sessionId} · ${left < 120 ? `${left} min` : `${Math.round(left / 60)} h`} left` +
    (g.singleUse ? " · next call only" : "") + (g.by ? ` · by ${g.by}` : "");
  const revoke = document.createElement("button");
  revoke.type = "button";
  revoke.textContent = "Revoke";
  revoke.dataset.testid = "revoke-grant";
  revoke.addEventListener("click", async () => {
    revoke.disabled = true;
    const res = await api("DELETE", `/v1/grants/${encodeURIComponent(g.id)}`, token).catch(() => null);
    $("last").textContent = res?.ok ? `Revoked: ${g.rule} is asked again.` : "The grant could not be revoked; try again.";
    showGrants(token);
  });
  const what = document.createElement("span");
  what.className = "what";
  what.textContent = `Matches ${g.matches}`;
  li.append(rule, life, revoke, what);
  return li;
}

function api(method, path, token) {
  return fetch(path, {
    method,
    headers: { authorization: `Bearer ${token}` },
    cache: "no-store",
    signal: AbortSignal.timeout(10_000),
  });
}

approval.addEventListener("toolgate-decision", (e) => {
  const { runId, results } = e.detail;
  const words = results.map((r) => (r.outcome === "denied" || r.outcome === "expired" ? "denied" : r.outcome)).join(", ");
  $("last").textContent = `Run ${runId}: ${words}. The agent goes on.`;
  if (signedIn && results.some((r) => r.scope)) showGrants(signedIn);
});

form.addEventListener("submit", (e) => {
  e.preventDefault();
  const token = $("token").value.trim();
  $("token").value = "";
  if (token) signIn(token);
});

$("sign-out").addEventListener("click", () => {
  storage()?.removeItem(KEY);
  $("last").textContent = "";
  showSignIn();
});

await init({ gate: false }); // the panel alone: the runs come from the server
const saved = storage()?.getItem(KEY);
if (saved) signIn(saved);
else showSignIn();
