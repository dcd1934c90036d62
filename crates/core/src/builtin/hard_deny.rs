//! Hard deny on specific programs: privilege escalation, power control, recursive
//! deletes and permission changes of a root, disk and partition tools, writes into
//! devices and system directories; and `cd`, which moves where paths resolve.

use super::getopt::Opts;
use super::inspect::{is_lib_dir, script_runs};
use super::names::{is_interpreter, DISK_DEVICES, SYSTEM_WRITE_DIRS};
use super::programs::Kind;
use super::reach::ReadOnly;
use super::readonly::readonly;
use super::words::{Cmd, Judged};
use super::{cat, Finding, Traits, Walker};
use crate::paths::{self, resolve};
use crate::rule_id::RuleId;
use crate::shell::Word;
use crate::verdict::Tier;
use std::borrow::Cow;

impl<'a> Walker<'a> {
    /// Privilege escalation and power control: hard deny.
    pub(super) fn power_or_priv_esc(&self, c: &Cmd) -> Option<Judged> {
        let (name, first, all) = (c.name, c.first, c.all);
        let args = c.words.get(1..).unwrap_or_default();
        if c.kind == Kind::PrivEsc {
            return Some(self.deny(
                c,
                RuleId::ShellPrivEsc,
                cat(&["privilege escalation: ", name]),
                first.span,
            ));
        }
        if c.kind == Kind::Power {
            return Some(self.deny(c, RuleId::ShellPower, format!("power control: {name}"), all));
        }
        match name {
            "init" | "telinit" if args.iter().any(|a| matches!(a.text.as_str(), "0" | "6")) => {
                return Some(self.deny(
                    c,
                    RuleId::ShellPower,
                    format!("power control: {name} 0/6"),
                    all,
                ));
            }
            "systemctl" | "loginctl"
                if args.iter().any(|a| {
                    let t = crate::needle::trim_end_matches(&a.text, ".target");
                    matches!(t, "poweroff" | "reboot" | "halt" | "kexec" | "soft-reboot")
                }) =>
            {
                return Some(self.deny(
                    c,
                    RuleId::ShellPower,
                    format!("power control: {}", self.text(all)),
                    all,
                ));
            }
            _ => {}
        }
        None
    }

