//! `find`: its actions, its start points, and what it may list.

use super::inspect::words_span;
use super::names::basename;
use super::programs::{kind, Kind};
use super::reach::{operand_reach, ReadOnly};
use super::{Finding, RawPart, Traits, Walker};
use crate::builtin::programs::{self};
use crate::needle::HasChar;
use crate::paths::{self};
use crate::rule_id::RuleId;
use crate::shell::{SimpleCommand, Span, Word};
use crate::verdict::Tier;

impl<'a> Walker<'a> {
    pub(super) fn find(
        &mut self,
        words: &[&Word],
        sc: &SimpleCommand,
    ) -> (Finding, Traits, Option<String>) {
        let args = words.get(1..).unwrap_or_default();
        let all = words_span(words, sc.span);
        let mut i = 0;
        // Leading options -H -L -P -D x -Olevel
        while let Some(t_word) = args.get(i) {
            let t = t_word.text.as_str();
            if matches!(t, "-H" | "-L" | "-P") || t.starts_with("-O") {
                i += 1;
            } else if t == "-D" {
                // `-D debugopts`; a `-D` with no value (`find -D`) ends the words.
                i = (i + 2).min(args.len());
            } else if t == "--" {
                // `find -- / -delete`: the end of options, then the paths.
                i += 1;
                break;
            } else {
                break;
            }
        }
        let mut roots: Vec<&Word> = Vec::new();
        while let Some(t_word) = args.get(i) {
            let t = t_word.text.as_str();
            if (t.starts_with('-') && t.len() > 1) || t == "(" || t == "!" || t == "," {
                break;
            }
            roots.push(t_word);
            i += 1;
        }
        let expr_start = i;
        let mut unsafe_action: Option<&Word> = None;
        let mut deletes = false;
        while let Some(&w) = args.get(i) {
            let t = w.text.as_str();
            i += 1;
            match t {
                "-delete" => {
                    deletes = true;
                    unsafe_action.get_or_insert(w);
                }
                "-exec" | "-execdir" | "-ok" | "-okdir" => {
                    unsafe_action.get_or_insert(w);
                    let start = i;
                    while args.get(i).is_some_and(|a| a.text != ";" && a.text != "+") {
                        i += 1;
                    }
                    let inner = args.get(start..i.min(args.len())).unwrap_or_default();
                    i += 1;
                    deletes |= self.find_exec(inner, all);
                }
                "-fprint" | "-fprint0" | "-fprintf" | "-fls" => {
                    unsafe_action.get_or_insert(w);
                }
                _ => {}
            }
        }
        let norm = {
            let mut s = String::from("find");
            for a in args {
                s.push(' ');
                s.push_str(&a.text);
            }
            Some(s)
        };
        if deletes && roots.iter().any(|w| self.is_root_like(w)) {
            return (
                Finding::new(
                    Tier::Deny,
                    RuleId::ShellFindDeleteRoot,
                    format!("find deleting from a system location: {}", self.text(all)),
                    all,
                ),
                Traits::default(),
                norm,
            );
        }
        if let Some(w) = unsafe_action {
            return (
                Finding::new(
                    self.default_tier(),
                    RuleId::ShellFindAction,
                    format!("find {} runs commands, deletes or writes files", w.text),
                    w.span,
                ),
                Traits::default(),
                norm,
            );
        }
        if let Some(f) = self.find_expression(args.get(expr_start..).unwrap_or_default()) {
            return (f, Traits::default(), norm);
        }
        if let Some(w) = roots
            .iter()
            .find(|w| w.value().is_some_and(paths::is_secret))
        {
            return (
                Finding::new(
                    Tier::Ask,
                    RuleId::ShellSecretFile,
                    format!("lists a secret location: {}", w.text),
                    w.span,
                ),
                Traits::default(),
                norm,
            );
        }
        (
            Finding::new(
                Tier::Auto,
                RuleId::ShellReadonly,
                "read-only command: find",
                words.first().map_or(all, |w| w.span),
            ),
            Traits::default(),
            norm,
        )
    }

    /// The command of `-exec`/`-execdir`/`-ok`/`-okdir` (a part of its own), and whether
    /// it deletes: `rm`, a wrapper around it, or a shell whose script runs it.
    fn find_exec(&mut self, inner: &[&Word], all: Span) -> bool {
        let Some(p) = inner.first() else {
            return false;
        };
        let mut deletes = false;
        let deleter = |w: &&Word| matches!(basename(&w.text), "rm" | "rmdir" | "shred" | "unlink");
        // `-exec rm …`, or a wrapper around it (`-exec env rm`,
        // `-exec nice -n 5 rm`, `-exec timeout 5 rm`).
        // `-exec sh -c 'rm "$1"' _ {} \;`: a shell whose script runs one.
        let shell_deletes = matches!(
            kind(basename(&p.text)),
            Kind::Shell | Kind::Multicall { shell: true }
        ) && inner.iter().any(|w| {
            w.text
                .split(|c: char| c.is_whitespace() || ";|&()".has_char(c))
                .any(|t| matches!(basename(t), "rm" | "rmdir" | "shred" | "unlink"))
        });
        if deleter(p)
            || shell_deletes
            || (kind(basename(&p.text)).may_run_arguments() && inner.iter().any(deleter))
        {
            deletes = true;
        }
        let span = words_span(inner, all);
        let isc = SimpleCommand {
            span,
            ..SimpleCommand::default()
        };
        let (f, _t, n) = self.words(inner, &isc);
        self.parts.push(RawPart {
            span,
            finding: f,
            norm: if self.env.want_norm { n } else { None },
        });
        deletes
    }

    /// `find`'s expression read with [`programs::FIND_PRIMARIES`]: a word find does not
    /// know asks, as an unknown option does; `-files0-from F` opens F (whose lines
    /// find prints in its errors), judged as `cat F` would be.
    pub(super) fn find_expression(&self, expr: &[&Word]) -> Option<Finding> {
        let mut i = 0;
        while let Some(&w) = expr.get(i) {
            i += 1;
            if w.dynamic {
                return Some(Finding::new(
                    self.default_tier(),
                    RuleId::ShellDynamic,
                    format!(
                        "a find expression word known only at run time: {}",
                        self.text(w.span)
                    ),
                    w.span,
                ));
            }
            let t = w.text.as_str();
            let Some(n) = programs::find_primary(t) else {
                return Some(Finding::new(
                    self.default_tier(),
                    RuleId::ShellUnknownOption,
                    format!("{t} is not a find expression it knows: an option not in the table may write, run or open a file"),
                    w.span,
                ));
            };
            if n == u8::MAX {
                while expr.get(i).is_some_and(|a| a.text != ";" && a.text != "+") {
                    i += 1;
                }
                i += 1;
                continue;
            }
            if t == "-files0-from" {
                if let Some(&v) = expr.get(i) {
                    match operand_reach(v, self) {
                        ReadOnly::Yes | ReadOnly::No => {}
                        ReadOnly::Secret(_) => {
                            return Some(Finding::new(
                                Tier::Ask,
                                RuleId::ShellSecretFile,
                                format!("reads a secret file: {}", v.text),
                                v.span,
                            ))
                        }
                        ReadOnly::Flag(rule, why, _) | ReadOnly::Edit(_, rule, why, _) => {
                            return Some(Finding::new(self.default_tier(), rule, why, v.span))
                        }
                    }
                }
            }
            i += usize::from(n);
        }
        None
    }
}
