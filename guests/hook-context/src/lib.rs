//! hook-context: a `session-start` hook that tells the model where the
//! workspace stands: the branch and changed files (`git status --short
//! --branch`, through `exec`) and the tests that failed last.
//!
//! Failing tests come from `.amber/failing-tests`, one test name a line,
//! which the user's test runner (or a wrapper script around it) writes; a
//! missing file means none are known. amber does not write it, and the
//! names are passed on as they are.
//!
//! Each list is capped, with a line saying how many were left out, so a
//! dirty tree cannot fill the context. A part it cannot get (exec or the
//! workspace not granted, not a git repository) is left out with a log
//! line; a session never fails to start because of this hook.
use std::borrow::Cow;

use amber_sdk::prelude::*;
use amber_sdk::{log, LogLevel, StartSource};

/// Where the user's test runner leaves the failing tests, in the workspace.
const FAILING_TESTS: &str = ".amber/failing-tests";
const STATUS: &str = "git status --short --branch";
/// The changed files shown (the branch line is always shown).
const MAX_CHANGED: usize = 20;
const MAX_TESTS: usize = 10;
/// Longer lines are cut: a test name or path, not a paragraph.
const MAX_LINE_CHARS: usize = 200;
/// git status answers in milliseconds; a hung one must not hold the start.
const TIMEOUT_MS: u32 = 5_000;

#[derive(Default)]
struct Context;

impl Plugin for Context {
    fn manifest() -> Manifest {
        amber_sdk::manifest!()
            .permission(
                Permission::Exec,
                "to run `git status --short --branch` in the workspace when a session starts",
            )
            .permission(
                Permission::WorkspaceRead,
                "to read .amber/failing-tests, the failing tests your test runner lists there",
            )
    }
}

impl HookPlugin for Context {
    fn hooks(&self) -> Vec<HookSpec> {
        vec![HookSpec::on(HookEvent::SessionStart)]
    }

    fn session_start(
        &mut self,
        _ctx: &HookContext,
        _source: StartSource,
    ) -> Result<Option<String>, String> {
        // After a resume or a compaction the model has lost track too, so
        // every start gets the same report.
        let parts: Vec<String> = [git_status(), failing_tests()]
            .into_iter()
            .flatten()
            .collect();
        Ok((!parts.is_empty()).then(|| parts.join("\n\n")))
    }
}

/// The branch and the changed files, or None (logged) when git cannot say.
fn git_status() -> Option<String> {
    let out = match amber_sdk::exec::run(STATUS, None, Some(TIMEOUT_MS)) {
        Ok(out) => out,
        Err(why) => {
            log(LogLevel::Info, &format!("no git status: {why}"));
            return None;
        }
    };
    if out.timed_out || out.exit_code != Some(0) {
        let said = out.stderr.trim();
        log(LogLevel::Info, &format!("`{STATUS}` failed: {said}"));
        return None;
    }
    let mut lines = out.stdout.lines().filter(|l| !l.trim().is_empty());
    let branch = lines.next()?;
    let changed: Vec<&str> = lines.collect();
    let mut text = format!("Git status at session start:\n{}", short(branch));
    if changed.is_empty() {
        text.push_str("\nclean: nothing to commit");
    } else {
        push_capped(&mut text, &changed, MAX_CHANGED, "changed file");
    }
    Some(text)
}

/// The failing tests the user's runner listed, or None when there are none
/// or the file cannot be read (logged unless it is simply absent).
fn failing_tests() -> Option<String> {
    let text = match amber_sdk::fs::read_to_string(FAILING_TESTS) {
        Ok(text) => text,
        // A missing grant is `PermissionDenied` (amber_sdk::fs), so this
        // is the file being absent: no failing tests are known.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            log(LogLevel::Info, &format!("no failing tests: {e}"));
            return None;
        }
    };
    let names: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    if names.is_empty() {
        return None;
    }
    let mut out = format!("Failing tests (from {FAILING_TESTS}):");
    push_capped(&mut out, &names, MAX_TESTS, "test");
    Some(out)
}

/// Appends the first `max` lines, each on its own line, then how many
/// more there were.
fn push_capped(out: &mut String, lines: &[&str], max: usize, noun: &str) {
    for line in lines.iter().take(max) {
        out.push('\n');
        out.push_str(&short(line));
    }
    if lines.len() > max {
        let more = amber_sdk::count(lines.len() - max, noun);
        out.push_str(&format!("\n… and {more} more"));
    }
}

fn short(line: &str) -> Cow<'_, str> {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((at, _)) => Cow::Owned(format!("{}…", &line[..at])),
        None => Cow::Borrowed(line),
    }
}

amber_sdk::export!(Context: hook);
