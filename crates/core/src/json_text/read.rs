//! JSON text read into a `serde_json::Value` by hand: the same values and the same
//! errors (message, line and column) as `serde_json::from_str::<Value>`, without
//! serde's deserializer (issue 51: serde_json's reader was 17.7 KB of the gzipped
//! WebAssembly module, this one is 5.5 KB).
//!
//! The grammar and the error positions follow serde_json 1's `Deserializer` for a
//! `&str` (de.rs and read.rs): whitespace is space, tab, newline and carriage return; a
//! string refuses control characters and lone surrogates; an integer is a `u64`, or an
//! `i64` when negative, and a float otherwise (`-0` is the float -0.0, as there); a float
//! is the nearest `f64` ([`super::float`], as serde_json's `float_roundtrip`), out of
//! range an error; arrays and objects nest at most 127 deep; a later duplicate key
//! replaces an earlier one. The property tests compare the two on generated and mutated
//! texts.

use serde_json::{Map, Number, Value};
use std::fmt;

/// What went wrong, as serde_json's `ErrorCode` says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Code {
    EofWhileParsingList,
    EofWhileParsingObject,
    EofWhileParsingString,
    EofWhileParsingValue,
    ExpectedColon,
    ExpectedListCommaOrEnd,
    ExpectedObjectCommaOrEnd,
    ExpectedSomeIdent,
    ExpectedSomeValue,
    InvalidEscape,
    InvalidNumber,
    NumberOutOfRange,
    ControlCharacterWhileParsingString,
    KeyMustBeAString,
    LoneLeadingSurrogateInHexEscape,
    TrailingComma,
    TrailingCharacters,
    UnexpectedEndOfHexEscape,
    RecursionLimitExceeded,
}

impl Code {
    fn message(self) -> &'static str {
        match self {
            Code::EofWhileParsingList => "EOF while parsing a list",
            Code::EofWhileParsingObject => "EOF while parsing an object",
            Code::EofWhileParsingString => "EOF while parsing a string",
            Code::EofWhileParsingValue => "EOF while parsing a value",
            Code::ExpectedColon => "expected `:`",
            Code::ExpectedListCommaOrEnd => "expected `,` or `]`",
            Code::ExpectedObjectCommaOrEnd => "expected `,` or `}`",
            Code::ExpectedSomeIdent => "expected ident",
            Code::ExpectedSomeValue => "expected value",
            Code::InvalidEscape => "invalid escape",
            Code::InvalidNumber => "invalid number",
            Code::NumberOutOfRange => "number out of range",
            Code::ControlCharacterWhileParsingString => {
                "control character (\\u0000-\\u001F) found while parsing a string"
            }
            Code::KeyMustBeAString => "key must be a string",
            Code::LoneLeadingSurrogateInHexEscape => "lone leading surrogate in hex escape",
            Code::TrailingComma => "trailing comma",
            Code::TrailingCharacters => "trailing characters",
            Code::UnexpectedEndOfHexEscape => "unexpected end of hex escape",
            Code::RecursionLimitExceeded => "recursion limit exceeded",
        }
    }
}

/// Why a text is not JSON, and where: `Display` is serde_json's error text
/// (`expected value at line 1 column 1`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    code: Code,
    line: usize,
    column: usize,
}

impl JsonError {
    /// The text ended early (serde_json's `Category::Eof`): a truncated document.
    pub fn is_eof(&self) -> bool {
        matches!(
            self.code,
            Code::EofWhileParsingList
                | Code::EofWhileParsingObject
                | Code::EofWhileParsingString
                | Code::EofWhileParsingValue
        )
    }

    /// The message without its position (`expected value`).
    pub fn message(&self) -> &'static str {
        self.code.message()
    }
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = String::with_capacity(80);
        text.push_str(self.code.message());
        text.push_str(" at line ");
        super::push_u64(&mut text, self.line as u64);
        text.push_str(" column ");
        super::push_u64(&mut text, self.column as u64);
        f.write_str(&text)
    }
}

impl std::error::Error for JsonError {}

/// serde_json's recursion limit: the 128th nested array or object is refused.
const DEPTH: u32 = 128;

