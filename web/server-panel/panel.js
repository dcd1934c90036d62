// The panel a toolgate server serves at `/`: sign in with a token (kept in this tab's
// sessionStorage), then <toolgate-approval> shows the token owner's runs waiting for
// permission, polled from this server (toolgate/http), and decides them here.
import init from "./element.js";
import { httpRunSource } from "./http.js";

const KEY = "toolgate.server.token";
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
}

approval.addEventListener("toolgate-decision", (e) => {
  const { runId, results } = e.detail;
  const words = results.map((r) => (r.outcome === "approved" ? "approved" : "denied")).join(", ");
  $("last").textContent = `Run ${runId}: ${words}. The agent goes on.`;
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

await init();
const saved = storage()?.getItem(KEY);
if (saved) signIn(saved);
else showSignIn();
