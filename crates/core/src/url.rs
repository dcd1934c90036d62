//! URL checks for fetch tools: schemes, cloud metadata, and SSRF-prone hosts in every
//! spelling (decimal / hex / octal / short IPv4, IPv6 with embedded IPv4, zone ids).

use crate::needle::HasChar;
use std::net::{Ipv4Addr, Ipv6Addr};

/// What a URL is, for the classifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlClass {
    /// `http`/`https` to a public host.
    Public {
        /// The host, lowercase.
        host: String,
    },
    /// Loopback, private, link-local, unique-local, `localhost`, `*.local`, `*.internal`…
    Internal {
        /// The host, lowercase.
        host: String,
        /// Which kind of internal address it is.
        why: &'static str,
    },
    /// A cloud metadata endpoint.
    Metadata {
        /// The host, lowercase.
        host: String,
    },
    /// A scheme other than http/https (`file:`, `javascript:`, `data:`, `ftp:`…).
    Scheme {
        /// The scheme, lowercase, without the colon.
        scheme: String,
    },
    /// Not a URL we can read.
    Malformed {
        /// What is wrong with it.
        why: &'static str,
    },
}

impl UrlClass {
    /// How strict the classifier is with this class: 2 = deny (scheme, metadata),
    /// 1 = ask (internal, malformed), 0 = auto (public).
    fn strictness(&self) -> u8 {
        match self {
            UrlClass::Scheme { .. } | UrlClass::Metadata { .. } => 2,
            UrlClass::Internal { .. } | UrlClass::Malformed { .. } => 1,
            UrlClass::Public { .. } => 0,
        }
    }
}

/// Classifies a URL string: the strictest of its [`url_readings`] (the first of
/// them on a tie, so the WHATWG reading names the host when the readings agree).
pub fn classify_url(url: &str) -> UrlClass {
    let mut best: Option<UrlClass> = None;
    for class in url_readings(url) {
        if best
            .as_ref()
            .is_none_or(|b| class.strictness() > b.strictness())
        {
            best = Some(class);
        }
    }
    best.unwrap_or(UrlClass::Malformed { why: "empty URL" })
}

/// Every plausible reading of a URL, classified, distinct, WHATWG reading first.
///
/// Parsers disagree, and the gate must not be more lenient than the one that fetches:
/// - WHATWG parsers (browsers, Node) first trim leading/trailing C0 controls and
///   spaces and remove every ASCII tab, LF and CR (`http://169.254.\n169.254/`); the
///   text as given (trimmed of whitespace and controls) is read as well;
/// - WHATWG treats `\` as `/` in http(s) URLs, while curl and others keep it literal,
///   so `http://example.com\@127.0.0.1/` has host `example.com` for the one and
///   `127.0.0.1` (after the userinfo `example.com\`) for the other. Both are read;
/// - WHATWG skips any run of `/` and `\` (none included) after a special scheme, so
///   `http:/h/`, `http:h/`, `http:///h/` and `http:\\h/` all reach host `h`; that
///   reading is added to the strict one that wants exactly `//`;
/// - IDNA (UTS-46) maps host spellings such as `。` `．` `｡` to `.`, fullwidth and
///   circled letters to ASCII, and deletes soft hyphens and zero-width characters
///   (see [`map_host`]); the mapped host is read as well as the host as written.
///
/// A caller takes the strictest; the list is never empty.
pub fn url_readings(url: &str) -> Vec<UrlClass> {
    let trimmed = url.trim_matches(|c: char| c <= ' ');
    let whatwg: std::borrow::Cow<str> = if trimmed.contains(['\t', '\n', '\r']) {
        trimmed
            .chars()
            .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
            .collect::<String>()
            .into()
    } else {
        trimmed.into()
    };
    let given = url.trim_matches(|c: char| c.is_whitespace() || c.is_control());
    let mut texts: Vec<&str> = vec![&whatwg];
    if given != whatwg {
        texts.push(given);
    }
    let mut out: Vec<UrlClass> = Vec::with_capacity(4);
    for text in texts {
        let mut push = |c: UrlClass| {
            if !out.contains(&c) {
                out.push(c);
            }
        };
        // Only the readings that can differ are computed: the common `https://host/…`
        // has exactly one (this is on the classifier's hot path).
        let backslash = text.has_char('\\');
        // `scheme:` followed by anything but exactly `//` and a host.
        let odd_slashes = text.split_once(':').is_some_and(|(_, rest)| {
            rest.strip_prefix("//")
                .is_none_or(|host| host.starts_with(['/', '\\']))
        });
        // The mapping only changes non-ASCII characters (possibly percent-encoded).
        let maps: &[bool] = if text.is_ascii() && !text.has_char('%') {
            &[false]
        } else {
            &[false, true]
        };
        for &map in maps {
            push(classify_one(text, Reading::WHATWG_STRICT.map(map)));
            if backslash {
                push(classify_one(text, Reading::LITERAL_BACKSLASH.map(map)));
            }
            if odd_slashes || backslash {
                push(classify_one(text, Reading::WHATWG_SKIP_SLASHES.map(map)));
            }
        }
    }
    out
}

