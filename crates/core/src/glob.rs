//! Small, non-backtracking-explosive glob matchers for rules.

/// Matches `text` against a pattern where `*` matches any run of characters (including
/// spaces and `/`) and `?` one character. Greedy with single backtrack point: O(n·m).
pub fn match_str(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    wildcard(
        &p,
        &t,
        |&c| c == '*',
        |&pc, &tc| {
            if pc == '?' || pc == tc {
                Step::One
            } else if pc == '*' {
                Step::Star
            } else {
                Step::Fail
            }
        },
    )
}

/// Matches a `/`-separated path against a pattern where `**` is any number of whole
/// segments, and `*` / `?` match within one segment.
pub fn match_path(pattern: &str, path: &str) -> bool {
    let ps: Vec<&str> = pattern.split('/').filter(|s| !s.is_empty()).collect();
    let ts: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    wildcard(
        &ps,
        &ts,
        |&s| s == "**",
        |&ps, &ts| {
            if ps == "**" {
                Step::Star
            } else if segment(ps, ts) {
                Step::One
            } else {
                Step::Fail
            }
        },
    )
}

/// What one pattern item does with the text item at hand.
enum Step {
    /// Matches it: both advance.
    One,
    /// Matches any run of items (the backtrack point).
    Star,
    /// Does not match it.
    Fail,
}

/// The one greedy matcher with a single backtrack point (O(n·m)) under [`match_str`]
/// (items are characters) and [`match_path`] (items are path segments).
fn wildcard<P, T>(
    p: &[P],
    t: &[T],
    is_star: impl Fn(&P) -> bool,
    step: impl Fn(&P, &T) -> Step,
) -> bool {
    let (mut pi, mut ti) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while let Some(titem) = t.get(ti) {
        match p.get(pi).map(|pitem| step(pitem, titem)) {
            Some(Step::One) => {
                pi += 1;
                ti += 1;
            }
            Some(Step::Star) => {
                star = Some((pi, ti));
                pi += 1;
            }
            Some(Step::Fail) | None => match star {
                Some((sp, st)) => {
                    pi = sp + 1;
                    ti = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    p.get(pi..).unwrap_or(&[]).iter().all(is_star)
}

fn segment(p: &str, t: &str) -> bool {
    if !p.contains(['*', '?']) {
        return p == t;
    }
    match_str(p, t)
}

/// Can some text matched by `pattern` (`*` any run, `?` one character) begin with
/// `prefix`? Runs the pattern as a set of positions over `prefix`: O(|pattern|·|prefix|).
/// Every pattern matches something once its prefix is consumed (`*` and `?` can), so a
/// position left after `prefix` is a witness.
pub fn may_start_with(pattern: &str, prefix: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    // `states[i]`: the pattern may be at position `i` (one past the end: all consumed).
    let mut states = vec![false; p.len() + 1];
    // A `*` at a reachable position may match nothing: the next position is reachable.
    let close = |states: &mut Vec<bool>| {
        for (i, &c) in p.iter().enumerate() {
            if c == '*' && states.get(i) == Some(&true) {
                if let Some(s) = states.get_mut(i + 1) {
                    *s = true;
                }
            }
        }
    };
    if let Some(s) = states.first_mut() {
        *s = true;
    }
    close(&mut states);
    for c in prefix.chars() {
        let mut next = vec![false; p.len() + 1];
        for (i, &pc) in p.iter().enumerate() {
            if states.get(i) != Some(&true) {
                continue;
            }
            let to = match pc {
                '*' => i,
                '?' => i + 1,
                x if x == c => i + 1,
                _ => continue,
            };
            if let Some(s) = next.get_mut(to) {
                *s = true;
            }
        }
        close(&mut next);
        states = next;
        if !states.iter().any(|&s| s) {
            return false;
        }
    }
    true
}

/// Can some text matched by `pattern` end with `suffix`? [`may_start_with`] on both
/// reversed.
pub fn may_end_with(pattern: &str, suffix: &str) -> bool {
    let p: String = pattern.chars().rev().collect();
    let s: String = suffix.chars().rev().collect();
    may_start_with(&p, &s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings() {
        for (p, t, want) in [
            ("git push*", "git push origin main", true),
            ("git push*", "git pull", false),
            ("*", "", true),
            ("a?c", "abc", true),
            ("npm test", "npm test", true),
            ("npm test", "npm testx", false),
        ] {
            assert_eq!(match_str(p, t), want, "{p} ~ {t}");
        }
        let long = "a".repeat(65536);
        assert!(!match_str("*a*a*a*b", &long));
    }

    #[test]
    fn prefixes_and_suffixes() {
        for (p, x, want) in [
            ("*", ".env", true),
            ("?env*", ".env", true),
            (".e*x", ".env", true),
            ("*.rs", ".env", true), // `.env.rs`
            ("b*", ".env", false),
            ("a*", ".env", false),
            ("", ".env", false),
            (".en", ".env", false),
        ] {
            assert_eq!(may_start_with(p, x), want, "{p} starts with {x}");
        }
        for (p, x, want) in [
            ("*", ".key", true),
            ("*.k?y", ".key", true),
            ("server.*", ".key", true),
            ("*.rs", ".key", false),
            ("*.ke", ".key", false),
        ] {
            assert_eq!(may_end_with(p, x), want, "{p} ends with {x}");
        }
    }

    #[test]
    fn paths() {
        for (p, t, want) in [
            ("**/.env", "/home/dev/app/.env", true),
            ("**/.env", "/home/dev/app/config/.env", true),
            ("/home/dev/docs/**", "/home/dev/docs/a/b.md", true),
            ("/home/dev/docs/**", "/home/dev/other/a.md", false),
            ("/home/*/x", "/home/dev/x", true),
            ("/home/*/x", "/home/dev/y/x", false),
            ("src/*.rs", "src/main.rs", true),
        ] {
            assert_eq!(match_path(p, t), want, "{p} ~ {t}");
        }
    }
}
