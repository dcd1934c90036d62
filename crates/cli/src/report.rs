//! `toolgate report FILE`: what the policy would have asked of an agent's log. For a file
//! of tool calls (JSON lines `{"tool":…,"args":…,"run":…}`; `run` groups the calls of
//! one agent run and may be absent) or a host's own session log (a Claude Code
//! transcript, a Codex rollout, a Gemini CLI chat: see [`crate::transcripts`]), the tier
//! shares, asks per run (session), the rules and programs that asked most, and the
//! commands asked most often.

use crate::bench::tier_index;
// An agent's command is untrusted text: shown as `explain` shows it, control
// characters escaped.
use crate::error::CliError;
use crate::explain::one_line;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::Path;
use toolgate_core::{Policy, Tier, Verdict};

/// Rows shown in each "most" table by default.
pub const TOP: usize = 15;

/// `toolgate report`'s options.
#[derive(Debug, Clone, clap::Args)]
pub struct ReportArgs {
    /// JSON lines of tool calls, an agent CLI's session log, or a directory of them
    #[arg(value_name = "FILE|SESSION_LOG|DIR")]
    pub file: std::path::PathBuf,
    /// Rows in each "most" table, 1..=10000
    #[arg(long, value_name = "N", default_value_t = TOP,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=10_000))]
    pub top: usize,
    #[command(flatten)]
    pub policy: crate::load::PolicyOpts,
    #[command(flatten)]
    pub fs: crate::load::FsFlags,
}

/// What a report counts.
#[derive(Debug, Default)]
pub struct Report {
    /// What the file was read as (`Claude Code transcript`, …).
    pub format: String,
    pub calls: usize,
    pub skipped: Vec<String>,
    /// auto, ask, deny.
    pub tiers: [usize; 3],
    /// Per run (in order of first appearance): calls and calls not `auto`.
    pub runs: Vec<(String, usize, usize)>,
    /// Deciding rule of each call that was not `auto`.
    pub rules: HashMap<String, usize>,
    /// Programs of the parts that asked or denied (once per call).
    pub programs: HashMap<String, usize>,
    /// Shell commands (or tool names) that were not `auto`.
    pub commands: HashMap<String, usize>,
    /// The same calls judged for a host that runs `sandbox` verdicts contained; `None`
    /// when the policy says `sandbox = "off"`.
    pub contained: Option<Contained>,
}

/// What a host that runs `sandbox` verdicts inside `toolgate sandbox` would have asked.
#[derive(Debug, Default)]
pub struct Contained {
    /// Calls answered `sandbox`.
    pub sandboxed: usize,
    /// Calls still `ask`, and `deny`.
    pub asks: usize,
    pub denies: usize,
    /// Per run (in the order of [`Report::runs`]): calls still asked or denied.
    pub run_asks: Vec<usize>,
    /// Deciding rule of each call still asked or denied.
    pub rules: HashMap<String, usize>,
}

impl Report {
    /// Classifies every call of `text` with `policy`; with `own_cwd`, a call whose
    /// log records its working directory is judged with that as the workspace.
    #[cfg(test)]
    pub fn of(policy: &Policy, text: &str, fs: bool, own_cwd: bool) -> Report {
        Report::from_found(policy, crate::transcripts::read(text), fs, own_cwd)
    }