/// How one reading of a URL is parsed.
#[derive(Debug, Clone, Copy)]
struct Reading {
    /// `\` is `/` after the scheme (WHATWG, for special schemes); else a literal character.
    backslash_is_slash: bool,
    /// Any run of `/` (none included) may follow `scheme:`; else exactly `//` must.
    skip_slashes: bool,
    /// The host goes through [`map_host`] (the IDNA mappings that matter here).
    map_host: bool,
}

impl Reading {
    const WHATWG_STRICT: Reading = Reading {
        backslash_is_slash: true,
        skip_slashes: false,
        map_host: false,
    };
    const LITERAL_BACKSLASH: Reading = Reading {
        backslash_is_slash: false,
        skip_slashes: false,
        map_host: false,
    };
    const WHATWG_SKIP_SLASHES: Reading = Reading {
        backslash_is_slash: true,
        skip_slashes: true,
        map_host: false,
    };

    fn map(self, map_host: bool) -> Reading {
        Reading { map_host, ..self }
    }
}

/// The IDNA (UTS-46) mappings a host may use to spell a blocked name or address:
/// `。` (U+3002), `．` (U+FF0E) and `｡` (U+FF61) become `.`; the soft hyphen and the
/// zero-width characters U+200B, U+200C, U+200D, U+2060 and U+FEFF are deleted;
/// fullwidth ASCII (U+FF01..U+FF5E) becomes ASCII and circled letters (U+24B6..U+24E9)
/// become `a`..`z`. Every other character is kept; the caller lowercases.
pub fn map_host(host: &str) -> String {
    host.chars()
        .filter_map(|c| match c {
            '\u{3002}' | '\u{ff61}' => Some('.'),
            '\u{ad}' | '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{2060}' | '\u{feff}' => None,
            '\u{ff01}'..='\u{ff5e}' => char::from_u32(u32::from(c) - 0xfee0),
            '\u{24b6}'..='\u{24cf}' => char::from_u32(u32::from(c) - 0x24b6 + u32::from('a')),
            '\u{24d0}'..='\u{24e9}' => char::from_u32(u32::from(c) - 0x24d0 + u32::from('a')),
            _ => Some(c),
        })
        .collect()
}

/// Classifies one reading (see [`Reading`]) of a URL (already trimmed).
fn classify_one(url: &str, reading: Reading) -> UrlClass {
    let Some((scheme, after_colon)) = url.split_once(':') else {
        return UrlClass::Malformed { why: "no scheme" };
    };
    let valid_scheme = scheme
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !valid_scheme {
        return UrlClass::Malformed { why: "bad scheme" };
    }
    let scheme_lower = scheme.to_ascii_lowercase();
    if scheme_lower != "http" && scheme_lower != "https" {
        return UrlClass::Scheme {
            scheme: scheme_lower,
        };
    }
    // Browsers treat `\` like `/` in special URLs.
    let rest: std::borrow::Cow<str> = if reading.backslash_is_slash && after_colon.has_char('\\') {
        after_colon.replace('\\', "/").into()
    } else {
        after_colon.into()
    };
    let after = if reading.skip_slashes {
        rest.trim_start_matches('/')
    } else {
        let Some(after) = rest.strip_prefix("//") else {
            return UrlClass::Malformed { why: "no host" };
        };
        after.trim_start_matches('/')
    };
    let authority = after.split(['/', '?', '#']).next().unwrap_or("");
    let hostport = match authority.rsplit_once('@') {
        Some((_, hp)) => hp,
        None => authority,
    };
    let host = if let Some(inner) = hostport.strip_prefix('[') {
        match inner.split_once(']') {
            Some((h, _)) => h,
            None => {
                return UrlClass::Malformed {
                    why: "unterminated IPv6 host",
                }
            }
        }
    } else {
        match hostport.rsplit_once(':') {
            Some((h, _)) => h,
            None => hostport,
        }
    };
    let host = percent_decode(host);
    let host = if reading.map_host {
        map_host(&host)
    } else {
        host
    };
    let host = host.to_ascii_lowercase();
    let host = host.trim_end_matches('.').to_string();
    if host.is_empty() {
        return UrlClass::Malformed { why: "empty host" };
    }
    classify_host(host)
}

