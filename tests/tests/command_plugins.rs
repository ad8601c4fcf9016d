//! Plugin command subtrees through the real runtime and the real command
//! guests (seed: "Command binding"): command-git declares and runs `/git`
//! in a scratch repository; command-hostile traps, spins and floods, and
//! each is contained; the ledger refuses a contested root naming both
//! plugins, and a built-in root.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use amber_core::commands::plugin_subtree;
use amber_core::Owner;
use amber_runtime::{Grants, Permission, PluginRuntime, PluginState, RuntimeOptions};
use amber_tests::{enable, guest, Scratch};

/// Runs `/line… arg` as dispatch will: the root's tree from the live
/// ledger, then `run` with the full path.
fn run(runtime: &PluginRuntime, line: &[&str], arg: &str) -> Result<String, String> {
    let tree = runtime
        .ledger()
        .command(line[0])
        .ok_or_else(|| format!("no command `/{}` is installed", line[0]))?;
    let path: Vec<String> = line.iter().map(|s| s.to_string()).collect();
    tree.run(&path, arg).map_err(|e| e.to_string())
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=Ada", "-c", "user.email=ada@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A repository with one commit of `a.txt`.
fn repository(scratch: &Scratch) {
    let ws = &scratch.workspace;
    git(ws, &["init", "-q", "-b", "main"]);
    std::fs::write(ws.join("a.txt"), "first line\n").unwrap();
    git(ws, &["add", "a.txt"]);
    git(ws, &["commit", "-q", "-m", "add a.txt"]);
}

fn enable_git(runtime: &PluginRuntime) {
    assert_eq!(
        enable(runtime, "command-git", Grants::of([Permission::Exec])),
        "git"
    );
}

/// A runtime whose plugin `evil` has `settings`.
fn evil_runtime(
    scratch: &Scratch,
    settings: &[(&str, &str)],
    tune: impl FnOnce(&mut RuntimeOptions),
) -> PluginRuntime {
    let mut options = scratch.options();
    let settings: BTreeMap<String, String> = settings
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    options.settings.insert("evil".into(), settings);
    tune(&mut options);
    scratch.runtime_with(options)
}

#[test]
fn git_declares_its_subtree_with_an_inert_leaf() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    enable_git(&runtime);
    let ledger = runtime.ledger();
    assert_eq!(
        ledger.owned_command("git").map(|(o, _)| o),
        Some(Owner::Plugin("git".into()))
    );
    let tree = ledger.command("git").unwrap();
    assert_eq!(tree.root().help, "Read-only git: status, diff, log, blame");
    let nodes = tree.spec().unwrap();
    let shape: Vec<(&str, Option<u32>, bool)> = nodes
        .iter()
        .map(|n| (n.name.as_str(), n.parent, n.handler))
        .collect();
    assert_eq!(
        shape,
        [
            ("git", None, false),
            ("status", Some(0), true),
            ("diff", Some(0), true),
            ("log", Some(0), true),
            ("blame", Some(0), true),
            ("about", Some(0), false),
        ]
    );
    assert!(
        nodes.iter().all(|n| !n.help.is_empty() && n.man.is_some()),
        "every node has help and a man page"
    );
    let about = nodes[5].man.as_deref().unwrap();
    assert!(about.contains("read-only"), "{about}");

    // Merged as the host merges it: executable leaves carry
    // `plugin.<id>.<path>`, the root and `about` stay documented only.
    let merged = plugin_subtree("git", tree.root(), &nodes);
    let git = merged.child("git").unwrap();
    assert_eq!(git.action(), None);
    assert!(git.man.as_deref().unwrap().contains("/git blame FILE"));
    assert_eq!(
        git.child("status").unwrap().action(),
        Some("plugin.git.git.status")
    );
    assert_eq!(git.child("about").unwrap().action(), None);
}

