//! The notification channel: when a run starts waiting, a Slack-compatible incoming
//! webhook message (`{"text": …}`: who waits, the tool and its command, the reason, a
//! link to the panel) is POSTed to the configured URL. Bounded (5 s per attempt, 3
//! attempts, 1 s then 2 s apart) and off the request path: the park has already been
//! answered, a failing webhook is logged (its host, never the URL, which is a secret)
//! and never approves or blocks anything.

use std::time::Duration;

use serde_json::{json, Value};
use toolgate_core::Run;

/// Attempts per message.
pub const ATTEMPTS: u32 = 3;
/// The bound of one attempt.
pub const TIMEOUT: Duration = Duration::from_secs(5);

/// Where messages go.
#[derive(Clone)]
pub struct Webhook {
    url: String,
    /// The panel's address, for the link (none: no link).
    public_url: Option<String>,
    agent: ureq::Agent,
}

impl Webhook {
    pub fn new(url: String, public_url: Option<String>) -> Webhook {
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(TIMEOUT))
            .http_status_as_error(true)
            .max_redirects(0)
            .build();
        Webhook {
            url,
            public_url,
            agent: ureq::Agent::new_with_config(config),
        }
    }

    /// The message for a run that starts waiting.
    pub fn message(&self, run: &Run) -> Value {
        let calls = run
            .marker
            .as_ref()
            .map(|m| m.calls.as_slice())
            .unwrap_or_default();
        let mut text = format!(
            "toolgate: run `{}` of {} waits for permission ({} call{}).",
            escape(&run.run_id),
            escape(&run.owner),
            calls.len(),
            if calls.len() == 1 { "" } else { "s" }
        );
        for c in calls.iter().take(5) {
            let what = c
                .args
                .get("command")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| c.args.to_string());
            text.push_str(&format!(
                "\n• `{}`: `{}`\n  {}",
                escape(&c.tool),
                escape(&clip(&what, 300)),
                escape(&clip(&c.reason, 300))
            ));
        }
        if let Some(base) = &self.public_url {
            text.push_str(&format!(
                "\n<{}/#run={}|Open the approval panel>",
                base.trim_end_matches('/'),
                escape(&run.run_id)
            ));
        }
        json!({ "text": text })
    }

    /// Sends `message`, retrying; blocking (call it on a blocking thread). `Err` names
    /// the last failure.
    pub fn send(&self, message: &Value) -> Result<(), String> {
        let body = message.to_string();
        let mut last = String::new();
        for attempt in 1..=ATTEMPTS {
            match self
                .agent
                .post(&self.url)
                .header("content-type", "application/json")
                .send(body.as_str())
            {
                Ok(_) => return Ok(()),
                Err(e) => last = e.to_string(),
            }
            if attempt < ATTEMPTS {
                std::thread::sleep(Duration::from_secs(u64::from(attempt)));
            }
        }
        Err(last)
    }

    /// Notifies in the background: returns at once.
    pub fn notify(&self, run: &Run) {
        let message = self.message(run);
        let hook = self.clone();
        tokio::task::spawn_blocking(move || {
            if let Err(e) = hook.send(&message) {
                eprintln!(
                    "toolgate-server: the webhook to {} failed after {ATTEMPTS} attempts: {e}",
                    hook.host()
                );
            }
        });
    }

    fn host(&self) -> &str {
        let rest = self
            .url
            .split_once("://")
            .map_or(self.url.as_str(), |(_, r)| r);
        rest.split(['/', '?']).next().unwrap_or("")
    }
}

/// Slack's escaping: `&`, `<` and `>` (so a command cannot mention `<!channel>` or
/// forge a link), and backticks (so it cannot leave its code span).
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('`', "'")
}

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max).collect();
    out.push('…');
    out
}