fn classify_host(host: String) -> UrlClass {
    if host.has_char(':') {
        let addr = host.split('%').next().unwrap_or("");
        return match parse_ipv6(addr) {
            Some(ip) => classify_v6(ip, host),
            None => UrlClass::Malformed {
                why: "bad IPv6 address",
            },
        };
    }
    if let Some(ip) = parse_ipv4_loose(&host) {
        return classify_v4(ip, host);
    }
    if host == "metadata.google.internal" || host == "metadata" || host == "instance-data" {
        return UrlClass::Metadata { host };
    }
    if host == "localhost" || host.ends_with(".localhost") || host == "ip6-localhost" {
        return UrlClass::Internal {
            host,
            why: "localhost",
        };
    }
    for (suffix, why) in [
        (".local", "a .local (mDNS) name"),
        (".internal", "an .internal name"),
        (".localdomain", "a .localdomain name"),
        (".home.arpa", "a home.arpa name"),
        (".lan", "a .lan name"),
        (".intranet", "an .intranet name"),
        (".corp", "a .corp name"),
    ] {
        if host.ends_with(suffix) || Some(host.as_str()) == suffix.strip_prefix('.') {
            return UrlClass::Internal { host, why };
        }
    }
    // DNS names that resolve to the address they spell (nip.io & co).
    for svc in [
        "nip.io",
        "sslip.io",
        "xip.io",
        "localtest.me",
        "lvh.me",
        "traefik.me",
    ] {
        if host == svc
            || host
                .strip_suffix(svc)
                .is_some_and(|before| before.ends_with('.'))
        {
            return UrlClass::Internal {
                host,
                why: "a DNS name that resolves to an address it spells",
            };
        }
    }
    if !host.has_char('.') {
        return UrlClass::Internal {
            host,
            why: "a single-label host name (resolved on the local network)",
        };
    }
    if !host
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
    {
        return UrlClass::Malformed {
            why: "bad host name",
        };
    }
    UrlClass::Public { host }
}

fn classify_v4(ip: Ipv4Addr, host: String) -> UrlClass {
    let o = ip.octets();
    if o == [169, 254, 169, 254] || o == [169, 254, 170, 2] || o == [100, 100, 100, 200] {
        return UrlClass::Metadata { host };
    }
    let why = match o {
        [127, ..] => Some("a loopback address"),
        [10, ..] => Some("a private address"),
        [172, b, ..] if (16..=31).contains(&b) => Some("a private address"),
        [192, 168, ..] => Some("a private address"),
        [169, 254, ..] => Some("a link-local address"),
        [0, ..] => Some("an unspecified address"),
        [100, b, ..] if (64..=127).contains(&b) => Some("a shared (CGNAT) address"),
        [192, 0, 0, _] => Some("an IETF special address"),
        [198, b, ..] if b == 18 || b == 19 => Some("a benchmarking address"),
        [a, ..] if a >= 224 => Some("a multicast or reserved address"),
        _ => None,
    };
    match why {
        Some(why) => UrlClass::Internal { host, why },
        None => UrlClass::Public { host },
    }
}

