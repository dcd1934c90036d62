//! Here-documents: their bodies are read when the line that declared them ends, then attached to their redirections.

use super::ast::{Command, HereDoc, ParseError, ParseErrorKind, Redirect, Script, Word};
use super::parser::Parser;

impl<'a> Parser<'a> {
    /// Reads the bodies of the here-documents started on the line just ended. The
    /// substitutions of an unquoted body are parsed once, here; a syntax error in one
    /// is skipped (bash reports it only when the body is expanded), but running out of
    /// depth or budget ends the whole parse.
    pub(super) fn read_heredocs(&mut self) -> Result<(), ParseError> {
        let docs = std::mem::take(&mut self.pending);
        for doc in docs {
            let start = self.pos;
            let mut body_end = self.s.len();
            let mut next = self.s.len();
            let mut line_start = self.pos;
            while line_start < self.s.len() {
                let line_end = self
                    .s
                    .get(line_start..)
                    .unwrap_or_default()
                    .iter()
                    .position(|&b| b == b'\n')
                    .map_or(self.s.len(), |i| line_start + i);
                let mut line = self.src.get(line_start..line_end).unwrap_or_default();
                if doc.strip_tabs {
                    line = line.trim_start_matches('\t');
                }
                if line.trim_end_matches('\r') == doc.delim {
                    body_end = line_start;
                    next = (line_end + 1).min(self.s.len());
                    break;
                }
                // `E)` in a substitution: the body ends, the `)` closes it.
                if self.comsub > 0
                    && !doc.delim.is_empty()
                    && line
                        .strip_prefix(doc.delim.as_str())
                        .is_some_and(|rest| rest.trim_start_matches([' ', '\t']).starts_with(')'))
                {
                    body_end = line_start;
                    // Where the delimiter ends (after any stripped tabs).
                    next = line_end - (line.len() - doc.delim.len());
                    break;
                }
                line_start = line_end + 1;
            }
            let body = self
                .src
                .get(start..body_end)
                .unwrap_or_default()
                .to_string();
            let mut subs = Vec::new();
            if !doc.quoted {
                // An unquoted body undergoes substitutions: find them.
                // The body alone, as bash expands it: a substitution in it ends inside
                // it (a here-document nested in it cannot read past the body, which
                // would also scan the same bytes again at every level).
                let mut sub = Parser {
                    s: self.s.get(..body_end).unwrap_or_default(),
                    src: self.src.get(..body_end).unwrap_or(self.src),
                    map: self.map,
                    pos: start,
                    base: self.base,
                    fixed: self.fixed,
                    depth: self.depth,
                    pending: Vec::new(),
                    bodies: Vec::new(),
                    open_if: 0,
                    open_do: 0,
                    comsub: self.comsub,
                    budget: std::mem::take(&mut self.budget),
                };
                let mut w = Word::default();
                let mut failed = None;
                while sub.pos < body_end {
                    if let Err(e) = sub.tick() {
                        failed = Some(e);
                        break;
                    }
                    let at = sub.pos;
                    let r = match sub.peek() {
                        Some(b'\\') => {
                            sub.pos += 2;
                            Ok(())
                        }
                        Some(b'$') => sub.dollar(&mut w, true),
                        Some(b'`') => sub.backtick(&mut w),
                        _ => {
                            sub.pos += 1;
                            Ok(())
                        }
                    };
                    match r {
                        Err(e) if e.kind == ParseErrorKind::TooComplex => {
                            failed = Some(e);
                            break;
                        }
                        // A syntax error: go on after the `$` or backtick.
                        Err(_) => sub.pos = sub.pos.max(at + 1),
                        Ok(()) => {}
                    }
                }
                subs = w.subs;
                // Here-documents inside the body's substitutions were read by `sub`.
                for script in &mut subs {
                    sub.attach_heredocs(script);
                }
                self.budget = sub.budget;
                if let Some(e) = failed {
                    return Err(e);
                }
            }
            let start = self.base + self.orig(start);
            if let Some(slot) = self.bodies.get_mut(doc.id) {
                *slot = Some(HereDoc {
                    body,
                    start,
                    quoted: doc.quoted,
                    subs,
                    slot: None,
                });
            }
            self.pos = next;
        }
        Ok(())
    }

    pub(super) fn attach_heredocs(&mut self, script: &mut Script) {
        for pl in &mut script.pipelines {
            for cmd in &mut pl.stages {
                self.attach_cmd(cmd);
            }
        }
    }

    pub(super) fn attach_cmd(&mut self, cmd: &mut Command) {
        match cmd {
            Command::Simple(sc) => {
                self.attach_words(&mut sc.assigns);
                self.attach_words(&mut sc.words);
                self.attach_redirects(&mut sc.redirects);
            }
            Command::Compound {
                body,
                words,
                redirects,
                ..
            } => {
                self.attach_heredocs(body);
                self.attach_words(words);
                self.attach_redirects(redirects);
            }
            Command::Function { body, .. } => self.attach_cmd(body),
            Command::Arith { words, .. } => self.attach_words(words),
        }
    }

    /// Here-documents started inside substitutions (`$(cat <<E …)`, `<(…)`): their
    /// bodies were read by this parser too and belong to the scripts in the words.
    pub(super) fn attach_words(&mut self, words: &mut [Word]) {
        for w in words {
            for sub in &mut w.subs {
                self.attach_heredocs(sub);
            }
        }
    }

    pub(super) fn attach_redirects(&mut self, redirects: &mut [Redirect]) {
        for r in redirects {
            for sub in &mut r.target.subs {
                self.attach_heredocs(sub);
            }
            // Only a placeholder of this parser's: a here-document inside a backtick
            // or a decoded string was attached by the parser that read it.
            if let Some(id) = r.heredoc.as_ref().and_then(|h| h.slot) {
                r.heredoc = self.bodies.get_mut(id).and_then(Option::take);
            }
        }
    }
}