    /// Classifies the calls found in one log or a directory of them.
    pub fn from_found(
        policy: &Policy,
        found: crate::transcripts::Found,
        fs: bool,
        own_cwd: bool,
    ) -> Report {
        let mut r = Report {
            format: found.format.to_string(),
            skipped: found.skipped,
            ..Report::default()
        };
        let mut run_index: HashMap<String, usize> = HashMap::new();
        let mut at: HashMap<String, Policy> = HashMap::new();
        let host = policy.clone().with_sandbox_host(true);
        let mut at_host: HashMap<String, Policy> = HashMap::new();
        if policy.sandbox_setting() {
            r.contained = Some(Contained::default());
        }
        for (call, run, cwd) in &found.calls {
            let command = call
                .args
                .get("command")
                .and_then(Value::as_str)
                .map(str::to_string);
            let p = match cwd.as_deref().filter(|c| own_cwd && c.starts_with('/')) {
                Some(c) => at
                    .entry(c.to_string())
                    .or_insert_with(|| policy.clone().with_workspace(c)),
                None => policy,
            };
            let v = toolgate_fs::classify(p, call, fs);
            r.add(run, &mut run_index, &call.tool, command, &v);
            let k = run_index.get(run.as_str()).copied().unwrap_or(0);
            if let Some(c) = r.contained.as_mut() {
                // Only an ask can become `sandbox`: the others are not judged twice.
                let w = if v.tier == Tier::Ask {
                    let hp = match cwd.as_deref().filter(|c| own_cwd && c.starts_with('/')) {
                        Some(d) => at_host
                            .entry(d.to_string())
                            .or_insert_with(|| host.clone().with_workspace(d)),
                        None => &host,
                    };
                    toolgate_fs::classify(hp, call, fs)
                } else {
                    v
                };
                c.add(k, &w);
            }
        }
        r
    }

    fn add(
        &mut self,
        run: &str,
        run_index: &mut HashMap<String, usize>,
        tool: &str,
        command: Option<String>,
        v: &Verdict,
    ) {
        self.calls += 1;
        self.tiers[tier_index(v.tier)] += 1;
        let k = *run_index.entry(run.to_string()).or_insert_with(|| {
            self.runs.push((run.to_string(), 0, 0));
            self.runs.len() - 1
        });
        self.runs[k].1 += 1;
        if v.tier == Tier::Auto {
            return;
        }
        self.runs[k].2 += 1;
        *self.rules.entry(v.rule.to_string()).or_default() += 1;
        let mut seen: Vec<String> = Vec::new();
        for p in v.parts.iter().filter(|p| p.tier != Tier::Auto) {
            let prog = program_of(&p.text);
            if !prog.is_empty() && !seen.contains(&prog) {
                seen.push(prog);
            }
        }
        for prog in seen {
            *self.programs.entry(prog).or_default() += 1;
        }
        let key = command.unwrap_or_else(|| format!("({tool} call)"));
        *self.commands.entry(key).or_default() += 1;
    }

    /// The report as text: totals, asks per run (without and with the sandbox), then
    /// the top `top` rules, programs and commands.
    pub fn render(&self, file: &Path, top: usize) -> String {
        let mut s = String::new();
        let pct = |n: usize| share(n, self.calls);
        let _ = writeln!(s, "file: {} ({})", file.display(), self.format);
        let _ = writeln!(
            s,
            "calls: {}, runs: {}, lines skipped: {}",
            self.calls,
            self.runs.len(),
            self.skipped.len()
        );
        for line in self.skipped.iter().take(5) {
            let _ = writeln!(s, "  skipped {line}");
        }
        let _ = writeln!(
            s,
            "tiers: auto {} ({:.1} %), ask {} ({:.1} %), deny {} ({:.1} %)",
            self.tiers[0],
            pct(self.tiers[0]),
            self.tiers[1],
            pct(self.tiers[1]),
            self.tiers[2],
            pct(self.tiers[2]),
        );
        let mut asks: Vec<usize> = self.runs.iter().map(|r| r.2).collect();
        let mut sizes: Vec<usize> = self.runs.iter().map(|r| r.1).collect();
        asks.sort_unstable();
        sizes.sort_unstable();
        let _ = writeln!(
            s,
            "asks per run (ask or deny): median {}, 90th percentile {}, max {} (calls per run: median {})",
            quantile(&asks, 0.5),
            quantile(&asks, 0.9),
            asks.last().copied().unwrap_or(0),
            quantile(&sizes, 0.5),
        );
        self.render_contained(&mut s, top);
        section(
            &mut s,
            "rules that asked most",
            &self.rules,
            top,
            self.calls,
        );
        section(
            &mut s,
            "programs that asked most (calls with an asking part running it)",
            &self.programs,
            top,
            self.calls,
        );
        section(
            &mut s,
            "commands asked most often",
            &self.commands,
            top,
            self.calls,
        );
        s
    }
}

