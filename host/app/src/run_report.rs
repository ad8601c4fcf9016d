//! What a run cost the process, written where the benchmarks and the
//! tests read it: the resident memory (now and at its peak) and which
//! plugins' components were loaded. Both front ends write it on request,
//! through an environment variable naming the file, so the real binary is
//! measured in a real run.

use std::path::Path;

use serde_json::{json, Value};

use crate::App;

/// `amber exec` writes its report here when the run ends.
pub const EXEC_REPORT: &str = "AMBER_EXEC_REPORT";

/// One reading of /proc/PID/status. The report takes every field from
/// the same reading: read apart, a resident set that shrank between two
/// reads can show a peak below the current figure (the kernel computes
/// `VmHWM` as at least `VmRSS` only within one reading).
pub struct ProcStatus(String);

impl ProcStatus {
    /// Reads process `pid` (a number, or `self`: the bench reads another
    /// program's peak this way); empty where the system has no such
    /// file, so every field reads 0.
    pub fn read(pid: &str) -> Self {
        Self(std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default())
    }

    /// A number field (`VmRSS` and `VmHWM` in KiB, `Threads` a count); 0
    /// where the reading has no such field.
    pub fn field(&self, field: &str) -> u64 {
        self.0
            .lines()
            .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    }
}

/// The path of a /proc/PID/smaps mapping header (`range perms offset dev
/// inode [path]`): the whole rest of the line, spaces and all, `[anon]`
/// without one; None for a field line (`Rss:`, `VmFlags:`).
fn mapping_path(line: &str) -> Option<String> {
    let range = line.split_whitespace().next()?;
    if range.ends_with(':') || !range.contains('-') {
        return None;
    }
    // Past the five fields before the path, however they are spaced.
    let mut rest = line;
    for _ in 0..5 {
        rest = rest.trim_start();
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        rest = &rest[end..];
    }
    let path = rest.trim().trim_end_matches(" (deleted)");
    Some(if path.is_empty() { "[anon]" } else { path }.to_string())
}

/// The resident KiB of each mapping of this process, by what it maps (a
/// file's path, `[heap]`, `[anon]` for anonymous memory, which holds the
/// plugins' linear memories and stacks), largest first: where the
/// resident set is, for the profile in docs/performance.md.
pub fn rss_by_mapping() -> Vec<(String, u64)> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap_or_default();
    let mut sums: std::collections::BTreeMap<String, u64> = Default::default();
    let mut current = String::from("[anon]");
    for line in smaps.lines() {
        if let Some(path) = mapping_path(line) {
            current = path;
        } else if let Some(kib) = line.strip_prefix("Rss:") {
            let kib: u64 = kib
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse()
                .unwrap_or(0);
            *sums.entry(current.clone()).or_default() += kib;
        }
    }
    let mut out: Vec<(String, u64)> = sums.into_iter().filter(|(_, kib)| *kib > 0).collect();
    out.sort_by_key(|entry| std::cmp::Reverse(entry.1));
    out
}

/// The report of `app`'s process so far. The memory is read first, so
/// the report's own reading is not in it; `mappings` adds the resident
/// set by mapping, which reads and parses /proc/self/smaps (hundreds of
/// KiB with the instance pool's mappings): left out where the report is
/// timed, as at the TUI's first frame.
pub fn report(app: &App, mappings: bool) -> Value {
    let status = ProcStatus::read("self");
    let mut report = json!({
        "rss_kib": status.field("VmRSS"),
        "peak_rss_kib": status.field("VmHWM"),
        "threads": status.field("Threads"),
    });
    let runtime = app.manager().runtime();
    report["components_loaded"] = json!(runtime.components_loaded());
    report["plugins_loaded"] = json!(runtime.loaded_plugins());
    if mappings {
        let by_mapping: serde_json::Map<String, Value> = rss_by_mapping()
            .into_iter()
            .take(16)
            .map(|(path, kib)| (path, json!(kib)))
            .collect();
        report["rss_kib_by_mapping"] = Value::Object(by_mapping);
    }
    report
}

/// Writes [`report`] to `path`.
pub fn write(app: &App, path: &Path, mappings: bool) -> std::io::Result<()> {
    std::fs::write(path, report(app, mappings).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_has_a_resident_set_and_a_peak_at_least_as_high() {
        let status = ProcStatus::read("self");
        let (now, peak) = (status.field("VmRSS"), status.field("VmHWM"));
        assert!(now > 0, "no VmRSS in /proc/self/status");
        assert!(
            peak >= now,
            "one reading: the peak is at least the current set"
        );
        assert!(status.field("Threads") >= 1);
        assert_eq!(status.field("NoSuchField"), 0);
        let mappings = rss_by_mapping();
        assert!(
            mappings
                .iter()
                .any(|(path, _)| path.contains("run_report") || path.contains("amber_app")),
            "this test binary's own file is among the mappings: {mappings:?}"
        );
    }

    #[test]
    fn mapping_headers_keep_their_whole_path_and_field_lines_are_not_headers() {
        let header = |line| mapping_path(line);
        assert_eq!(
            header("7f00-7f10 r-xp 00000000 fd:01 1234    /home/u/My Apps/amber").as_deref(),
            Some("/home/u/My Apps/amber")
        );
        assert_eq!(
            header("7f00-7f10 rw-p 00000000 00:00 0 ").as_deref(),
            Some("[anon]")
        );
        assert_eq!(
            header("7f00-7f10 r--p 00000000 fd:01 99 /tmp/x.cwasm (deleted)").as_deref(),
            Some("/tmp/x.cwasm")
        );
        for field in [
            "Rss:                 4 kB",
            "VmFlags: rd ex mr mw me",
            "THPeligible:    0",
        ] {
            assert_eq!(header(field), None, "{field}");
        }
    }
}
