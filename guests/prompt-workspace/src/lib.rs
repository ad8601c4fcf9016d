//! The `workspace` prompt block (seed: "Prompt assembly"): a top-level
//! listing of the workspace, its git branch and today's date, so the model
//! starts every turn knowing where it is. Bundled with amber.

use std::time::{SystemTime, UNIX_EPOCH};

use amber_sdk::prelude::*;
use amber_sdk::{BlockPosition, BlockSpec, RenderContext};

/// Entries listed before the listing is cut.
const MAX_ENTRIES: usize = 60;

#[derive(Default)]
struct Workspace;

impl Plugin for Workspace {
    fn manifest() -> Manifest {
        Manifest::new(
            "prompt-workspace",
            "0.1.0",
            "Tells the model the workspace's top level, git branch and date.",
        )
        .permission(
            Permission::WorkspaceRead,
            "to list the workspace's top level and read .git/HEAD",
        )
    }
}

/// Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
fn civil_date(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn today() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, m, d) = civil_date((secs / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

fn git_branch(root: &str) -> Option<String> {
    let head = std::fs::read_to_string(format!("{root}/.git/HEAD")).ok()?;
    let head = head.trim();
    match head.strip_prefix("ref: refs/heads/") {
        Some(branch) => Some(branch.to_string()),
        None => Some(format!("detached at {}", head.get(..12).unwrap_or(head))),
    }
}

fn listing(root: &str) -> Result<Vec<String>, String> {
    let entries = std::fs::read_dir(root).map_err(|e| format!("cannot list {root}: {e}"))?;
    let mut names: Vec<String> = entries
        .flatten()
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            match e.file_type() {
                Ok(t) if t.is_dir() => format!("{name}/"),
                _ => name,
            }
        })
        .filter(|n| n != ".git/")
        .collect();
    names.sort();
    Ok(names)
}

impl PromptPlugin for Workspace {
    fn blocks(&self) -> Vec<BlockSpec> {
        vec![BlockSpec {
            name: "workspace".into(),
            position: BlockPosition::Head,
            priority: 10,
        }]
    }

    fn render(&mut self, _block: &str, ctx: RenderContext) -> Result<String, String> {
        let Some(root) = ctx.workspace else {
            return Ok(format!("Date: {}", today()));
        };
        let names = listing(&root)?;
        let mut text = format!("Date: {}\n", today());
        if let Some(branch) = git_branch(&root) {
            text.push_str(&format!("Git branch: {branch}\n"));
        }
        text.push_str(&format!("Workspace top level ({} entries):\n", names.len()));
        for name in names.iter().take(MAX_ENTRIES) {
            text.push_str(&format!("  {name}\n"));
        }
        if names.len() > MAX_ENTRIES {
            text.push_str(&format!("  ... and {} more\n", names.len() - MAX_ENTRIES));
        }
        Ok(text)
    }
}

amber_sdk::export!(Workspace: prompt);