impl Contained {
    fn add(&mut self, run: usize, v: &Verdict) {
        if self.run_asks.len() <= run {
            self.run_asks.resize(run + 1, 0);
        }
        match v.tier {
            Tier::Auto => return,
            Tier::Sandbox => {
                self.sandboxed += 1;
                return;
            }
            Tier::Ask => self.asks += 1,
            Tier::Deny => self.denies += 1,
        }
        if let Some(n) = self.run_asks.get_mut(run) {
            *n += 1;
        }
        *self.rules.entry(v.rule.to_string()).or_default() += 1;
    }
}

impl Report {
    /// The lines on what a host with `toolgate sandbox` would have asked.
    fn render_contained(&self, s: &mut String, top: usize) {
        let Some(c) = &self.contained else {
            let _ = writeln!(
                s,
                "with toolgate sandbox: off (the policy says sandbox = \"off\")"
            );
            return;
        };
        let pct = |n: usize| share(n, self.calls);
        let before = self.tiers[1] + self.tiers[2];
        let _ = writeln!(
            s,
            "with toolgate sandbox (a host that runs `sandbox` verdicts contained): sandbox {} ({:.1} %), ask {} ({:.1} %), deny {} ({:.1} %); {:.1} % of the asks no longer asked",
            c.sandboxed,
            pct(c.sandboxed),
            c.asks,
            pct(c.asks),
            c.denies,
            pct(c.denies),
            share(c.sandboxed, before),
        );
        let mut asks = c.run_asks.clone();
        asks.resize(self.runs.len(), 0);
        asks.sort_unstable();
        let _ = writeln!(
            s,
            "asks per run with toolgate sandbox (ask or deny): median {}, 90th percentile {}, max {}",
            quantile(&asks, 0.5),
            quantile(&asks, 0.9),
            asks.last().copied().unwrap_or(0),
        );
        section(
            s,
            "rules that still ask with toolgate sandbox",
            &c.rules,
            top,
            self.calls,
        );
    }
}

/// `n` of `of` in percent (0 when `of` is 0).
fn share(n: usize, of: usize) -> f64 {
    if of == 0 {
        0.0
    } else {
        100.0 * n as f64 / of as f64
    }
}

