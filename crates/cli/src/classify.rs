//! `toolgate classify`: JSON lines of tool calls in, exactly one verdict line out per
//! input line, in order. A line that is not a JSON object — invalid JSON, a blank
//! line, an array, a line over [`MAX_LINE_BYTES`] — gets an `input.malformed` verdict
//! (tier `ask`) naming the line, and the run goes on: line N of the output always
//! answers line N of the input.

use crate::error::CliError;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use toolgate_core::{Policy, Tier, Verdict};

/// Longest input line we hold in memory; the rest of a longer line is skipped.
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// The rule id of a line that is not a tool call.
pub const MALFORMED_RULE: &str = "input.malformed";

/// Classifies every line of `input`, writing verdicts to `out`. Output is flushed
/// whenever the input has nothing more buffered, so a caller that writes one call
/// and waits for its verdict (a co-process) is answered at once, while a batch is
/// written in large blocks. Returns the number of lines.
/// `toolgate classify`'s options.
#[derive(Debug, Clone, clap::Args)]
pub struct ClassifyArgs {
    #[command(flatten)]
    pub policy: crate::load::PolicyOpts,
    #[command(flatten)]
    pub fs: crate::load::FsFlags,
    #[command(flatten)]
    pub sandbox: crate::load::SandboxFlag,
}

pub fn run<R: Read, W: Write>(
    policy: &Policy,
    fs: bool,
    input: &mut BufReader<R>,
    out: &mut W,
) -> Result<u64, CliError> {
    let mut line = Vec::new();
    let mut n: u64 = 0;
    loop {
        line.clear();
        let status = read_line_capped(input, &mut line, MAX_LINE_BYTES)
            .map_err(CliError::io("reading stdin"))?;
        let verdict = match status {
            LineRead::Eof => break,
            LineRead::Line => {
                n += 1;
                verdict_for_line(policy, fs, n, &line)
            }
            LineRead::TooLong => {
                n += 1;
                malformed(n, &format!("longer than {MAX_LINE_BYTES} bytes"))
            }
        };
        write_verdict(out, &verdict).map_err(CliError::io("writing stdout"))?;
        if input.buffer().is_empty() {
            out.flush().map_err(CliError::io("writing stdout"))?;
        }
    }
    out.flush().map_err(CliError::io("writing stdout"))?;
    Ok(n)
}

/// The verdict for one input line (without its line terminator); with `fs`, paths
/// are looked up on this machine ([`crate::fs`]).
pub fn verdict_for_line(policy: &Policy, fs: bool, line_no: u64, line: &[u8]) -> Verdict {
    if line.iter().all(u8::is_ascii_whitespace) {
        return malformed(
            line_no,
            "empty line; expected a JSON tool call {\"tool\":…,\"args\":…}",
        );
    }
    match serde_json::from_slice::<Value>(line) {
        Ok(value @ Value::Object(_)) => toolgate_fs::classify_value(policy, &value, fs),
        Ok(other) => malformed(
            line_no,
            &format!(
                "expected a JSON object {{\"tool\":…,\"args\":…}}, got {}",
                toolgate_core::call::json_kind(&other)
            ),
        ),
        Err(e) => malformed(line_no, &format!("invalid JSON: {e}")),
    }
}

fn malformed(line_no: u64, what: &str) -> Verdict {
    Verdict::new(Tier::Ask, MALFORMED_RULE, format!("line {line_no}: {what}"))
}

fn write_verdict<W: Write>(out: &mut W, verdict: &Verdict) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, verdict).map_err(std::io::Error::from)?;
    out.write_all(b"\n")
}

#[derive(Debug, PartialEq, Eq)]
enum LineRead {
    Eof,
    Line,
    /// Longer than the cap: `buf` holds the first `max` bytes, the rest was skipped.
    TooLong,
}

/// Reads one line (without `\n` or `\r\n`) into `buf`, keeping at most `max` bytes.
fn read_line_capped<R: BufRead>(
    r: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<LineRead> {
    let mut seen_any = false;
    let mut too_long = false;
    loop {
        let available = match r.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            break;
        }
        seen_any = true;
        let (chunk, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], Some(i + 1)),
            None => (available, None),
        };
        let room = max.saturating_sub(buf.len());
        if chunk.len() > room {
            too_long = true;
        }
        buf.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = done.unwrap_or(available.len());
        r.consume(used);
        if done.is_some() {
            break;
        }
    }
    if !seen_any {
        return Ok(LineRead::Eof);
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(if too_long {
        LineRead::TooLong
    } else {
        LineRead::Line
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &str, max: usize) -> Vec<(LineRead, String)> {
        let mut r = BufReader::with_capacity(4, input.as_bytes());
        let mut out = Vec::new();
        loop {
            let mut buf = Vec::new();
            let s = read_line_capped(&mut r, &mut buf, max).unwrap();
            if s == LineRead::Eof {
                return out;
            }
            out.push((s, String::from_utf8(buf).unwrap()));
        }
    }

    #[test]
    fn splits_lines_like_a_text_reader() {
        let l = |s: &str| (LineRead::Line, s.to_string());
        assert_eq!(lines("", 100), vec![]);
        assert_eq!(lines("a\n", 100), vec![l("a")]);
        assert_eq!(lines("a", 100), vec![l("a")]);
        assert_eq!(lines("a\r\n\nbb\n", 100), vec![l("a"), l(""), l("bb")]);
        assert_eq!(
            lines("0123456789\nab\n", 5),
            vec![(LineRead::TooLong, "01234".into()), l("ab")]
        );
    }

    #[test]
    fn one_verdict_per_line_and_malformed_lines_are_named() {
        let policy = Policy::defaults("/home/dev/app", "/home/dev");
        let input = "{\"tool\":\"bash\",\"args\":{\"command\":\"ls\"}}\n\nnot json\n[1]\n{\"tool\":\"read\",\"args\":{\"path\":\"a\"}}";
        let mut out = Vec::new();
        let n = run(
            &policy,
            false,
            &mut BufReader::new(input.as_bytes()),
            &mut out,
        )
        .unwrap();
        assert_eq!(n, 5);
        let got: Vec<Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(got.len(), 5);
        for (i, want) in [
            (1, "line 2: empty line"),
            (2, "line 3: invalid JSON"),
            (3, "line 4: expected a JSON object"),
        ] {
            assert_eq!(got[i]["rule"], MALFORMED_RULE, "line {}", i + 1);
            assert_eq!(got[i]["tier"], "ask", "line {}", i + 1);
            let reason = got[i]["reason"].as_str().unwrap();
            assert!(reason.starts_with(want), "line {}: {reason}", i + 1);
        }
        for i in [0, 4] {
            assert_ne!(got[i]["rule"], MALFORMED_RULE, "line {}", i + 1);
        }
    }
}
