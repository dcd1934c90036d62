//! The TOML of a policy file, read into JSON values: tables, arrays and strings, which
//! is every value a policy takes. A hand-written reader in place of a general TOML crate:
//! a policy needs a small part of TOML, and a general deserializer was the largest part
//! of the WebAssembly Gate a page loads (about 40 KB gzipped with what only it reached).
//!
//! What it reads, as TOML 1.0 defines it: comments; bare, quoted and dotted keys;
//! `[table]` headers; basic and literal strings, single- and multi-line, with every
//! escape; arrays (over lines, with comments and a trailing comma); inline tables;
//! booleans and decimal integers (no key takes one: read so that the key's own error is
//! given). What no policy key takes and a reader would have to know more TOML for is
//! refused naming its line: floats, dates, hex integers, arrays of tables (`[[…]]`). So are what TOML forbids: a key
//! defined twice, a table defined twice or by a header after dotted keys made it, a
//! value extended by a later key, control characters in strings, a bare carriage return.
//! Its cost is linear in the text: one pass, nesting bounded by the caller
//! (`toml_shape::check`) and again here.

use serde_json::{Map, Value};

/// The deepest nesting of arrays and inline tables read (as `toml_shape` bounds it).
const MAX_DEPTH: usize = crate::toml_shape::MAX_NESTING;

/// A policy file read: its root table, and the line of every key and table header.
pub(crate) struct Doc {
    pub root: Map<String, Value>,
    lines: Vec<(Vec<String>, usize)>,
}

impl Doc {
    /// The 1-based line where the key at `path` (or its table's header) was defined.
    pub fn line(&self, path: &[&str]) -> Option<usize> {
        self.lines
            .iter()
            .find(|(p, _)| p.iter().map(String::as_str).eq(path.iter().copied()))
            .map(|(_, l)| *l)
    }
}

/// How a table came to be: which later definitions may add to it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// Named as a prefix of a header (`[a.b]` makes `a`): a header may define it later.
    Implicit,
    /// By its own header: never again.
    Header,
    /// By a dotted key in the section with this number: more dotted keys of that
    /// section may add to it, nothing else.
    Dotted(usize),
}

/// A table while the file is read: entries in order, each with its origin when a table,
/// and an index from key to position, so that a file of many keys or tables reads in
/// time linear in its size. (The index is a JSON map of positions: the map type the
/// reader builds anyway, so no second ordered map is compiled into the WebAssembly.)
#[derive(Default)]
struct Table {
    entries: Vec<(String, Node)>,
    index: Map<String, Value>,
}

enum Node {
    Table(Table, Origin),
    Value(Value),
}

impl Table {
    fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        let at = self.index.get(key)?.as_u64()?;
        let at = usize::try_from(at).ok()?;
        self.entries.get_mut(at).map(|(_, n)| n)
    }

    fn push(&mut self, key: String, node: Node) {
        self.index
            .insert(key.clone(), Value::from(self.entries.len()));
        self.entries.push((key, node));
    }

    fn into_value(self) -> Map<String, Value> {
        // Inserted one by one: collecting into a map sorts (a second sort in the .wasm).
        let mut map = Map::new();
        for (k, n) in self.entries {
            let v = match n {
                Node::Table(t, _) => Value::Object(t.into_value()),
                Node::Value(v) => v,
            };
            map.insert(k, v);
        }
        map
    }
}

type Fail = (usize, String);

struct Reader<'a> {
    b: &'a [u8],
    text: &'a str,
    i: usize,
    line: usize,
}

/// Reads a policy file's TOML. An error is the 1-based line and what is wrong.
pub(crate) fn parse(text: &str) -> Result<Doc, Fail> {
    let mut r = Reader {
        b: text.as_bytes(),
        text,
        i: 0,
        line: 1,
    };
    let mut root = Table::default();
    let mut lines = Vec::new();
    // The table the next keys go into, and the number of its section.
    let mut current: Vec<String> = Vec::new();
    let mut section = 0usize;
    loop {
        r.skip_blank_lines()?;
        let Some(&c) = r.b.get(r.i) else { break };
        if c == b'[' {
            if r.b.get(r.i + 1) == Some(&b'[') {
                return Err(r.fail("arrays of tables (`[[…]]`) are not part of a policy file"));
            }
            let line = r.line;
            r.i += 1;
            r.skip_ws();
            let path = r.key()?;
            r.skip_ws();
            r.expect(b']', "`]` at the end of the table header")?;
            r.end_of_line()?;
            section += 1;
            define_table(&mut root, &path, line)?;
            lines.push((path.clone(), line));
            current = path;
        } else {
            let line = r.line;
            let path = r.key()?;
            r.skip_ws();
            r.expect(b'=', "`=` after the key")?;
            r.skip_ws();
            let value = r.value(&path, 0)?;
            r.end_of_line()?;
            let mut full = current.clone();
            full.extend(path.iter().cloned());
            insert(&mut root, &current, &path, value, section, line)?;
            lines.push((full, line));
        }
    }
    Ok(Doc {
        root: root.into_value(),
        lines,
    })
}