/// The value at quantile `q` of sorted `v` (nearest rank; 0 when empty).
fn quantile(v: &[usize], q: f64) -> usize {
    if v.is_empty() {
        return 0;
    }
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

fn section(s: &mut String, title: &str, counts: &HashMap<String, usize>, top: usize, calls: usize) {
    let _ = writeln!(s, "\n{title}:");
    // Most first; ties in name order, so the report is the same on every run.
    let sorted: BTreeMap<(std::cmp::Reverse<usize>, &str), ()> = counts
        .iter()
        .map(|(k, n)| ((std::cmp::Reverse(*n), k.as_str()), ()))
        .collect();
    for ((std::cmp::Reverse(n), k), ()) in sorted.into_iter().take(top) {
        let pct = share(n, calls);
        let _ = writeln!(s, "  {n:>7}  {pct:>5.1} %  {}", one_line(k, 100));
    }
}

/// The program a part runs: its first word that is not an assignment, by basename.
fn program_of(text: &str) -> String {
    text.split_whitespace()
        .find(|w| !w.contains('=') || w.starts_with('-'))
        .map(|w| {
            w.trim_matches(|c| c == '"' || c == '\'')
                .rsplit('/')
                .next()
                .unwrap_or("")
                .to_string()
        })
        .unwrap_or_default()
}

/// Runs `toolgate report` on a log, or on every log in a directory (a host's session
/// folder: `~/.claude/projects/PROJECT`, `~/.codex/sessions`, `~/.gemini/tmp`).
pub fn report(
    policy: &Policy,
    file: &Path,
    top: usize,
    fs: bool,
    own_cwd: bool,
) -> Result<String, CliError> {
    let found = if file.is_dir() {
        crate::transcripts::read_dir(file).map_err(CliError::Usage)?
    } else {
        let text = std::fs::read_to_string(file)
            .map_err(CliError::io(format!("reading {}", file.display())))?;
        crate::transcripts::read(&text)
    };
    let r = Report::from_found(policy, found, fs, own_cwd);
    if r.calls == 0 {
        return Err(CliError::Usage(format!(
            "report: {} has no tool calls (JSON lines {{\"tool\":…,\"args\":…,\"run\":…}}, \
             a Claude Code transcript, a Codex rollout or a Gemini CLI chat)",
            file.display()
        )));
    }
    Ok(r.render(file, top))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> Policy {
        Policy::defaults("/w", "/h")
    }

    #[test]
    fn counts_tiers_runs_rules_programs_and_commands() {
        let text = r#"{"tool":"bash","args":{"command":"ls"},"run":"a"}
{"tool":"bash","args":{"command":"rm x"},"run":"a"}
{"tool":"bash","args":{"command":"rm x"},"run":"b"}
not json
{"tool":"bash","args":{"command":"sudo rm -rf /"},"run":"b"}
{"tool":"bash","args":{"command":"cat f && python t.py"},"run":"b"}

{"tool":"read","args":{"file_path":"/w/a.txt"}}
"#;
        let r = Report::of(&policy(), text, false, true);
        assert_eq!(r.calls, 6);
        assert_eq!(r.skipped.len(), 1);
        assert_eq!(r.tiers, [2, 3, 1]);
        assert_eq!(
            r.runs,
            vec![
                ("a".to_string(), 2, 1),
                ("b".to_string(), 3, 3),
                ("(no run)".to_string(), 1, 0),
            ]
        );
        assert_eq!(r.commands.get("rm x"), Some(&2));
        assert_eq!(r.programs.get("rm"), Some(&2));
        assert_eq!(r.programs.get("python"), Some(&1));
        assert_eq!(r.programs.get("cat"), None);
        assert_eq!(r.rules.get("builtin.shell.priv-esc"), Some(&1));
        let out = r.render(Path::new("log.jsonl"), 5);
        assert!(out.contains("tiers: auto 2 (33.3 %), ask 3 (50.0 %), deny 1 (16.7 %)"));
        assert!(out.contains("asks per run (ask or deny): median 1, 90th percentile 3, max 3"));
        // `python t.py` runs contained; `rm x` (deleting) and the hard deny do not.
        let c = r.contained.as_ref().unwrap();
        assert_eq!((c.sandboxed, c.asks, c.denies), (1, 2, 1));
        assert_eq!(c.run_asks, vec![1, 2, 0]);
        assert!(out.contains("sandbox 1 (16.7 %), ask 2 (33.3 %), deny 1 (16.7 %); 25.0 % of the asks no longer asked"), "{out}");
        assert!(out.contains("asks per run with toolgate sandbox (ask or deny): median 1, 90th percentile 2, max 2"), "{out}");
        let off =
            Policy::from_toml("workspace = \"/w\"\nhome = \"/h\"\nsandbox = \"off\"\n").unwrap();
        let out = Report::of(&off, text, false, true).render(Path::new("log.jsonl"), 5);
        assert!(out.contains("with toolgate sandbox: off"), "{out}");
    }

    #[test]
    fn commands_are_shown_with_control_characters_escaped() {
        let text = "{\"tool\":\"bash\",\"args\":{\"command\":\"rm \\u001b[2Jx\\ny\"}}\n";
        let out = Report::of(&policy(), text, false, true).render(Path::new("log.jsonl"), 5);
        assert!(out.contains("rm \\u{1b}[2Jx⏎y"), "{out}");
        assert!(!out.contains('\u{1b}'), "{out}");
    }

    #[test]
    fn quantiles_by_nearest_rank() {
        assert_eq!(quantile(&[], 0.5), 0);
        assert_eq!(quantile(&[4], 0.5), 4);
        assert_eq!(quantile(&[1, 2, 3, 4], 0.5), 2);
        assert_eq!(quantile(&[1, 2, 3, 4, 5], 0.5), 3);
        assert_eq!(quantile(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9), 9);
    }

    #[test]
    fn program_of_skips_assignments_and_paths() {
        assert_eq!(program_of("FOO=1 /usr/bin/python x.py"), "python");
        assert_eq!(program_of("rm -rf build"), "rm");
        assert_eq!(program_of(""), "");
    }
}
