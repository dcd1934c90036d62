//! Text from elsewhere (a run's reason, a settings file's command, a session id) made
//! safe to print to a person: nothing in it can move the cursor, recolour the terminal,
//! reorder what is shown or hide a character.

/// `s` with every character that a terminal would act on or that hides or reorders
/// text escaped as `\u{…}`: C0 and C1 controls and DEL (escape sequences, carriage
/// returns), the bidirectional controls (U+061C, U+200E–U+200F, U+202A–U+202E,
/// U+2066–U+2069) and zero-width characters (U+200B–U+200D, U+2060, U+FEFF).
pub fn shown(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if needs_escape(c) {
            out.push_str(&c.escape_unicode().to_string());
        } else {
            out.push(c);
        }
    }
    out
}

fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'
                | '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{2069}'
                | '\u{FEFF}'
        )
}

/// A database URL with its password hidden (`postgres://u:***@host/db`); other URLs
/// and paths as they are.
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let Some((userinfo, host)) = authority.rsplit_once('@') else {
        return url.to_string();
    };
    match userinfo.split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:***@{host}{tail}"),
        None => url.to_string(),
    }
}

/// `text` with every occurrence of `url`'s password replaced (an error message may
/// repeat it).
pub fn without_password(text: &str, url: &str) -> String {
    let password = url
        .split_once("://")
        .and_then(|(_, rest)| rest.split(['/', '?', '#']).next())
        .and_then(|authority| authority.rsplit_once('@'))
        .and_then(|(userinfo, _)| userinfo.split_once(':'))
        .map(|(_, p)| p)
        .filter(|p| !p.is_empty());
    match password {
        Some(p) => text.replace(url, &redact_url(url)).replace(p, "***"),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_a_terminal_acts_on() {
        assert_eq!(shown("a\u{1b}[2Kb\rc"), "a\\u{1b}[2Kb\\u{d}c");
        assert_eq!(shown("x\u{202E}txt.exe"), "x\\u{202e}txt.exe");
        assert_eq!(shown("a\u{200B}b\u{9b}c"), "a\\u{200b}b\\u{9b}c");
        assert_eq!(shown("plain — é ✓"), "plain — é ✓");
    }

    #[test]
    fn passwords_are_hidden() {
        let url = "postgres://tg:s3cret@db.example:5432/runs?sslmode=require";
        assert_eq!(
            redact_url(url),
            "postgres://tg:***@db.example:5432/runs?sslmode=require"
        );
        assert_eq!(redact_url("sqlite:/x/runs.db"), "sqlite:/x/runs.db");
        assert_eq!(redact_url("postgres://tg@db/runs"), "postgres://tg@db/runs");
        let msg = format!("the runs database {url}: password s3cret rejected");
        let clean = without_password(&msg, url);
        assert!(!clean.contains("s3cret"), "{clean}");
    }
}