fn shown(path: &[String]) -> String {
    path.join(".")
}

/// Defines the table at `path` by a header: its prefixes are made or descended into
/// (tables, of any origin); the table itself must be new, or made only as a prefix of
/// an earlier header.
fn define_table(root: &mut Table, path: &[String], line: usize) -> Result<(), Fail> {
    let mut t = root;
    for (n, key) in path.iter().enumerate() {
        let last = n + 1 == path.len();
        match t.get_mut(key) {
            None => {
                let origin = if last {
                    Origin::Header
                } else {
                    Origin::Implicit
                };
                t.push(key.clone(), Node::Table(Table::default(), origin));
            }
            Some(Node::Table(_, origin)) if last => {
                if *origin != Origin::Implicit {
                    return Err((line, format!("table [{}] is defined twice", shown(path))));
                }
                *origin = Origin::Header;
            }
            // (TOML 1.0 allows a header under a dotted key's table; the reference reader
            // does not, and neither does this one: stricter is safer for a policy.)
            Some(Node::Table(_, Origin::Dotted(_))) => {
                return Err((
                    line,
                    format!(
                        "`{}` was made by a dotted key: a header cannot add to it",
                        shown(path.get(..=n).unwrap_or(path))
                    ),
                ))
            }
            Some(Node::Table(..)) => {}
            Some(Node::Value(_)) => {
                return Err((
                    line,
                    format!(
                        "`{}` is already a value, not a table",
                        shown(path.get(..=n).unwrap_or(path))
                    ),
                ))
            }
        }
        match t.get_mut(key) {
            Some(Node::Table(inner, _)) => t = inner,
            _ => return Err((line, "internal: a table just made is missing".into())),
        }
    }
    Ok(())
}

/// Adds `key = value` (a dotted key's parts in `key`) to the table at `current`.
fn insert(
    root: &mut Table,
    current: &[String],
    key: &[String],
    value: Value,
    section: usize,
    line: usize,
) -> Result<(), Fail> {
    let mut t = root;
    for k in current {
        match t.get_mut(k) {
            Some(Node::Table(inner, _)) => t = inner,
            _ => return Err((line, "internal: the current table is missing".into())),
        }
    }
    let Some((last, parents)) = key.split_last() else {
        return Err((line, "a key is missing".into()));
    };
    for (n, k) in parents.iter().enumerate() {
        if t.get_mut(k).is_none() {
            t.push(
                k.clone(),
                Node::Table(Table::default(), Origin::Dotted(section)),
            );
        }
        match t.get_mut(k) {
            Some(Node::Table(inner, Origin::Dotted(s))) if *s == section => t = inner,
            Some(Node::Table(..)) => {
                return Err((
                    line,
                    format!(
                        "`{}` adds to a table defined elsewhere",
                        shown(key.get(..=n).unwrap_or(key))
                    ),
                ))
            }
            _ => {
                return Err((
                    line,
                    format!(
                        "`{}` is already a value, not a table",
                        shown(key.get(..=n).unwrap_or(key))
                    ),
                ))
            }
        }
    }
    if t.get_mut(last).is_some() {
        return Err((line, format!("`{}` is defined twice", shown(key))));
    }
    t.push(last.clone(), Node::Value(value));
    Ok(())
}

