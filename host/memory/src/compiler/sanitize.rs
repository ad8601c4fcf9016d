//! Sanitisation before anything reaches a prompt: control characters go,
//! line ends and blank runs are normalised, and text that looks like a
//! key or token is redacted. A memory written by a model or pasted by a
//! user may carry a secret; the compiler is the last gate before a
//! provider sees it.

use std::sync::OnceLock;

use regex::{Regex, RegexSet};

/// What a redacted secret becomes.
pub const REDACTED: &str = "[REDACTED]";

/// Secret shapes and what replaces each match. Word boundaries are
/// ASCII (`(?-u:\b)`): Unicode ones keep the regex engine off its fast
/// path, and every shape here is ASCII. The named-assignment
/// pattern keeps the name so the text still reads.
const SECRET_PATTERNS: &[(&str, &str)] = &[
    (
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
        REDACTED,
    ),
    (r"(?-u:\b)(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}", REDACTED),
    (r"(?-u:\b)gh[pousr]_[A-Za-z0-9]{20,}", REDACTED),
    (r"(?-u:\b)github_pat_[A-Za-z0-9_]{20,}", REDACTED),
    (r"(?-u:\b)(?:AKIA|ASIA)[0-9A-Z]{16}(?-u:\b)", REDACTED),
    (r"(?-u:\b)xox[abprs]-[A-Za-z0-9-]{10,}", REDACTED),
    (r"(?-u:\b)AIza[0-9A-Za-z_-]{35}", REDACTED),
    (
        r"(?-u:\b)eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
        REDACTED,
    ),
    (
        r"(?i)(?-u:\b)(bearer\s+)[A-Za-z0-9._~+/-]{16,}=*",
        "${1}[REDACTED]",
    ),
    (
        r#"(?i)(?-u:\b)((?:api[_-]?key|access[_-]?key|secret|token|password|passwd|pwd)\s*[:=]\s*)["']?[^\s"']{8,}["']?"#,
        "${1}[REDACTED]",
    ),
];

struct Redactor {
    any: RegexSet,
    each: Vec<(Regex, &'static str)>,
}

fn redactor() -> &'static Redactor {
    static REDACTOR: OnceLock<Redactor> = OnceLock::new();
    REDACTOR.get_or_init(|| {
        // The patterns are constants covered by the tests below; one that
        // failed to compile would only be skipped.
        let each: Vec<(Regex, &'static str)> = SECRET_PATTERNS
            .iter()
            .filter_map(|(p, with)| Regex::new(p).ok().map(|r| (r, *with)))
            .collect();
        let any = RegexSet::new(each.iter().map(|(r, _)| r.as_str()))
            .unwrap_or_else(|_| RegexSet::empty());
        Redactor { any, each }
    })
}

/// Text made safe for a prompt, and whether a secret was redacted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sanitized {
    pub text: String,
    pub redacted: bool,
}

/// Normalises `text` and redacts secrets in it.
pub fn sanitize(text: &str) -> Sanitized {
    let clean = normalise(text);
    let r = redactor();
    if !r.any.is_match(&clean) {
        return Sanitized {
            text: clean,
            redacted: false,
        };
    }
    let mut out = clean;
    for (pattern, with) in &r.each {
        if pattern.is_match(&out) {
            out = pattern.replace_all(&out, *with).into_owned();
        }
    }
    Sanitized {
        text: out,
        redacted: true,
    }
}

/// CRLF to LF, control characters (but tab and newline) dropped, trailing
/// spaces cut, runs of blank lines folded to one, ends trimmed.
fn normalise(text: &str) -> String {
    if is_normal(text) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut blank_run = 0;
    for line in text.split('\n') {
        let line: String = line
            .chars()
            .filter(|c| *c == '\t' || !c.is_control())
            .collect();
        let line = line.trim_end();
        if line.is_empty() {
            blank_run += 1;
            if blank_run > 1 {
                continue;
            }
        } else {
            blank_run = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim().to_string()
}

/// Whether [`normalise`] would leave `text` as it is: the common case,
/// checked in one pass without allocating.
fn is_normal(text: &str) -> bool {
    if text.trim() != text || text.contains("\n\n\n") {
        return false;
    }
    let mut previous = '\n';
    for c in text.chars() {
        let bad = (c.is_control() && c != '\n' && c != '\t')
            || (c == '\n' && previous != '\n' && previous.is_whitespace());
        if bad {
            return false;
        }
        previous = c;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_tokens_are_redacted() {
        let cases = [
            "use sk-proj-abcdefghijklmnopqrstuvwx now",
            "ghp_abcdefghijklmnopqrstuvwxyz0123",
            "AKIAABCDEFGHIJKLMNOP",
            "xoxb-1234567890-abcdefghij",
            "Authorization: Bearer abcdefghijklmnopqrstuvwxyz",
            "api_key = \"hunter2hunter2\"",
            "PASSWORD: correcthorsebattery",
            "eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2QT4fw",
            "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----",
        ];
        for case in cases {
            let s = sanitize(case);
            assert!(
                s.redacted && s.text.contains(REDACTED),
                "{case} -> {}",
                s.text
            );
        }
        let s = sanitize("token: abcdefghijkl");
        assert_eq!(s.text, "token: [REDACTED]");
    }

    #[test]
    fn ordinary_engineering_text_is_kept() {
        let text = "Run `cargo test -p amber-memory`; the token budget is 2048.\nSee sk-8 notes.";
        let s = sanitize(text);
        assert_eq!((s.text.as_str(), s.redacted), (text, false));
    }

    #[test]
    fn normal_text_is_recognised_without_changing_it() {
        for text in ["a\n\nb", "a\tb", "x", "line one\nline two"] {
            assert!(is_normal(text), "{text:?}");
            assert_eq!(normalise(text), text);
        }
        for text in ["a \nb", "a\r\nb", "a\n\n\nb", " a", "a\u{7}", "a\n \n\nb"] {
            assert!(!is_normal(text), "{text:?}");
        }
    }

    #[test]
    fn control_characters_and_blank_runs_are_normalised() {
        let s = sanitize("  a\u{7}b\r\n\r\n\r\n\r\nc  \n\n");
        assert_eq!(s.text, "ab\n\nc");
        assert_eq!(sanitize(" \u{0}\n\t ").text, "");
    }
}