/// Parses `text` as one JSON value (whitespace around it allowed).
pub fn parse(text: &str) -> Result<Value, JsonError> {
    let mut r = Reader {
        bytes: text.as_bytes(),
        i: 0,
        depth: DEPTH,
        scratch: Vec::new(),
    };
    let value = r.value()?;
    match r.whitespace() {
        Some(_) => Err(r.peek_error(Code::TrailingCharacters)),
        None => Ok(value),
    }
}

struct Reader<'t> {
    bytes: &'t [u8],
    /// The next byte to read.
    i: usize,
    /// Nesting levels left before [`Code::RecursionLimitExceeded`].
    depth: u32,
    /// A string with escapes is decoded here.
    scratch: Vec<u8>,
}

impl Reader<'_> {
    /// An error at the position after the last byte read (serde_json's `error`).
    fn error(&self, code: Code) -> JsonError {
        self.at(self.i, code)
    }

    /// An error at the byte looked at but not read (serde_json's `peek_error`).
    fn peek_error(&self, code: Code) -> JsonError {
        self.at((self.i + 1).min(self.bytes.len()), code)
    }

    /// serde_json's `position_of_index`: the line (from 1) and the bytes before `i` on it.
    fn at(&self, i: usize, code: Code) -> JsonError {
        let before = self.bytes.get(..i).unwrap_or_default();
        let start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
        JsonError {
            code,
            line,
            column: i - start,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.i).copied()
    }

    fn peek_or_null(&self) -> u8 {
        self.peek().unwrap_or(0)
    }

    fn next(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.i += 1;
        Some(b)
    }

    /// Skips whitespace; the next byte, not read.
    fn whitespace(&mut self) -> Option<u8> {
        while let Some(b) = self.peek() {
            if !matches!(b, b' ' | b'\n' | b'\t' | b'\r') {
                return Some(b);
            }
            self.i += 1;
        }
        None
    }

    fn value(&mut self) -> Result<Value, JsonError> {
        let Some(peek) = self.whitespace() else {
            return Err(self.peek_error(Code::EofWhileParsingValue));
        };
        match peek {
            b'n' => self.ident(b"null").map(|()| Value::Null),
            b't' => self.ident(b"true").map(|()| Value::Bool(true)),
            b'f' => self.ident(b"false").map(|()| Value::Bool(false)),
            b'-' => {
                self.i += 1;
                self.number(false)
            }
            b'0'..=b'9' => self.number(true),
            b'"' => {
                self.i += 1;
                self.string().map(Value::String)
            }
            b'[' | b'{' => {
                self.depth -= 1;
                if self.depth == 0 {
                    return Err(self.peek_error(Code::RecursionLimitExceeded));
                }
                self.i += 1;
                let value = if peek == b'[' {
                    self.array()
                } else {
                    self.object()
                };
                self.depth += 1;
                value
            }
            _ => Err(self.peek_error(Code::ExpectedSomeValue)),
        }
    }

    /// `null`, `true` or `false`, its first byte looked at.
    fn ident(&mut self, word: &[u8]) -> Result<(), JsonError> {
        self.i += 1;
        for &expected in word.get(1..).unwrap_or_default() {
            match self.next() {
                None => return Err(self.error(Code::EofWhileParsingValue)),
                Some(b) if b != expected => return Err(self.error(Code::ExpectedSomeIdent)),
                Some(_) => {}
            }
        }
        Ok(())
    }

    fn array(&mut self) -> Result<Value, JsonError> {
        let mut items = Vec::new();
        loop {
            let Some(peek) = self.whitespace() else {
                return Err(self.peek_error(Code::EofWhileParsingList));
            };
            if peek == b']' {
                self.i += 1;
                return Ok(Value::Array(items));
            }
            if !items.is_empty() {
                if peek != b',' {
                    return Err(self.peek_error(Code::ExpectedListCommaOrEnd));
                }
                self.i += 1;
                match self.whitespace() {
                    Some(b']') => return Err(self.peek_error(Code::TrailingComma)),
                    Some(_) => {}
                    None => return Err(self.peek_error(Code::EofWhileParsingValue)),
                }
            }
            items.push(self.value()?);
        }
    }

    fn object(&mut self) -> Result<Value, JsonError> {
        let mut map = Map::new();
        let mut first = true;
        loop {
            let Some(peek) = self.whitespace() else {
                return Err(self.peek_error(Code::EofWhileParsingObject));
            };
            if peek == b'}' {
                self.i += 1;
                return Ok(Value::Object(map));
            }
            if first {
                if peek != b'"' {
                    return Err(self.peek_error(Code::KeyMustBeAString));
                }
                first = false;
            } else {
                if peek != b',' {
                    return Err(self.peek_error(Code::ExpectedObjectCommaOrEnd));
                }
                self.i += 1;
                match self.whitespace() {
                    Some(b'"') => {}
                    Some(b'}') => return Err(self.peek_error(Code::TrailingComma)),
                    Some(_) => return Err(self.peek_error(Code::KeyMustBeAString)),
                    None => return Err(self.peek_error(Code::EofWhileParsingValue)),
                }
            }
            self.i += 1;
            let key = self.string()?;
            match self.whitespace() {
                Some(b':') => self.i += 1,
                Some(_) => return Err(self.peek_error(Code::ExpectedColon)),
                None => return Err(self.peek_error(Code::EofWhileParsingObject)),
            }
            let value = self.value()?;
            map.insert(key, value);
        }
    }

    /// A string's contents, its opening quote read.
    fn string(&mut self) -> Result<String, JsonError> {
        self.scratch.clear();
        let mut start = self.i;
        loop {
            let Some(&b) = self.bytes.get(self.i) else {
                return Err(self.error(Code::EofWhileParsingString));
            };
            match b {
                b'"' => {
                    let tail = self.bytes.get(start..self.i).unwrap_or_default();
                    self.i += 1;
                    let bytes = if self.scratch.is_empty() {
                        tail.to_vec()
                    } else {
                        self.scratch.extend_from_slice(tail);
                        std::mem::take(&mut self.scratch)
                    };
                    // The text was a `str` and escapes decode to whole characters, so
                    // this cannot fail; were it to, the text is refused, never read as
                    // an empty string.
                    return String::from_utf8(bytes).map_err(|_| self.error(Code::InvalidEscape));
                }
                b'\\' => {
                    let run = self.bytes.get(start..self.i).unwrap_or_default();
                    self.scratch.extend_from_slice(run);
                    self.i += 1;
                    self.escape()?;
                    start = self.i;
                }
                0..=0x1f => {
                    self.i += 1;
                    return Err(self.error(Code::ControlCharacterWhileParsingString));
                }
                _ => self.i += 1,
            }
        }
    }

    /// One escape, its backslash read, appended to the scratch.
    fn escape(&mut self) -> Result<(), JsonError> {
        let Some(b) = self.next() else {
            return Err(self.error(Code::EofWhileParsingString));
        };
        let short = match b {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => return self.unicode_escape(),
            _ => return Err(self.error(Code::InvalidEscape)),
        };
        self.scratch.push(short);
        Ok(())
    }

    /// Four hex digits after `\u`.
    fn hex4(&mut self) -> Result<u32, JsonError> {
        let Some(digits) = self.bytes.get(self.i..self.i + 4) else {
            self.i = self.bytes.len();
            return Err(self.error(Code::EofWhileParsingString));
        };
        self.i += 4;
        let mut n = 0;
        for &d in digits {
            let v = match d {
                b'0'..=b'9' => d - b'0',
                b'a'..=b'f' => d - b'a' + 10,
                b'A'..=b'F' => d - b'A' + 10,
                _ => return Err(self.error(Code::InvalidEscape)),
            };
            n = n * 16 + u32::from(v);
        }
        Ok(n)
    }

    /// `\uXXXX`, `u` read: a character, or a surrogate pair as one.
    fn unicode_escape(&mut self) -> Result<(), JsonError> {
        let n = self.hex4()?;
        let c = match n {
            0xDC00..=0xDFFF => return Err(self.error(Code::LoneLeadingSurrogateInHexEscape)),
            0xD800..=0xDBFF => {
                for expected in [b'\\', b'u'] {
                    match self.next() {
                        None => return Err(self.error(Code::EofWhileParsingString)),
                        Some(b) if b != expected => {
                            return Err(self.error(Code::UnexpectedEndOfHexEscape))
                        }
                        Some(_) => {}
                    }
                }
                let low = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return Err(self.error(Code::LoneLeadingSurrogateInHexEscape));
                }
                0x1_0000 + ((n - 0xD800) << 10) + (low - 0xDC00)
            }
            _ => n,
        };
        let c = char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER);
        let mut buf = [0; 4];
        self.scratch
            .extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        Ok(())
    }

    /// A number, its sign read: `u64`, negative `i64`, or the nearest `f64`.
    fn number(&mut self, positive: bool) -> Result<Value, JsonError> {
        let int_start = self.i;
        match self.next() {
            None => return Err(self.error(Code::EofWhileParsingValue)),
            Some(b'0') => {
                if self.peek_or_null().is_ascii_digit() {
                    return Err(self.peek_error(Code::InvalidNumber));
                }
            }
            Some(b'1'..=b'9') => self.digits(),
            Some(_) => return Err(self.error(Code::InvalidNumber)),
        }
        let int = self.bytes.get(int_start..self.i).unwrap_or_default();
        let mut frac: &[u8] = &[];
        if self.peek() == Some(b'.') {
            self.i += 1;
            let start = self.i;
            self.digits();
            if self.i == start {
                return Err(match self.peek() {
                    Some(_) => self.peek_error(Code::InvalidNumber),
                    None => self.peek_error(Code::EofWhileParsingValue),
                });
            }
            frac = self.bytes.get(start..self.i).unwrap_or_default();
        }
        let mut exp: i64 = 0;
        let mut has_exp = false;
        if let Some(b'e' | b'E') = self.peek() {
            has_exp = true;
            self.i += 1;
            let exp_positive = match self.peek() {
                Some(b'+') => {
                    self.i += 1;
                    true
                }
                Some(b'-') => {
                    self.i += 1;
                    false
                }
                _ => true,
            };
            match self.next() {
                None => return Err(self.error(Code::EofWhileParsingValue)),
                Some(d @ b'0'..=b'9') => exp = i64::from(d - b'0'),
                Some(_) => return Err(self.error(Code::InvalidNumber)),
            }
            while let Some(d @ b'0'..=b'9') = self.peek() {
                self.i += 1;
                exp = exp * 10 + i64::from(d - b'0');
                if exp > i64::from(i32::MAX) {
                    // serde_json stops at an exponent past i32: an error for a
                    // non-zero number growing, zero otherwise.
                    let zero = int.iter().chain(frac).all(|&d| d == b'0');
                    if !zero && exp_positive {
                        return Err(self.error(Code::NumberOutOfRange));
                    }
                    self.digits();
                    return Ok(float(if positive { 0.0 } else { -0.0 }));
                }
            }
            if !exp_positive {
                exp = -exp;
            }
        }
        if frac.is_empty() && !has_exp {
            if let Some(n) = small_integer(int) {
                return Ok(match (positive, n) {
                    (true, n) => Value::Number(n.into()),
                    (false, 0) => float(-0.0),
                    (false, n) => match i64::try_from(n) {
                        Ok(n) => Value::Number((-n).into()),
                        // -2^63 is an i64; anything below it a float, as serde_json.
                        Err(_) if n == 1 << 63 => Value::Number(i64::MIN.into()),
                        Err(_) => float(-(n as f64)),
                    },
                });
            }
        }
        let f = super::float::decimal_to_f64(int, frac, exp);
        if f.is_infinite() {
            return Err(self.error(Code::NumberOutOfRange));
        }
        Ok(float(if positive { f } else { -f }))
    }

    fn digits(&mut self) {
        while self.peek_or_null().is_ascii_digit() {
            self.i += 1;
        }
    }
}

/// An integer's digits as a `u64`, or `None` past `u64::MAX`.
fn small_integer(digits: &[u8]) -> Option<u64> {
    let mut n: u64 = 0;
    for &d in digits {
        n = n.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
    }
    Some(n)
}

fn float(f: f64) -> Value {
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}