fn classify_v6(ip: Ipv6Addr, host: String) -> UrlClass {
    let seg = ip.segments();
    if seg == [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254] {
        return UrlClass::Metadata { host };
    }
    // Embedded IPv4: mapped (::ffff:a.b.c.d), compatible (::a.b.c.d), NAT64 (64:ff9b::/96).
    let embeds_v4 = (seg.get(..5).unwrap_or_default() == [0, 0, 0, 0, 0]
        && (seg[5] == 0xffff || seg[5] == 0))
        || seg.get(..6).unwrap_or_default() == [0x64, 0xff9b, 0, 0, 0, 0];
    let embedded = embeds_v4.then(|| {
        Ipv4Addr::new(
            (seg[6] >> 8) as u8,
            seg[6] as u8,
            (seg[7] >> 8) as u8,
            seg[7] as u8,
        )
    });
    if ip.is_loopback() {
        return UrlClass::Internal {
            host,
            why: "a loopback address",
        };
    }
    if ip.is_unspecified() {
        return UrlClass::Internal {
            host,
            why: "an unspecified address",
        };
    }
    if let Some(v4) = embedded {
        return match classify_v4(v4, host.clone()) {
            UrlClass::Public { .. } if seg[5] == 0 => UrlClass::Internal {
                host,
                why: "an IPv4-compatible address",
            },
            other => other,
        };
    }
    let why = match seg[0] {
        s if s & 0xffc0 == 0xfe80 => Some("a link-local address"),
        s if s & 0xfe00 == 0xfc00 => Some("a unique-local address"),
        s if s & 0xffc0 == 0xfec0 => Some("a site-local address"),
        s if s & 0xff00 == 0xff00 => Some("a multicast address"),
        0x2002 => {
            // 6to4 embeds an IPv4 address in segments 1 and 2.
            let v4 = Ipv4Addr::new(
                (seg[1] >> 8) as u8,
                seg[1] as u8,
                (seg[2] >> 8) as u8,
                seg[2] as u8,
            );
            match classify_v4(v4, host.clone()) {
                UrlClass::Public { .. } => None,
                _ => Some("a 6to4 address of an internal IPv4 address"),
            }
        }
        _ => None,
    };
    match why {
        Some(why) => UrlClass::Internal { host, why },
        None => UrlClass::Public { host },
    }
}

/// Parses an IPv6 address exactly as `str::parse::<Ipv6Addr>` does (the grammar of
/// std's `core::net::parser`: up to eight groups of one to four hex digits, one `::`
/// for a run of zero groups, a dotted IPv4 address as the last two groups, strict
/// decimal there: no leading zeros, each part at most 255). Its own code rather than
/// std's parser, which is ~1 KB of the gzipped WebAssembly; a property test compares
/// the two on every kind of text.
pub fn parse_ipv6(s: &str) -> Option<Ipv6Addr> {
    let b = s.as_bytes();
    let mut head = [0u16; 8];
    let (head_len, head_v4, mut at) = ipv6_groups(b, 0, &mut head);
    if head_len == 8 {
        return (at == b.len()).then(|| Ipv6Addr::from(head));
    }
    // An IPv4 part only at the end, never before `::`.
    if head_v4 || b.get(at..at + 2) != Some(b"::") {
        return None;
    }
    at += 2;
    let mut tail = [0u16; 7];
    let room = 8 - (head_len + 1);
    let (tail_len, _, end) = ipv6_groups(b, at, tail.get_mut(..room)?);
    if end != b.len() {
        return None;
    }
    let start = 8 - tail_len;
    head.get_mut(start..)?
        .copy_from_slice(tail.get(..tail_len)?);
    Some(Ipv6Addr::from(head))
}

/// std's `read_groups`: groups from `at` (each after a `:` but the first) into `out`,
/// a dotted IPv4 address tried first where two groups are left; how many were read,
/// whether the last was IPv4, and where reading stopped.
fn ipv6_groups(b: &[u8], mut at: usize, out: &mut [u16]) -> (usize, bool, usize) {
    let limit = out.len();
    for i in 0..limit {
        let sep = if i > 0 {
            if b.get(at) != Some(&b':') {
                return (i, false, at);
            }
            1
        } else {
            0
        };
        if i + 1 < limit {
            if let Some((v4, end)) = dotted_v4(b, at + sep) {
                let [o1, o2, o3, o4] = v4;
                if let Some(pair) = out.get_mut(i..i + 2) {
                    pair.copy_from_slice(&[
                        u16::from_be_bytes([o1, o2]),
                        u16::from_be_bytes([o3, o4]),
                    ]);
                }
                return (i + 2, true, end);
            }
        }
        let mut n: u16 = 0;
        let mut digits = 0;
        while let Some(d) = b
            .get(at + sep + digits)
            .and_then(|&c| (c as char).to_digit(16))
        {
            digits += 1;
            if digits > 4 {
                return (i, false, at);
            }
            n = (n << 4) | d as u16;
        }
        if digits == 0 {
            return (i, false, at);
        }
        if let Some(slot) = out.get_mut(i) {
            *slot = n;
        }
        at += sep + digits;
    }
    (limit, false, at)
}