impl Reader<'_> {
    fn fail(&self, message: &str) -> Fail {
        (self.line, message.to_string())
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn expect(&mut self, c: u8, what: &str) -> Result<(), Fail> {
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            Err(self.fail(&format!("expected {what}")))
        }
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.i += 1;
        }
    }

    /// A comment to the end of its line (not the newline); control characters other
    /// than tab are refused in it, as TOML does.
    fn skip_comment(&mut self) -> Result<(), Fail> {
        if self.peek() != Some(b'#') {
            return Ok(());
        }
        while let Some(c) = self.peek() {
            match c {
                b'\n' => break,
                b'\r' if self.b.get(self.i + 1) == Some(&b'\n') => break,
                b'\t' => {}
                c if c < 0x20 || c == 0x7f => {
                    return Err(self.fail("a control character in a comment"))
                }
                _ => {}
            }
            self.i += 1;
        }
        Ok(())
    }

    /// A newline (`\n` or `\r\n`), counted; false when there is none here.
    fn newline(&mut self) -> Result<bool, Fail> {
        match self.peek() {
            Some(b'\n') => {
                self.i += 1;
                self.line += 1;
                Ok(true)
            }
            Some(b'\r') if self.b.get(self.i + 1) == Some(&b'\n') => {
                self.i += 2;
                self.line += 1;
                Ok(true)
            }
            Some(b'\r') => Err(self.fail("a carriage return not followed by a newline")),
            _ => Ok(false),
        }
    }

    fn skip_blank_lines(&mut self) -> Result<(), Fail> {
        loop {
            self.skip_ws();
            self.skip_comment()?;
            if !self.newline()? {
                return Ok(());
            }
        }
    }

    /// Whitespace, a comment, then a newline or the end of the text.
    fn end_of_line(&mut self) -> Result<(), Fail> {
        self.skip_ws();
        self.skip_comment()?;
        if self.peek().is_none() || self.newline()? {
            Ok(())
        } else {
            Err(self.fail("expected the end of the line after a value"))
        }
    }

    /// A key: bare or quoted parts joined by dots.
    fn key(&mut self) -> Result<Vec<String>, Fail> {
        let mut parts = Vec::new();
        loop {
            let part = match self.peek() {
                Some(q @ (b'"' | b'\'')) => self.string(q, false)?,
                _ => {
                    let start = self.i;
                    while matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
                    {
                        self.i += 1;
                    }
                    if self.i == start {
                        return Err(self.fail("expected a key"));
                    }
                    self.text.get(start..self.i).unwrap_or_default().to_string()
                }
            };
            parts.push(part);
            self.skip_ws();
            if self.peek() != Some(b'.') {
                return Ok(parts);
            }
            self.i += 1;
            self.skip_ws();
        }
    }

    /// A value: a string, an array or an inline table; anything else is refused naming
    /// the key (no policy key takes a number, a boolean or a date).
    fn value(&mut self, key: &[String], depth: usize) -> Result<Value, Fail> {
        if depth > MAX_DEPTH {
            return Err(self.fail("arrays and tables nested too deep"));
        }
        match self.peek() {
            Some(b'"') => {
                let multi = self.b.get(self.i..self.i + 3) == Some(b"\"\"\"");
                self.string(b'"', multi).map(Value::String)
            }
            Some(b'\'') => {
                let multi = self.b.get(self.i..self.i + 3) == Some(b"'''");
                self.string(b'\'', multi).map(Value::String)
            }
            Some(b'[') => self.array(key, depth),
            Some(b'{') => self.inline_table(key, depth),
            _ => {
                let start = self.i;
                while matches!(self.peek(), Some(c) if !matches!(c, b' ' | b'\t' | b'\r' | b'\n' | b',' | b']' | b'}' | b'#'))
                {
                    self.i += 1;
                }
                let token = self.text.get(start..self.i).unwrap_or_default();
                match token {
                    "true" => return Ok(Value::Bool(true)),
                    "false" => return Ok(Value::Bool(false)),
                    _ => {}
                }
                // A decimal integer (`-3`, `1_000`): read, for the key's own error.
                let digits = token.strip_prefix(['+', '-']).unwrap_or(token);
                let integer = !digits.is_empty()
                    && !digits.starts_with('_')
                    && !digits.ends_with('_')
                    && !crate::needle::contains(digits, "__")
                    && digits.bytes().all(|c| c.is_ascii_digit() || c == b'_')
                    && (digits == "0" || !digits.starts_with('0'));
                if let Some(n) = integer
                    .then(|| token.replace('_', "").parse::<i64>().ok())
                    .flatten()
                {
                    return Ok(Value::from(n));
                }
                let token: String = token.chars().take(40).collect();
                Err(self.fail(&format!(
                    "invalid type: `{}` = {token}: a policy file's values are strings \
                     (in quotes), arrays of strings and tables",
                    shown(key)
                )))
            }
        }
    }

    fn array(&mut self, key: &[String], depth: usize) -> Result<Value, Fail> {
        self.i += 1;
        let mut items = Vec::new();
        loop {
            self.skip_blank_lines()?;
            if self.peek() == Some(b']') {
                self.i += 1;
                return Ok(Value::Array(items));
            }
            items.push(self.value(key, depth + 1)?);
            self.skip_blank_lines()?;
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {}
                _ => return Err(self.fail("expected `,` or `]` in an array")),
            }
        }
    }

    fn inline_table(&mut self, key: &[String], depth: usize) -> Result<Value, Fail> {
        self.i += 1;
        let mut t = Table::default();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.i += 1;
            return Ok(Value::Object(Map::new()));
        }
        loop {
            self.skip_ws();
            let line = self.line;
            let k = self.key()?;
            self.skip_ws();
            self.expect(b'=', "`=` after the key")?;
            self.skip_ws();
            let mut full = key.to_vec();
            full.extend(k.iter().cloned());
            let v = self.value(&full, depth + 1)?;
            // Dotted keys inside an inline table add to tables of that table only.
            insert(&mut t, &[], &k, v, 0, line)?;
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Value::Object(t.into_value()));
                }
                _ => return Err(self.fail("expected `,` or `}` in an inline table (on one line)")),
            }
        }
    }

    /// A string: basic (`"…"`, `"""…"""`, with escapes) or literal (`'…'`, `'''…'''`,
    /// none), the quote `q` telling which.
    fn string(&mut self, q: u8, multi: bool) -> Result<String, Fail> {
        self.i += if multi { 3 } else { 1 };
        if multi {
            self.newline()?;
        }
        let basic = q == b'"';
        let mut out = String::new();
        loop {
            let start = self.i;
            while matches!(self.peek(), Some(c) if c != q && !(basic && c == b'\\') && c != b'\n' && c != b'\r' && (c >= 0x20 || c == b'\t') && c != 0x7f)
            {
                self.i += 1;
            }
            out.push_str(self.text.get(start..self.i).unwrap_or_default());
            match self.peek() {
                Some(c) if c == q => {
                    if !multi {
                        self.i += 1;
                        return Ok(out);
                    }
                    if self.close_multi(q, &mut out) {
                        return Ok(out);
                    }
                }
                Some(b'\\') if basic => self.escape(multi, &mut out)?,
                // A newline in a multi-line string is `\n`, written `\r\n` or not.
                Some(b'\n' | b'\r') if multi => {
                    self.newline()?;
                    out.push('\n');
                }
                None | Some(b'\n' | b'\r') => return Err(self.fail("an unterminated string")),
                Some(_) => return Err(self.fail("a control character in a string")),
            }
        }
    }

    /// At a quote inside a multi-line string: the closing three quotes (with up to two
    /// more before them belonging to the string), true; else the quote is content.
    fn close_multi(&mut self, q: u8, out: &mut String) -> bool {
        let mut run = 0;
        while self.b.get(self.i + run) == Some(&q) {
            run += 1;
        }
        if run >= 3 {
            let extra = (run - 3).min(2);
            for _ in 0..extra {
                out.push(char::from(q));
            }
            self.i += 3 + extra;
            return true;
        }
        for _ in 0..run {
            out.push(char::from(q));
        }
        self.i += run;
        false
    }

    fn escape(&mut self, multi: bool, out: &mut String) -> Result<(), Fail> {
        self.i += 1;
        let c = self.peek();
        self.i += 1;
        let ch = match c {
            Some(b'b') => '\u{8}',
            Some(b't') => '\t',
            Some(b'n') => '\n',
            Some(b'f') => '\u{c}',
            Some(b'r') => '\r',
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'u') => return self.unicode(4, out),
            Some(b'U') => return self.unicode(8, out),
            // A line-ending backslash: the newline and the whitespace after it go.
            Some(b' ' | b'\t' | b'\n' | b'\r') if multi => {
                self.i -= 1;
                self.skip_ws();
                if !self.newline()? {
                    return Err(self.fail("a backslash before text on its line"));
                }
                loop {
                    self.skip_ws();
                    if !self.newline()? {
                        return Ok(());
                    }
                }
            }
            _ => return Err(self.fail("an invalid escape in a string")),
        };
        out.push(ch);
        Ok(())
    }

    fn unicode(&mut self, digits: usize, out: &mut String) -> Result<(), Fail> {
        let hex = self
            .text
            .get(self.i..self.i + digits)
            .filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()));
        let ch = hex
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .and_then(char::from_u32)
            .ok_or_else(|| self.fail("an invalid unicode escape in a string"))?;
        self.i += digits;
        out.push(ch);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ours(text: &str) -> Result<Value, Fail> {
        parse(text).map(|d| Value::Object(d.root))
    }

    fn reference(text: &str) -> Result<Value, String> {
        basic_toml::from_str::<Value>(text).map_err(|e| e.to_string())
    }

    #[test]
    fn reads_what_policies_hold() {
        let text = r#"# a policy
workspace = "/home/dev/app"   # trailing comment
default = 'ask'
"quoted key" = "a \"b\" \\ \u00e9 \U0001F600 \t"
a . b = "dotted"

[rules]
allow = [
  "Bash(npm test:*)",  # why
  'Read(C:\docs\**)',
]
deny = []

[tools.my_exec]
family = "shell"
command = ["cmd", "command"]

[tools."odd name"]
family = """
read"""
path = '''
x\y'''
inline = { a = "1", b.c = ["2"] }
"#;
        let v = ours(text).unwrap();
        assert_eq!(v, reference(text).unwrap());
        assert_eq!(v["a"]["b"], "dotted");
        assert_eq!(v["tools"]["odd name"]["family"], "read");
        assert_eq!(v["tools"]["odd name"]["path"], "x\\y");
        let doc = parse(text).unwrap();
        assert_eq!(doc.line(&["rules", "deny"]), Some(12));
        assert_eq!(doc.line(&["tools", "my_exec"]), Some(14));
        assert_eq!(doc.line(&["a", "b"]), Some(5));
    }

    #[test]
    fn refuses_what_toml_forbids_naming_the_line() {
        for (text, line, says) in [
            ("a = 1\na = 2\n", 2, "defined twice"),
            ("[a]\n[a]\n", 2, "defined twice"),
            ("a.b = \"x\"\n[a]\n", 2, "defined twice"),
            ("[a]\nb = \"x\"\n[a.b]\n", 3, "already a value"),
            ("[a.b]\n[a]\nb.c = \"x\"\n", 3, "defined elsewhere"),
            ("x = { a = \"1\" }\n[x]\n", 2, "already a value"),
            ("x = \"a\nb\"\n", 1, "unterminated"),
            ("x = \"\\q\"\n", 1, "invalid escape"),
            ("x = \"\\uD800\"\n", 1, "unicode"),
            ("x = 1.5\n", 1, "invalid type"),
            ("x = 1979-05-27\n", 1, "invalid type"),
            ("x = 0x10\n", 1, "invalid type"),
            ("[[x]]\n", 1, "arrays of tables"),
            ("x = \"a\" \"b\"\n", 1, "end of the line"),
            ("x = [\"a\" \"b\"]\n", 1, "`,` or `]`"),
            ("x = {a = \"1\"\n}\n", 1, "`,` or `}`"),
            ("x = \"a\u{1}\"\n", 1, "control character"),
            ("x = \"a\"\r\ny = \"b\"\rz\n", 2, "carriage return"),
            ("\n\n= \"a\"\n", 3, "expected a key"),
            ("[a\n", 1, "`]`"),
        ] {
            let got = ours(text).err();
            assert!(
                got.as_ref()
                    .is_some_and(|(l, m)| *l == line && m.contains(says)),
                "{text:?}: want line {line} `{says}`, got {got:?}"
            );
            // Where TOML itself refuses it, so does the reference.
            if !says.contains("invalid type") && !says.contains("arrays of tables") {
                assert!(reference(text).is_err(), "{text:?}: the reference reads it");
            }
        }
    }

    /// A policy-like document from random pieces: keys bare, quoted and dotted; strings
    /// of every kind with escapes, quotes and newlines; arrays; inline tables; headers.
    fn doc() -> impl Strategy<Value = String> {
        let key = prop_oneof![
            "[a-z][a-z0-9_-]{0,6}",
            "[a-z]{1,3}\\.[a-z]{1,3}",
            "\"[a-z .'#\\[=]{0,6}\"",
            "'[a-z .\"#\\]=]{0,6}'",
        ];
        let text = "[a-zA-Z0-9 #\\[\\]{}=,.'\"\\\\*:()/~é😀\t-]{0,12}";
        let string = prop_oneof![
            text.prop_map(|t| format!("\"{}\"", t.replace('\\', "\\\\").replace('"', "\\\""))),
            text.prop_map(|t| format!("'{}'", t.replace('\'', ""))),
            text.prop_map(|t| format!(
                "\"\"\"\n{}\n\"\"\"",
                t.replace('\\', "\\\\").replace('"', "\\\"")
            )),
            text.prop_map(|t| format!("'''{}'''", t.replace('\'', ""))),
            Just("\"\\u00e9\\t\\n\\\"\\\\\"".to_string()),
            Just("\"\"\"a \\\n   b\"\"\"".to_string()),
            Just("'''a''b'''".to_string()),
            Just("\"\"\"a\"\"b\"\"\"\"".to_string()),
        ];
        let scalar = prop_oneof![
            4 => string,
            1 => Just("true".to_string()),
            1 => prop_oneof![Just("0"), Just("-12"), Just("1_000"), Just("+7")].prop_map(str::to_string),
        ];
        let value = scalar.prop_recursive(3, 12, 4, move |inner| {
            prop_oneof![
                (
                    proptest::collection::vec(inner.clone(), 0..4),
                    any::<bool>(),
                    any::<bool>()
                )
                    .prop_map(|(items, multi, trailing)| {
                        let sep = if multi { ",\n  # c\n  " } else { ", " };
                        let tail = if trailing && !items.is_empty() {
                            ","
                        } else {
                            ""
                        };
                        format!("[{}{tail}]", items.join(sep))
                    }),
                proptest::collection::vec(("[a-z]{1,3}", inner), 0..3).prop_map(|kv| {
                    let mut seen = std::collections::HashSet::new();
                    let parts: Vec<String> = kv
                        .into_iter()
                        .filter(|(k, _)| seen.insert(k.clone()))
                        .map(|(k, v)| format!("{k} = {v}"))
                        .collect();
                    format!("{{ {} }}", parts.join(", "))
                }),
            ]
        });
        let line = prop_oneof![
            4 => (key.clone(), value).prop_map(|(k, v)| format!("{k} = {v}")),
            1 => key.clone().prop_map(|k| format!("[{k}]")),
            1 => Just("# a comment [x] = \"y\"".to_string()),
            1 => Just(String::new()),
        ];
        proptest::collection::vec(line, 0..10).prop_map(|lines| lines.join("\n") + "\n")
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// Against a general TOML reader: what ours reads, it reads the same; what it
        /// reads, ours reads too unless ours refuses naming a type no policy key takes.
        #[test]
        fn reads_as_the_reference_reads(text in doc()) {
            let (a, b) = (ours(&text), reference(&text));
            match (&a, &b) {
                (Ok(x), Ok(y)) => prop_assert_eq!(x, y, "{}", text),
                (Ok(x), Err(e)) => prop_assert!(false, "{text}\nours read {x}, the reference refused: {e}"),
                (Err(_), Err(_)) => {}
                (Err(e), Ok(y)) => prop_assert!(false, "{text}\nours refused {e:?}, the reference read {y}"),
            }
        }

        /// Any text, including a document cut or with a byte changed: never a value the
        /// reference does not read the same way.
        #[test]
        fn never_reads_what_the_reference_refuses(text in doc(), at in any::<prop::sample::Index>(), cut in any::<bool>(), byte in "[\"'\\[\\]{}=,.#\\\\\n\r a]") {
            let mut t = text.clone();
            let i = at.index(t.len() + 1);
            let i = (0..=i).rev().find(|&i| t.is_char_boundary(i)).unwrap_or(0);
            if cut { t.truncate(i) } else { t.insert_str(i, &byte) }
            if let Ok(x) = ours(&t) {
                prop_assert_eq!(Ok(x), reference(&t), "{}", t);
            }
        }
    }
}
