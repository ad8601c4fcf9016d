//! `amber coverage`: what a session's agents have read of the workspace,
//! per file (docs/coverage.md), and `amber coverage digest`: the restore
//! digest a compacted session is given, as markdown, JSON, or a
//! SessionStart hook's output for another agent.

use std::io::Read as _;

use amber_app::coverage::{journal_path, IndexSymbols};
use amber_app::{coverage_query, host, session};
use amber_core::project::ProjectRoot;
use amber_coverage::{classify, Freshness};
use amber_runtime::AmberDirs;
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use serde_json::json;

use super::print_json;

#[derive(Args)]
pub struct CoverageArgs {
    #[command(subcommand)]
    action: Option<CoverageAction>,
    /// The session (default: the workspace's latest; see `amber sessions list`).
    #[arg(long, global = true)]
    session: Option<String>,
    /// Only the agents whose id starts with PREFIX: `main`, `task` (every
    /// sub-agent), `task-2`.
    #[arg(long, value_name = "PREFIX")]
    agent: Option<String>,
    /// table for people, json for scripts.
    #[arg(long, value_enum, default_value = "table")]
    format: ReportFormat,
    /// JSON for scripts: `--format json` (for `digest` too), as every
    /// command with JSON output takes it.
    #[arg(long, global = true)]
    json: bool,
    /// Only the reads that are stale (changed since) or gone.
    #[arg(long)]
    stale: bool,
    /// Most covered first, or by path.
    #[arg(long, value_enum, default_value = "coverage")]
    sort: SortBy,
}

#[derive(Subcommand)]
enum CoverageAction {
    /// The restore digest: what the session had read, fresh or stale, the
    /// freshest and deepest first, within a token budget.
    ///
    /// `--format hook` prints a SessionStart hook's output and, without
    /// `--session`, reads the session id from the hook's JSON on stdin
    /// (`{"session_id": "…"}`), so another agent's hook can call it.
    Digest {
        /// md for the model or a person, json for scripts, hook for a
        /// SessionStart hook (`{"hookSpecificOutput": …}`).
        #[arg(long, value_enum, default_value = "md")]
        format: DigestFormat,
        /// The budget in tokens.
        #[arg(long, default_value_t = amber_coverage::digest::DEFAULT_BUDGET)]
        budget: usize,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum ReportFormat {
    Table,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum DigestFormat {
    Md,
    Json,
    Hook,
}

#[derive(Clone, Copy, ValueEnum)]
enum SortBy {
    Coverage,
    Path,
}

/// The session asked for: `--session`, the hook's stdin, or the latest.
fn session_id(
    dirs: &AmberDirs,
    args: &CoverageArgs,
    project: &ProjectRoot,
    from_stdin: bool,
) -> Result<String> {
    if let Some(id) = &args.session {
        return Ok(id.clone());
    }
    if from_stdin {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("cannot read the hook's JSON from stdin")?;
        let value: serde_json::Value =
            serde_json::from_str(&text).context("the hook's stdin is not JSON")?;
        if let Some(id) = value["session_id"].as_str() {
            return Ok(id.to_string());
        }
        bail!("the hook's JSON has no `session_id`");
    }
    session::latest_in_workspace(dirs, project)?
        .context("no session in this workspace yet (start one with `amber` or `amber exec`)")
}

pub fn run(
    host: &amber_app::host::Host,
    mut args: CoverageArgs,
    project: &ProjectRoot,
) -> Result<()> {
    let dirs = &host.dirs;
    let workspace = project.root.as_path();
    let hook = matches!(
        args.action,
        Some(CoverageAction::Digest {
            format: DigestFormat::Hook,
            ..
        })
    );
    let id = session_id(dirs, &args, project, hook)?;
    let Some(journaled) = coverage_query::journaled(dirs, workspace, &id)? else {
        if hook {
            // Another agent's session amber never saw: nothing to restore,
            // and nothing the hook should inject.
            return print_json(&json!({}));
        }
        bail!(
            "session {id} has no read coverage in this workspace (no {})",
            journal_path(dirs, workspace, &id).display()
        );
    };
    let manager = amber_app::host::loaded(host, workspace)?;
    let parsers = host::parsers(&manager)?;
    if args.json {
        args.format = ReportFormat::Json;
        if let Some(CoverageAction::Digest { format, .. }) = &mut args.action {
            *format = DigestFormat::Json;
        }
    }
    if let Some(CoverageAction::Digest { format, budget }) = args.action {
        let fallback = IndexSymbols::new(workspace, parsers.clone(), &dirs.cache);
        let digest = coverage_query::digest(&journaled, &fallback, budget);
        return match format {
            DigestFormat::Md => {
                print!("{}", digest.markdown());
                Ok(())
            }
            DigestFormat::Json => print_json(&json!({ "session": id, "digest": digest })),
            DigestFormat::Hook if digest.is_empty() => print_json(&json!({})),
            DigestFormat::Hook => print_json(&digest.hook()),
        };
    }
    let bar = indicatif::ProgressBar::new(0);
    if matches!(args.format, ReportFormat::Json) {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let (files, source) = coverage_query::indexed(workspace, parsers, &dirs.cache, &|p| {
        bar.set_length(p.total as u64);
        bar.set_position(p.done as u64);
    });
    bar.finish_and_clear();
    if args.stale {
        let stale: Vec<_> = classify(&journaled.ledger, args.agent.as_deref(), &source)
            .into_iter()
            .filter(|r| r.freshness != Freshness::Fresh)
            .collect();
        if matches!(args.format, ReportFormat::Json) {
            return print_json(&json!({ "session": id, "stale": stale }));
        }
        if stale.is_empty() {
            println!("nothing read in session {id} has changed since");
        }
        for r in stale {
            let what = match r.freshness {
                Freshness::Gone => "gone",
                _ => "changed",
            };
            println!(
                "{what:<8} {:<10} {}  (read by {} in turn {})",
                r.depth.label(),
                r.symbol,
                r.agent,
                r.turn
            );
        }
        return Ok(());
    }
    let mut rows = coverage_query::file_rows(&journaled, files, &source, args.agent.as_deref());
    let (malformed, unmapped) = (journaled.malformed, journaled.unmapped);
    if matches!(args.sort, SortBy::Path) {
        rows.sort_by(|a, b| a.path.cmp(&b.path));
    }
    if matches!(args.format, ReportFormat::Json) {
        let files: Vec<_> = rows
            .iter()
            .map(|r| {
                json!({
                    "path": r.path, "seen": r.seen, "total": r.total,
                    "seen_percent": r.seen_percent(), "full_body": r.full_body,
                    "full_body_percent": r.full_body_percent(),
                })
            })
            .collect();
        return print_json(&json!({
            "session": id,
            "journal": journaled.journal,
            "files": files,
            "malformed_lines": malformed,
            "unmapped_calls": unmapped,
        }));
    }
    println!("{:<50} {:>12} {:>6}", "FILE", "SEEN", "FULL");
    for r in &rows {
        println!(
            "{:<50} {:>5}/{:<3} {:>3.0}% {:>5.0}%",
            r.path,
            r.seen,
            r.total,
            r.seen_percent(),
            r.full_body_percent()
        );
    }
    println!(
        "session {id}: {} files; {} malformed journal lines skipped, {} calls of unmapped tools",
        rows.len(),
        malformed,
        unmapped
    );
    Ok(())
}