/// std's strict dotted IPv4 from `at`: four decimal parts of one to three digits, no
/// leading zero, each at most 255; the octets and where it ends.
fn dotted_v4(b: &[u8], mut at: usize) -> Option<([u8; 4], usize)> {
    let mut octets = [0u8; 4];
    for (k, slot) in octets.iter_mut().enumerate() {
        if k > 0 {
            if b.get(at) != Some(&b'.') {
                return None;
            }
            at += 1;
        }
        let mut n: u32 = 0;
        let mut digits = 0;
        while let Some(&c) = b.get(at + digits).filter(|c| c.is_ascii_digit()) {
            digits += 1;
            if digits > 3 {
                return None;
            }
            n = n * 10 + u32::from(c - b'0');
        }
        if digits == 0 || (digits > 1 && b.get(at) == Some(&b'0')) {
            return None;
        }
        *slot = u8::try_from(n).ok()?;
        at += digits;
    }
    Some((octets, at))
}

/// Parses IPv4 the way `inet_aton` (and so browsers and curl) do: 1 to 4 parts, each
/// decimal, `0x` hex or `0` octal; the last part fills the remaining bytes.
pub fn parse_ipv4_loose(host: &str) -> Option<Ipv4Addr> {
    let parts: Vec<&str> = host.split('.').collect();
    if parts.is_empty() || parts.len() > 4 {
        return None;
    }
    let mut nums = Vec::with_capacity(4);
    for p in &parts {
        nums.push(parse_num(p)?);
    }
    let (&last, head) = nums.split_last()?;
    if head.iter().any(|&n| n > 255) {
        return None;
    }
    let rest_bytes = 4 - head.len();
    if rest_bytes < 4 && last >= 1u64 << (8 * rest_bytes) {
        return None;
    }
    if last > u64::from(u32::MAX) {
        return None;
    }
    let mut v: u32 = 0;
    for (i, &n) in head.iter().enumerate() {
        v |= (n as u32) << (24 - 8 * i);
    }
    v |= last as u32;
    Some(Ipv4Addr::from(v))
}

fn parse_num(p: &str) -> Option<u64> {
    if p.is_empty() || p.len() > 32 {
        return None;
    }
    if let Some(hex) = p.strip_prefix("0x").or_else(|| p.strip_prefix("0X")) {
        if hex.is_empty() {
            return Some(0);
        }
        return u64::from_str_radix(hex, 16).ok();
    }
    if let Some(octal) = p.strip_prefix('0').filter(|o| !o.is_empty()) {
        return u64::from_str_radix(octal, 8).ok();
    }
    p.parse::<u64>().ok()
}