    /// Programs that delete, change owners, write devices or change the directory.
    pub(super) fn destructive(&mut self, c: &Cmd) -> Option<Judged> {
        let (words, sc, name, all) = (c.words, c.sc, c.name, c.all);
        let args = c.words.get(1..).unwrap_or_default();
        // --- hard deny on specific programs ------------------------------------------
        match name {
            "rm" => {
                let o = Opts::parse(args, "", &[]);
                if let Some(w) = o.has_long("no-preserve-root") {
                    return Some(self.deny(
                        c,
                        RuleId::ShellRmRoot,
                        "recursive delete with --no-preserve-root".to_string(),
                        w.span,
                    ));
                }
                let recursive = o.has_short('r').is_some()
                    || o.has_short('R').is_some()
                    || o.has_long("recursive").is_some();
                if recursive {
                    if let Some(w) = o.operands.iter().find(|w| self.is_root_like(w)) {
                        return Some(self.deny(
                            c,
                            RuleId::ShellRmRoot,
                            format!("recursive delete of {}: {}", w.text, self.text(all)),
                            w.span,
                        ));
                    }
                }
                return Some(self.ask_default(c, cat(&["deletes files: ", self.text(all)])));
            }
            "chmod" | "chown" | "chgrp" => {
                let o = Opts::parse(args, "", &["reference"]);
                let recursive = o.has_short('R').is_some() || o.has_long("recursive").is_some();
                if recursive {
                    if let Some(w) = o.operands.iter().find(|w| self.is_root_like(w)) {
                        return Some(self.deny(
                            c,
                            RuleId::ShellChmodRoot,
                            format!("recursive {name} of {}", w.text),
                            w.span,
                        ));
                    }
                }
                return Some(
                    self.ask_default(c, format!("changes file permissions or owners: {name}")),
                );
            }
            "find" => return Some(self.find(words, sc)),
            "dd" => return Some(self.dd(c)),
            "shred" => {
                if let Some(a) = args
                    .iter()
                    .find(|a| a.text.starts_with("/dev/") && a.text != "/dev/null")
                {
                    return Some(self.deny(
                        c,
                        RuleId::ShellDisk,
                        format!("shred of a device: {}", a.text),
                        a.span,
                    ));
                }
                return Some(self.ask_default(c, "shred destroys files".to_string()));
            }
            "wipefs" | "blkdiscard" | "mkswap" | "mke2fs" => {
                return Some(self.deny(c, RuleId::ShellDisk, format!("disk tool: {name}"), all));
            }
            n if n.starts_with("mkfs") => {
                return Some(self.deny(
                    c,
                    RuleId::ShellDisk,
                    format!("makes a file system: {name}"),
                    all,
                ));
            }
            "fdisk" | "sfdisk" | "cfdisk" | "gdisk" | "sgdisk" | "parted" => {
                return Some(self.partition(c));
            }
            "tee" => return Some(self.tee(c)),
            "cd" | "pushd" => self.change_dir(c),
            // toolgate's own runs database opened by the SQLite shell (which can write
            // a decision into it): an agent approving itself.
            "sqlite3" | "sqlite" => {
                if let Some(w) = args.iter().find(|a| {
                    self.resolve_word(a)
                        .is_some_and(|p| paths::self_approval(&p, self.env.home).is_some())
                }) {
                    return Some(self.deny(
                        c,
                        RuleId::SelfApproval,
                        format!("an agent may not open toolgate's runs database: {}", w.text),
                        w.span,
                    ));
                }
            }
            // An agent deciding its own parked call: never legitimate.
            "toolgate" => {
                if let Some(w) = args.iter().find(|a| a.text == "decide") {
                    return Some(self.deny(
                        c,
                        RuleId::SelfApproval,
                        "an agent may not decide toolgate's approvals: toolgate decide".to_string(),
                        w.span,
                    ));
                }
            }
            // `popd` returns to a directory the stack holds: unknown here.
            "popd" => {
                self.cwd = None;
                self.cwd_alts.clear();
            }
            _ => {}
        }
        None
    }

    /// `dd of=…` into a device or a system directory: hard deny.
    pub(super) fn dd(&self, c: &Cmd) -> Judged {
        let args = c.words.get(1..).unwrap_or_default();
        for a in args {
            if let Some(path) = a.text.strip_prefix("of=") {
                let p = Word {
                    text: path.to_string(),
                    param: None,
                    ..(*a).clone()
                };
                let abs = self.resolve_word(&p);
                if let Some(abs) = abs.as_deref() {
                    if abs.starts_with("/dev/")
                        && !matches!(abs, "/dev/null" | "/dev/stdout" | "/dev/stderr")
                    {
                        return self.deny(
                            c,
                            RuleId::ShellDisk,
                            format!("dd writes to a device: {}", a.text),
                            a.span,
                        );
                    }
                    if paths::under_any(abs, SYSTEM_WRITE_DIRS) {
                        return self.deny(
                            c,
                            RuleId::ShellSystemWrite,
                            format!("dd writes into a system directory: {}", a.text),
                            a.span,
                        );
                    }
                }
            }
        }
        self.ask_default(c, "dd copies raw data".to_string())
    }

