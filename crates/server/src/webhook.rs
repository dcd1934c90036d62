//! The notification channel: when a run starts waiting, a Slack-compatible incoming
//! webhook message (`{"text": …}`) is POSTed to the configured URL. It says who waits,
//! and for each call its tool, what it touches without its arguments (the programs of a
//! shell command, a file tool's path, a URL's scheme and host: core's
//! [`redact::summary`]), the rule and the reason, and a link to the panel. The call's
//! arguments are never sent unless `webhook_args = "redacted"` says so, and then
//! redacted by core's rules ([`redact::args`]: file contents by size, secret variables,
//! options and headers, URL credentials and token shapes masked).
//!
//! Off the request path and bounded: messages go through a queue of [`QUEUE`] to one
//! sender thread; runs that find the queue full are counted and announced in one
//! message once the sender catches up ("N more runs started waiting"); each message is tried
//! [`ATTEMPTS`] times, [`TIMEOUT`] each, 1 s then 2 s apart. A failing webhook is
//! logged by its host (never the URL, which is a secret, nor its credentials) and never
//! approves or blocks anything.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, SyncSender, TrySendError};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use toolgate_core::{redact, Run};

/// Attempts per message.
pub const ATTEMPTS: u32 = 3;
/// The bound of one attempt.
pub const TIMEOUT: Duration = Duration::from_secs(5);
/// Messages waiting to be sent, at most.
pub const QUEUE: usize = 256;

/// What a message carries of a call's arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Args {
    /// None: the summary only (the default).
    #[default]
    None,
    /// The arguments, redacted.
    Redacted,
}

/// Where messages go.
#[derive(Clone)]
pub struct Webhook {
    /// The panel's address, for the link (none: no link).
    public_url: Option<String>,
    args: Args,
    queue: Option<SyncSender<Value>>,
    dropped: Arc<AtomicU64>,
    host: String,
}

/// The sending side: the URL and the HTTP client, on the sender thread.
struct Sender {
    url: String,
    host: String,
    agent: ureq::Agent,
}

impl Webhook {
    /// A webhook to `url`, with its sender thread (when the thread cannot start, every
    /// message is dropped and logged: nothing waits on a webhook).
    pub fn new(url: String, public_url: Option<String>, args: Args) -> Webhook {
        let host = host_of(&url);
        let config = ureq::Agent::config_builder()
            .timeout_global(Some(TIMEOUT))
            .http_status_as_error(true)
            .max_redirects(0)
            .build();
        let sender = Sender {
            url,
            host: host.clone(),
            agent: ureq::Agent::new_with_config(config),
        };
        let (tx, rx) = sync_channel::<Value>(QUEUE);
        let dropped: Arc<AtomicU64> = Arc::default();
        let overflow = dropped.clone();
        let base = public_url.clone();
        let started = std::thread::Builder::new()
            .name("toolgate-webhook".to_string())
            .spawn(move || {
                for message in rx {
                    sender.deliver(&message);
                    // Runs that found the queue full are told in one message, not lost.
                    let missed = overflow.swap(0, Ordering::Relaxed);
                    if missed > 0 {
                        sender.deliver(&overflowed(missed, base.as_deref()));
                    }
                }
            });
        let queue = match started {
            Ok(_) => Some(tx),
            Err(e) => {
                eprintln!("toolgate-server: the webhook sender cannot start ({e}); no messages will be sent");
                None
            }
        };
        Webhook {
            public_url,
            args,
            queue,
            dropped,
            host,
        }
    }

    /// The message for a run that starts waiting.
    pub fn message(&self, run: &Run) -> Value {
        let calls = run
            .marker
            .as_ref()
            .map(|m| m.calls.as_slice())
            .unwrap_or_default();
        let asked_by = run
            .parked_by
            .as_deref()
            .map(|by| format!(", asked by `{}`,", escape(by)))
            .unwrap_or_default();
        let mut text = format!(
            "toolgate: run `{}` of {}{asked_by} waits for permission ({} call{}).",
            escape(&run.run_id),
            escape(&run.owner),
            calls.len(),
            if calls.len() == 1 { "" } else { "s" }
        );
        for c in calls.iter().take(5) {
            text.push_str(&format!(
                "\n• `{}` ({}): rule `{}`\n  {}",
                escape(&c.tool),
                escape(&clip(&redact::summary(&c.args), 200)),
                escape(&c.rule),
                escape(&clip(&redact::text(&c.reason), 300))
            ));
            if self.args == Args::Redacted {
                let shown = redact::args(&c.args);
                let what = shown
                    .get("command")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .unwrap_or_else(|| shown.to_string());
                text.push_str(&format!("\n  `{}`", escape(&clip(&what, 300))));
            }
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

    /// Queues the message for a run that starts waiting: returns at once.
    pub fn notify(&self, run: &Run) {
        let message = self.message(run);
        let Some(queue) = &self.queue else {
            return;
        };
        match queue.try_send(message) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                // Counted; the sender says how many in one message when it catches up.
                if self.dropped.fetch_add(1, Ordering::Relaxed) == 0 {
                    eprintln!(
                        "toolgate-server: the webhook queue to {} is full ({QUEUE}); further runs are counted and announced in one message",
                        self.host
                    );
                }
            }
            Err(TrySendError::Disconnected(_)) => {
                eprintln!(
                    "toolgate-server: the webhook sender to {} has stopped; message dropped",
                    self.host
                );
            }
        }
    }

    /// Runs not yet announced because the queue was full.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

/// The message for `n` runs that started waiting while the queue was full.
fn overflowed(n: u64, public_url: Option<&str>) -> Value {
    let mut text = format!(
        "toolgate: {n} more run{} started waiting for permission while earlier messages were being sent.",
        if n == 1 { "" } else { "s" }
    );
    if let Some(base) = public_url {
        text.push_str(&format!(
            "\n<{}/|Open the approval panel>",
            escape(base.trim_end_matches('/'))
        ));
    }
    json!({ "text": text })
}

impl Sender {
    /// Sends `message`, logging a failure (by host).
    fn deliver(&self, message: &Value) {
        if let Err(e) = self.send(message) {
            eprintln!(
                "toolgate-server: the webhook to {} failed after {ATTEMPTS} attempts: {e}",
                self.host
            );
        }
    }

    /// Sends `message`, retrying; blocking. `Err` names the last failure.
    fn send(&self, message: &Value) -> Result<(), String> {
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
                // ureq's errors can quote the URL: say only what kind of failure.
                Err(e) => last = redact::text(&e.to_string().replace(&self.url, &self.host)),
            }
            if attempt < ATTEMPTS {
                std::thread::sleep(Duration::from_secs(u64::from(attempt)));
            }
        }
        Err(last)
    }
}

/// A URL's host and port, without credentials, path or query.
pub fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    authority.rsplit('@').next().unwrap_or("").to_string()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_past_a_full_queue_are_announced_together() {
        let m = overflowed(42, Some("https://panel.example/"));
        let text = m["text"].as_str().unwrap_or("");
        assert!(
            text.starts_with("toolgate: 42 more runs started waiting"),
            "{text}"
        );
        assert!(
            text.contains("<https://panel.example/|Open the approval panel>"),
            "{text}"
        );
        let one = overflowed(1, None);
        assert!(one["text"]
            .as_str()
            .is_some_and(|t| t.contains("1 more run started")));
    }

    #[test]
    fn hosts_carry_no_credentials() {
        assert_eq!(
            host_of("https://u:p@hooks.example.com:8443/x?y"),
            "hooks.example.com:8443"
        );
        assert_eq!(host_of("http://hooks.example.com"), "hooks.example.com");
    }
}
