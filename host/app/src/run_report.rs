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

/// A field of /proc/self/status in KiB (`VmRSS`, `VmHWM`); 0 where the
/// system has no such file.
pub fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// The resident KiB of each mapping of this process, by what it maps (a
/// file's path, `[heap]`, `[anon]` for anonymous memory, which holds the
/// plugins' linear memories and stacks), largest first: where the
/// resident set is, for the profile in docs/performance.md.
pub fn rss_by_mapping() -> Vec<(String, u64)> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap_or_default();
    let mut sums: std::collections::BTreeMap<String, u64> = Default::default();
    let mut current = String::new();
    for line in smaps.lines() {
        let first = line.split_whitespace().next().unwrap_or_default();
        if first.contains('-') && !first.ends_with(':') {
            // A mapping's header: range perms offset dev inode [path].
            let path = line.split_whitespace().nth(5).unwrap_or("[anon]");
            current = path.to_string();
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

/// The report of `app`'s process so far.
pub fn report(app: &App) -> Value {
    let runtime = app.manager().runtime();
    let mappings: serde_json::Map<String, Value> = rss_by_mapping()
        .into_iter()
        .take(16)
        .map(|(path, kib)| (path, json!(kib)))
        .collect();
    json!({
        "rss_kib": status_kib("VmRSS"),
        "peak_rss_kib": status_kib("VmHWM"),
        "threads": status_kib("Threads"),
        "components_loaded": runtime.components_loaded(),
        "plugins_loaded": runtime.loaded_plugins(),
        "rss_kib_by_mapping": mappings,
    })
}

/// Writes [`report`] to `path`.
pub fn write(app: &App, path: &Path) -> std::io::Result<()> {
    std::fs::write(path, report(app).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_has_a_resident_set_and_a_peak_at_least_as_high() {
        let (now, peak) = (status_kib("VmRSS"), status_kib("VmHWM"));
        assert!(now > 0, "no VmRSS in /proc/self/status");
        assert!(peak >= now);
        assert_eq!(status_kib("NoSuchField"), 0);
        let mappings = rss_by_mapping();
        assert!(
            mappings
                .iter()
                .any(|(path, _)| path.contains("run_report") || path.contains("amber_app")),
            "this test binary's own file is among the mappings: {mappings:?}"
        );
    }
}