#[test]
fn git_status_diff_log_and_blame_read_the_workspace_repository() {
    let scratch = Scratch::new();
    repository(&scratch);
    let runtime = scratch.runtime();
    enable_git(&runtime);

    assert_eq!(
        run(&runtime, &["git", "status"], "").unwrap(),
        "## main\nclean: nothing to commit"
    );
    assert_eq!(run(&runtime, &["git", "diff"], "").unwrap(), "no changes");

    std::fs::write(scratch.workspace.join("a.txt"), "first line\nsecond line\n").unwrap();
    std::fs::write(scratch.workspace.join("it's new.txt"), "x").unwrap();
    let status = run(&runtime, &["git", "status"], "").unwrap();
    assert_eq!(status, "## main\n M a.txt\n?? \"it's new.txt\"");
    let diff = run(&runtime, &["git", "diff"], " a.txt ").unwrap();
    assert!(
        diff.starts_with(" a.txt | 1 +\n 1 file changed, 1 insertion(+)\n\ndiff --git"),
        "{diff}"
    );
    assert!(diff.ends_with("+second line"), "{diff}");

    let log = run(&runtime, &["git", "log"], "").unwrap();
    assert!(
        log.ends_with(" add a.txt") && log.lines().count() == 1,
        "{log}"
    );
    let blame = run(&runtime, &["git", "blame"], "a.txt").unwrap();
    assert!(
        blame.contains("Ada") && blame.contains("first line"),
        "{blame}"
    );
    // A path with a quote in it reaches git whole, quoted.
    let err = run(&runtime, &["git", "blame"], "it's new.txt").unwrap_err();
    assert!(err.contains("no such path 'it's new.txt' in HEAD"), "{err}");
}

#[test]
fn git_commands_explain_a_missing_or_refused_argument() {
    let scratch = Scratch::new();
    repository(&scratch);
    let runtime = scratch.runtime();
    enable_git(&runtime);
    assert_eq!(
        run(&runtime, &["git", "blame"], "  ").unwrap_err(),
        "command `/git blame` failed: usage: /git blame FILE"
    );
    assert_eq!(
        run(&runtime, &["git", "diff"], "--output=/tmp/x").unwrap_err(),
        "command `/git diff` failed: `--output=/tmp/x` is not accepted: \
         /git diff takes revisions and paths and --cached, --staged (see /git about)"
    );
    assert!(run(&runtime, &["git", "diff"], "--cached").is_ok());
    let err = run(&runtime, &["git", "about"], "").unwrap_err();
    assert!(err.contains("`/git about` does not run"), "{err}");
    // git's own complaint comes back as the error.
    let err = run(&runtime, &["git", "log"], "no-such-branch").unwrap_err();
    assert!(err.contains("no-such-branch"), "{err}");
}

#[test]
fn git_outside_a_repository_says_so() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    enable_git(&runtime);
    let err = run(&runtime, &["git", "status"], "").unwrap_err();
    assert!(err.contains("not a git repository"), "{err}");
}

#[test]
fn git_without_the_exec_grant_answers_not_granted() {
    let scratch = Scratch::new();
    repository(&scratch);
    let runtime = scratch.runtime();
    enable(&runtime, "command-git", Grants::none());
    let err = run(&runtime, &["git", "status"], "").unwrap_err();
    assert!(err.contains("not granted: exec (plugin `git`"), "{err}");
}

#[test]
fn disabling_git_removes_its_root_at_once() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    enable_git(&runtime);
    let before = runtime.ledger().command_generation();
    runtime.disable("git").unwrap();
    assert!(runtime.ledger().command("git").is_none());
    assert_eq!(runtime.ledger().owned_command("git").map(|(o, _)| o), None);
    assert_ne!(runtime.ledger().command_generation(), before);
    assert!(run(&runtime, &["git", "status"], "")
        .unwrap_err()
        .contains("no command `/git`"));
}

/// Runs `/evil SUB` on a fresh `evil` with `tune`d limits, expecting an
/// error; proves the plugin still answers on its next call and returns
/// the error.
fn contained(sub: &str, tune: impl FnOnce(&mut RuntimeOptions)) -> String {
    let scratch = Scratch::new();
    let runtime = evil_runtime(&scratch, &[], tune);
    enable(&runtime, "command-hostile", Grants::none());
    let err = run(&runtime, &["evil", sub], "").expect_err("the misbehaviour is an error");
    assert_eq!(run(&runtime, &["evil", "ok"], "").unwrap(), "still here");
    assert_eq!(runtime.state("evil"), Some(PluginState::Active));
    err
}

#[test]
fn a_trapping_command_names_the_plugin_and_the_cause_and_the_next_call_works() {
    let err = contained("trap", |_| {});
    assert!(
        err.contains("plugin `evil` trapped in command `/evil trap`")
            && err.contains("evil trapped on purpose"),
        "{err}"
    );
}

#[test]
fn a_spinning_command_hits_the_deadline_and_the_host_survives() {
    let err = contained("spin", |o| o.limits.deadline = Duration::from_millis(300));
    assert!(
        err.contains(
            "plugin `evil` exceeded its deadline of 300 ms of guest time in command `/evil spin`"
        ),
        "{err}"
    );
}