    /// Partition tools: hard deny unless they only list.
    pub(super) fn partition(&self, c: &Cmd) -> Judged {
        let (name, all) = (c.name, c.all);
        let args = c.words.get(1..).unwrap_or_default();
        // Listing only: `-l`/`--list`, or parted's `print`, with nothing else but
        // devices and flags (`parted -l /dev/sda rm 1` removes a partition).
        let only_listing_words = args
            .iter()
            .all(|a| a.text.starts_with('-') || a.text.starts_with("/dev/") || a.text == "print");
        let listing = (args
            .iter()
            .any(|a| matches!(a.text.as_str(), "-l" | "--list"))
            && (name != "parted" || only_listing_words))
            || (name == "parted"
                && args.iter().any(|a| a.text == "print")
                && args.iter().all(|a| {
                    a.text == "print" || a.text.starts_with("/dev/") || a.text.starts_with('-')
                }));
        if !listing {
            return self.deny(
                c,
                RuleId::ShellDisk,
                format!("partitions a disk: {}", self.text(all)),
                all,
            );
        }
        self.ask_default(c, format!("disk tool: {name}"))
    }

    /// `tee`: the files it writes, and whether an interpreter reads what it copies.
    pub(super) fn tee(&mut self, c: &Cmd) -> Judged {
        let args = c.words.get(1..).unwrap_or_default();
        let o = Opts::parse(args, "", &[]);
        for w in &o.operands {
            if let Some(abs) = self.resolve_word(w) {
                if DISK_DEVICES.iter().any(|d| abs.starts_with(d)) {
                    return self.deny(
                        c,
                        RuleId::ShellDisk,
                        format!("tee writes to a disk device: {}", w.text),
                        w.span,
                    );
                }
                if paths::under_any(&abs, SYSTEM_WRITE_DIRS) || is_lib_dir(&abs) {
                    return self.deny(
                        c,
                        RuleId::ShellSystemWrite,
                        format!("tee writes into a system directory: {}", w.text),
                        w.span,
                    );
                }
            }
        }
        let (f, mut t, n) = match readonly("tee", args, self, c.first.span) {
            ReadOnly::Edit(tier, rule, why, span) => (
                Finding::new(tier, rule, why, span),
                Traits::default(),
                self.norm(c),
            ),
            ReadOnly::Flag(rule, why, span) => (
                Finding::new(self.default_tier(), rule, why, span),
                Traits::default(),
                self.norm(c),
            ),
            _ => (
                Finding::new(
                    Tier::Auto,
                    RuleId::ShellReadonly,
                    "tee with no file writes only its output",
                    c.first.span,
                ),
                Traits::default(),
                self.norm(c),
            ),
        };
        // `… | tee >(sh)`: what it reads goes into an interpreter.
        t.stdin_exec = args.iter().any(|a| {
            a.subs
                .iter()
                .any(|sub| script_runs(sub, &|n| is_interpreter(n), &["eval", "source", "."]))
        });
        (f, t, n)
    }

    /// `cd`/`pushd`: the directory bash may be in next.
    pub(super) fn change_dir(&mut self, c: &Cmd) {
        let args = c.words.get(1..).unwrap_or_default();
        let next = match args
            .iter()
            .find(|a| !a.text.starts_with('-') || a.text == "-")
        {
            None => Some(self.env.home.to_string()),
            Some(a) if a.value().is_some() && a.text != "-" => self.resolve_word(a),
            // `cd $HOME`, `cd "${HOME}/x"`: the home directory is known.
            Some(a) => ["${HOME:?}", "${HOME}", "$HOME"]
                .iter()
                .find_map(|p| a.text.strip_prefix(p))
                .filter(|rest| {
                    a.subs.is_empty()
                        && !rest.contains(['$', '`'])
                        && (rest.is_empty() || rest.starts_with('/'))
                })
                .map(|rest| resolve(&format!("~{rest}"), "/", self.env.home)),
        };
        // It may fail (a missing directory) and leave bash where it was.
        match (self.cwd.take(), next) {
            (Some(old), Some(new)) => {
                if *old != *new && !self.cwd_alts.iter().any(|a| *a == *old) {
                    self.cwd_alts.push(old.into_owned());
                }
                if self.cwd_alts.len() <= 8 {
                    self.cwd = Some(Cow::Owned(new));
                }
            }
            _ => self.cwd_alts.clear(),
        }
    }
}
