//! Option scanning of a simple command's arguments (`Opts`, `skip_opts`).

use crate::needle::HasChar;
use crate::shell::Word;

/// A parsed option list of one command.
pub(super) struct Opts<'w> {
    /// Short option letters with the word they came from.
    pub(super) shorts: Vec<(char, &'w Word)>,
    /// Long options (`--name` or `--name=value`), name without dashes.
    pub(super) longs: Vec<(&'w str, &'w Word)>,
    pub(super) operands: Vec<&'w Word>,
    /// Where the scan stopped: the first word of the command after a wrapper's options.
    pub(super) end: usize,
}

impl<'w> Opts<'w> {
    /// Splits `args` as GNU getopt does (options anywhere before `--`). Short letters
    /// in `takes` consume the rest of their cluster or the next argument as a value;
    /// long names in `long_takes` consume the next argument when written without `=`.
    /// `--` ends options.
    pub(super) fn parse(args: &[&'w Word], takes: &str, long_takes: &[&str]) -> Opts<'w> {
        Opts::scan(args, takes, long_takes, false)
    }

    /// The one scanner. With `stop_at_operand` (a wrapper's options, after which comes
    /// the command it runs) it stops at the first operand or after `--`, and `end` is
    /// where it stopped; otherwise every word not an option is an operand.
    fn scan(
        args: &[&'w Word],
        takes: &str,
        long_takes: &[&str],
        stop_at_operand: bool,
    ) -> Opts<'w> {
        let mut o = Opts {
            shorts: Vec::new(),
            longs: Vec::new(),
            operands: Vec::new(),
            end: args.len(),
        };
        let mut i = 0;
        let mut ended = false;
        while let Some(&w) = args.get(i) {
            let t = w.text.as_str();
            if ended || w.dynamic || !t.starts_with('-') || t == "-" {
                if stop_at_operand {
                    o.end = i;
                    return o;
                }
                o.operands.push(w);
                i += 1;
                continue;
            }
            i += 1;
            if t == "--" {
                if stop_at_operand {
                    o.end = i;
                    return o;
                }
                ended = true;
                continue;
            }
            if let Some(long) = t.strip_prefix("--") {
                let name = long.split('=').next().unwrap_or(long);
                o.longs.push((name, w));
                if !long.has_char('=') && long_takes_value(name, long_takes) {
                    i += 1;
                }
                continue;
            }
            for (ci, c) in t.get(1..).unwrap_or_default().char_indices() {
                o.shorts.push((c, w));
                if takes.has_char(c) {
                    if ci + c.len_utf8() == t.len() - 1 {
                        i += 1;
                    }
                    break;
                }
            }
        }
        o.end = i.min(args.len());
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

/// The index of the first word after a wrapper's options (`nice -n 5 CMD`: 2).
pub(super) fn skip_opts(args: &[&Word], takes: &str, long_takes: &[&str]) -> usize {
    Opts::scan(args, takes, long_takes, true).end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<Word> {
        s.split(' ')
            .map(|t| Word {
                text: t.to_string(),
                ..Word::default()
            })
            .collect()
    }

    #[test]
    fn one_scanner_two_orders() {
        let ws = words("-n 5 -ab --adjustment=3 --kill 9 cmd -x -- y");
        let args: Vec<&Word> = ws.iter().collect();
        // A wrapper's options end at its command.
        assert_eq!(skip_opts(&args, "n", &["kill"]), 6);
        // getopt's order: options anywhere, operands after `--` as they are.
        let o = Opts::parse(&args, "n", &["kill"]);
        let operands: Vec<&str> = o.operands.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(operands, ["cmd", "y"]);
        assert!(o.has_short('x').is_some() && o.has_short('b').is_some());
        assert!(o.has_long("adjustment").is_some() && o.has_long("kill-after").is_some());
        // `--` ends a wrapper's options; a missing value ends the list.
        let ws = words("-- -n");
        let args: Vec<&Word> = ws.iter().collect();
        assert_eq!(skip_opts(&args, "n", &[]), 1);
        let ws = words("-n");
        let args: Vec<&Word> = ws.iter().collect();
        assert_eq!(skip_opts(&args, "n", &[]), 1);
        assert_eq!(skip_opts(&[], "n", &[]), 0);
    }
}