#[test]
fn a_flooding_command_hits_the_output_cap() {
    let err = contained("flood", |o| o.limits.output_bytes = 512 << 10);
    assert!(
        err.contains(
            "plugin `evil` returned 1048576 bytes from command `/evil flood`, over the cap of 524288 bytes"
        ),
        "{err}"
    );
}

#[test]
fn three_traps_in_a_row_unwind_the_root_and_move_the_generation() {
    let scratch = Scratch::new();
    let runtime = evil_runtime(&scratch, &[], |_| {});
    enable(&runtime, "command-hostile", Grants::none());
    let before = runtime.ledger().command_generation();
    for _ in 0..3 {
        assert!(run(&runtime, &["evil", "trap"], "").is_err());
    }
    assert_eq!(runtime.state("evil"), Some(PluginState::Failed));
    assert!(runtime.ledger().command("evil").is_none());
    assert_ne!(runtime.ledger().command_generation(), before);
}

#[test]
fn a_root_another_plugin_holds_is_refused_naming_both_and_the_first_keeps_it() {
    let scratch = Scratch::new();
    repository(&scratch);
    let runtime = evil_runtime(&scratch, &[("claim", "git")], |_| {});
    enable_git(&runtime);
    let (id, _) = runtime.register_file(&guest("command-hostile")).unwrap();
    let err = runtime.enable(&id, Grants::none()).unwrap_err().to_string();
    assert_eq!(
        err,
        "command `/git` of plugin `evil` is refused: plugin `git` already provides it"
    );
    let status = runtime.status("evil").unwrap();
    assert_eq!(status.state, PluginState::Failed);
    assert_eq!(status.reason.as_deref(), Some(err.as_str()));
    assert!(
        runtime.ledger().command("evil").is_none(),
        "its own root, installed first, was unwound"
    );
    assert_eq!(
        runtime.ledger().owned_command("git").map(|(o, _)| o),
        Some(Owner::Plugin("git".into()))
    );
    assert!(run(&runtime, &["git", "status"], "")
        .unwrap()
        .starts_with("## main"));
}

#[test]
fn a_built_in_root_is_refused() {
    let scratch = Scratch::new();
    let runtime = evil_runtime(&scratch, &[("claim", "help")], |_| {});
    let (id, _) = runtime.register_file(&guest("command-hostile")).unwrap();
    let err = runtime.enable(&id, Grants::none()).unwrap_err().to_string();
    assert_eq!(
        err,
        "command `/help` of plugin `evil` is refused: `/help` is a built-in command"
    );
    assert!(runtime.ledger().owned_commands().is_empty());
}

#[test]
fn a_malformed_spec_merges_without_its_bad_node_and_a_trapping_one_is_an_error() {
    let scratch = Scratch::new();
    let runtime = evil_runtime(&scratch, &[("spec", "broken")], |_| {});
    enable(&runtime, "command-hostile", Grants::none());
    let tree = runtime.ledger().command("evil").unwrap();
    let nodes = tree.spec().unwrap();
    assert_eq!(nodes.last().map(|n| n.parent), Some(Some(99)));
    let merged = plugin_subtree("evil", tree.root(), &nodes);
    let evil = merged.child("evil").unwrap();
    assert_eq!(
        evil.children.keys().collect::<Vec<_>>(),
        ["flood", "spin", "trap"],
        "`ok`, whose parent comes after it, is dropped"
    );
    assert_eq!(
        evil.child("trap").unwrap().action(),
        Some("plugin.evil.evil.trap")
    );

    let scratch = Scratch::new();
    let runtime = evil_runtime(&scratch, &[("spec", "trap")], |_| {});
    enable(&runtime, "command-hostile", Grants::none());
    let tree = runtime.ledger().command("evil").unwrap();
    let err = tree.spec().unwrap_err().to_string();
    assert!(
        err.contains("plugin `evil` trapped in command `/evil`")
            && err.contains("evil trapped in spec on purpose"),
        "{err}"
    );
    assert_eq!(run(&runtime, &["evil", "ok"], "").unwrap(), "still here");
}

#[test]
fn a_path_outside_the_root_never_reaches_the_plugin() {
    let scratch = Scratch::new();
    let runtime = evil_runtime(&scratch, &[], |_| {});
    enable(&runtime, "command-hostile", Grants::none());
    let tree = runtime.ledger().command("evil").unwrap();
    for path in [vec![], vec!["git".to_string(), "status".to_string()]] {
        let err = tree.run(&path, "").unwrap_err().to_string();
        assert!(err.contains("is not under `/evil`"), "{path:?}: {err}");
    }
}
