//! Option scanning of a simple command's arguments (`Opts`, `skip_opts`).

use crate::shell::Word;

/// A parsed option list of one command.
pub(super) struct Opts<'w> {
    /// Short option letters with the word they came from.
    pub(super) shorts: Vec<(char, &'w Word)>,
    /// Long options (`--name` or `--name=value`), name without dashes.
    pub(super) longs: Vec<(&'w str, &'w Word)>,
    pub(super) operands: Vec<&'w Word>,
}

impl<'w> Opts<'w> {
    /// Splits `args`. Short letters in `takes` consume the rest of their cluster or the
    /// next argument as a value; long names in `long_takes` consume the next argument
    /// when written without `=`. `--` ends options.
    pub(super) fn parse(args: &[&'w Word], takes: &str, long_takes: &[&str]) -> Opts<'w> {
        let mut o = Opts {
            shorts: Vec::new(),
            longs: Vec::new(),
            operands: Vec::new(),
        };
        let mut i = 0;
        let mut ended = false;
        while i < args.len() {
            let w = args[i];
            let t = w.text.as_str();
            i += 1;
            if ended || w.dynamic || !t.starts_with('-') || t == "-" {
                o.operands.push(w);
                continue;
            }
            if t == "--" {
                ended = true;
                continue;
            }
            if let Some(long) = t.strip_prefix("--") {
                let name = long.split('=').next().unwrap_or(long);
                o.longs.push((name, w));
                if !long.contains('=') && long_takes_value(name, long_takes) {
                    i += 1;
                }
                continue;
            }
            for (ci, c) in t[1..].char_indices() {
                o.shorts.push((c, w));
                if takes.contains(c) {
                    if ci + c.len_utf8() == t.len() - 1 {
                        i += 1;
                    }
                    break;
                }
            }
        }
        o
    }

    pub(super) fn has_short(&self, c: char) -> Option<&'w Word> {
        self.shorts.iter().find(|(s, _)| *s == c).map(|(_, w)| *w)
    }

    /// A long option given in full or as any prefix of it: getopt and git accept every
    /// unambiguous prefix (`--se` for `date --set`, `--r` for `rm --recursive`), and an
    /// ambiguous one makes the program refuse to run, so a prefix counts as the option.
    pub(super) fn has_long(&self, full: &str) -> Option<&'w Word> {
        self.longs
            .iter()
            .find(|(n, _)| !n.is_empty() && full.starts_with(n))
            .map(|(_, w)| *w)
    }
}

/// Does long option `--name` (as written: getopt and git accept any unambiguous prefix,
/// `--kill` for `--kill-after`) take the next argument as its value?
pub(super) fn long_takes_value(name: &str, long_takes: &[&str]) -> bool {
    !name.is_empty() && long_takes.iter().any(|full| full.starts_with(name))
}

pub(super) fn skip_opts(args: &[&Word], takes: &str, long_takes: &[&str]) -> usize {
    let mut i = 0;
    while i < args.len() {
        let t = args[i].text.as_str();
        if args[i].dynamic || !t.starts_with('-') || t == "-" {
            return i;
        }
        if t == "--" {
            return i + 1;
        }
        if let Some(long) = t.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            i += if !long.contains('=') && long_takes_value(name, long_takes) {
                2
            } else {
                1
            };
            continue;
        }
        let body = &t[1..];
        let mut consumed = 1;
        for (ci, c) in body.char_indices() {
            if takes.contains(c) {
                if ci + c.len_utf8() == body.len() {
                    consumed = 2;
                }
                break;
            }
        }
        i += consumed;
    }
    i.min(args.len())
}
