//! `cargo xtask doctor-deps`: whether the pinned wasmtime line still gets
//! security fixes. The windows are recorded here with their sources
//! (docs/runtime.md says how each was found); `cargo xtask test` prints
//! the same line. It warns and never fails: a build on an old line still
//! works, it only stops getting fixes.

use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};

use crate::root;

/// One release line's security support, as recorded.
struct Window {
    krate: &'static str,
    /// The major version: wasmtime numbers a line by it.
    line: u64,
    released: &'static str,
    /// The last day it gets security fixes.
    ends: &'static str,
    lts: bool,
}

/// wasmtime's policy (docs/stability-release.md in its repository): "Each
/// release that is a multiple of 12 is considered an LTS release and is
/// supported for 24 months. Other releases are supported for 2 months."
/// A line is released on the 20th of its month.
const WINDOWS: &[Window] = &[
    Window {
        krate: "wasmtime",
        line: 36,
        released: "2025-08-20",
        ends: "2027-08-20",
        lts: true,
    },
    Window {
        krate: "wasmtime",
        line: 48,
        released: "2026-08-20",
        ends: "2028-08-20",
        lts: true,
    },
    Window {
        krate: "wasmtime",
        line: 50,
        released: "2026-10-20",
        ends: "2026-12-20",
        lts: false,
    },
    Window {
        krate: "wasmtime",
        line: 51,
        released: "2026-11-20",
        ends: "2027-01-20",
        lts: false,
    },
];

/// Days before the end of support that a warning starts.
const WARN_DAYS: i64 = 30;

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `YYYY-MM-DD` as days since the epoch.
fn parse_date(text: &str) -> Option<i64> {
    let mut parts = text.splitn(3, '-').map(|p| p.parse::<i64>().ok());
    let (y, m, d) = (parts.next()??, parts.next()??, parts.next()??);
    ((1..=12).contains(&m) && (1..=31).contains(&d)).then(|| days_from_civil(y, m, d))
}

fn today() -> i64 {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    (secs / 86_400) as i64
}

/// The version of `krate` that Cargo.lock pins.
fn locked_version(lock: &str, krate: &str) -> Option<String> {
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == format!("name = \"{krate}\"") {
            let version = lines.next()?.trim().strip_prefix("version = \"")?;
            return Some(version.trim_end_matches('"').to_string());
        }
    }
    None
}

/// The line to print for `version` of `krate` on day `today`; a warning
/// starts with `warning:`.
fn verdict(krate: &str, version: &str, today: i64) -> String {
    let line: Option<u64> = version.split('.').next().and_then(|m| m.parse().ok());
    let Some(window) = WINDOWS
        .iter()
        .find(|w| w.krate == krate && Some(w.line) == line)
    else {
        return format!("warning: no support window is recorded for {krate} {version}; add its line to xtask/src/deps_support.rs with its source (docs/runtime.md)");
    };
    let Some(ends) = parse_date(window.ends) else {
        return format!(
            "warning: the recorded end of {krate} {}.x is not a date",
            window.line
        );
    };
    let kind = if window.lts { "LTS line" } else { "line" };
    let left = ends - today;
    if left < 0 {
        format!("warning: {krate} {version}: security support of the {}.x {kind} (released {}) ended on {}; move to a supported line (docs/runtime.md)", window.line, window.released, window.ends)
    } else if left <= WARN_DAYS {
        format!("warning: {krate} {version}: security support of the {}.x {kind} ends on {}, in {left} days; move to a supported line (docs/runtime.md)", window.line, window.ends)
    } else {
        format!(
            "{krate} {version}: the {}.x {kind} gets security fixes until {} ({left} days)",
            window.line, window.ends
        )
    }
}

/// Prints the pinned runtime's support line; never fails on a warning.
pub fn report() -> Result<()> {
    let lock =
        std::fs::read_to_string(root().join("Cargo.lock")).context("cannot read Cargo.lock")?;
    match locked_version(&lock, "wasmtime") {
        Some(version) => eprintln!("xtask: {}", verdict("wasmtime", &version, today())),
        None => eprintln!("xtask: warning: Cargo.lock pins no wasmtime"),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_count_days_from_the_epoch() {
        assert_eq!(parse_date("1970-01-01"), Some(0));
        assert_eq!(parse_date("2000-03-01"), Some(11_017));
        assert_eq!(parse_date("2026-12-20"), Some(20_807));
        assert_eq!(parse_date("2026-13-01"), None);
    }

    #[test]
    fn a_line_warns_within_thirty_days_of_its_end_and_after_it() {
        let day = |d: &str| parse_date(d).unwrap();
        let warned = |text: &str| text.starts_with("warning:");
        let text = verdict("wasmtime", "50.0.2", day("2026-10-25"));
        assert!(!warned(&text), "{text}");
        let text = verdict("wasmtime", "50.0.2", day("2026-12-04"));
        assert!(
            warned(&text) && text.contains("ends on 2026-12-20, in 16 days"),
            "{text}"
        );
        let text = verdict("wasmtime", "50.0.2", day("2027-01-02"));
        assert!(
            warned(&text) && text.contains("ended on 2026-12-20"),
            "{text}"
        );
        let text = verdict("wasmtime", "48.0.10", day("2026-12-04"));
        assert!(!warned(&text) && text.contains("LTS line"), "{text}");
        let text = verdict("wasmtime", "99.0.0", day("2026-12-04"));
        assert!(
            warned(&text) && text.contains("no support window"),
            "{text}"
        );
    }

    #[test]
    fn the_lock_file_names_the_pinned_version() {
        let lock = "[[package]]\nname = \"wasmtime-wasi\"\nversion = \"1.0.0\"\n\n[[package]]\nname = \"wasmtime\"\nversion = \"48.0.10\"\n";
        assert_eq!(locked_version(lock, "wasmtime").as_deref(), Some("48.0.10"));
        assert_eq!(locked_version(lock, "nothing"), None);
    }
}