fn percent_decode(s: &str) -> String {
    if !s.has_char('%') {
        return s.to_string();
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c == b'%' {
            let hex = b
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok());
            if let Some(v) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// `parse_ipv6` reads exactly what std's `Ipv6Addr` parser reads, to the same
        /// address: texts from the address alphabet, and well-formed addresses (with
        /// `::`, an IPv4 tail, upper-case digits) with one character changed.
        #[test]
        fn parse_ipv6_is_std(
            text in "[0-9a-fA-F:.%x]{0,24}",
            groups in proptest::collection::vec(0u16..=0xffff, 0..9),
            v4 in proptest::option::of((0u8..=255, 0u8..=255, 0u8..=255, 0u8..=255)),
            gap in 0usize..9,
            upper in proptest::bool::ANY,
            edit in (0usize..48, proptest::sample::select(vec!['0', '1', 'f', 'F', ':', '.', '9', 'g', ' '])),
            cut in 0usize..48,
        ) {
            proptest::prop_assert_eq!(parse_ipv6(&text), text.parse::<std::net::Ipv6Addr>().ok(), "{}", text);
            let mut parts: Vec<String> = groups.iter().map(|g| format!("{g:x}")).collect();
            if let Some((a, b, c, d)) = v4 {
                parts.push(format!("{a}.{b}.{c}.{d}"));
            }
            let at = gap.min(parts.len());
            let head = parts.get(..at).unwrap_or_default().join(":");
            let tail = parts.get(at..).unwrap_or_default().join(":");
            let mut addr = if gap < 8 { format!("{head}::{tail}") } else { parts.join(":") };
            if upper {
                addr = addr.to_uppercase();
            }
            proptest::prop_assert_eq!(parse_ipv6(&addr), addr.parse::<std::net::Ipv6Addr>().ok(), "{}", addr);
            let mut chars: Vec<char> = addr.chars().collect();
            if !chars.is_empty() {
                let k = edit.0 % chars.len();
                chars[k] = edit.1;
            }
            let edited: String = chars.iter().collect();
            proptest::prop_assert_eq!(parse_ipv6(&edited), edited.parse::<std::net::Ipv6Addr>().ok(), "{}", edited);
            let short: String = addr.chars().take(cut).collect();
            proptest::prop_assert_eq!(parse_ipv6(&short), short.parse::<std::net::Ipv6Addr>().ok(), "{}", short);
        }
    }

    #[test]
    fn parse_ipv6_edges() {
        for s in [
            "::",
            "::1",
            "1::",
            "1:2:3:4:5:6:7:8",
            "1:2:3:4:5:6:7::",
            "::2:3:4:5:6:7:8",
            "1:2:3:4:5:6:1.2.3.4",
            "::ffff:127.0.0.1",
            "::1.2.3.4",
            "1::1.2.3.4",
            "1:2:3:4:5:6:7:1.2.3.4",
            "1.2.3.4::",
            "1.2.3.4",
            "::01.2.3.4",
            "::1.2.3.256",
            "::1.2.3",
            "12345::",
            "1:::2",
            ":1::",
            "1::2::3",
            "::ffff:0.0.0.0",
            "0:0:0:0:0:0:0:0:0",
            "fe80::1%eth0",
            "::0001",
            "::00001",
            "1:2:3:4:5:6:7:8:",
            "::1.2.3.4.5",
            "1:2:3:4:5:6:7::8",
            "::ABCD",
            "",
        ] {
            assert_eq!(parse_ipv6(s), s.parse::<std::net::Ipv6Addr>().ok(), "{s}");
        }
    }

    #[test]
    fn ipv4_spellings() {
        for s in [
            "2130706433",
            "0x7f000001",
            "0177.0.0.1",
            "127.1",
            "127.0.1",
            "0x7f.1",
        ] {
            assert_eq!(
                parse_ipv4_loose(s),
                Some(Ipv4Addr::new(127, 0, 0, 1)),
                "{s}"
            );
        }
        for s in ["256.1.1.1", "1.2.3.4.5", "example", "1..2", "08.1.1.1"] {
            assert_eq!(parse_ipv4_loose(s), None, "{s}");
        }
    }

    #[test]
    fn classes() {
        let internal = [
            "http://localhost:8080/",
            "http://127.0.0.1/",
            "http://[::1]/",
            "http://[fe80::1%25eth0]/",
            "http://[fd00::1]/",
            "http://2130706433/",
            "http://0x7f000001/",
            "http://0177.0.0.1/",
            "http://[::ffff:127.0.0.1]/",
            "http://[0:0:0:0:0:0:0:1]/",
            "http://a.local/",
            "http://x.internal/",
            "HTTP://LOCALHOST/",
            "http://evil.com@10.0.0.1/",
            "http://127.0.0.1.nip.io/",
            "http://[::ffff:7f00:1]/",
            "http://0/",
            "http://%31%32%37.0.0.1/",
            "http:\\\\127.0.0.1\\",
        ];
        for u in internal {
            assert!(
                matches!(classify_url(u), UrlClass::Internal { .. }),
                "{u}: {:?}",
                classify_url(u)
            );
        }
        for u in [
            "http://169.254.169.254/latest",
            "http://[fd00:ec2::254]/",
            "http://metadata.google.internal/x",
            "http://2852039166/",
            "http://[::ffff:169.254.169.254]/",
        ] {
            assert!(
                matches!(classify_url(u), UrlClass::Metadata { .. }),
                "{u}: {:?}",
                classify_url(u)
            );
        }
        for u in [
            "file:///etc/passwd",
            "javascript:alert(1)",
            "data:text/html,x",
            "ftp://x/y",
            "gopher://x",
        ] {
            assert!(matches!(classify_url(u), UrlClass::Scheme { .. }), "{u}");
        }
        for u in [
            "https://example.com/",
            "http://example.org:8080/p?q",
            "https://api.github.com/",
            "http://8.8.8.8/",
        ] {
            assert!(
                matches!(classify_url(u), UrlClass::Public { .. }),
                "{u}: {:?}",
                classify_url(u)
            );
        }
    }
}
