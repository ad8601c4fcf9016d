//! The bundled `prompt-workspace` block, rendered through the real
//! runtime: the top level of the workspace, its git branch and the date.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use amber_core::ports::RenderContext;
use amber_runtime::{Grants, Permission};
use amber_tests::{enable, Scratch};

fn today() -> String {
    let out = std::process::Command::new("date")
        .args(["-u", "+%F"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn the_block_lists_the_top_level_the_branch_and_the_date() {
    let scratch = Scratch::new();
    std::fs::create_dir_all(scratch.workspace.join(".git")).unwrap();
    std::fs::write(
        scratch.workspace.join(".git/HEAD"),
        "ref: refs/heads/feature/x\n",
    )
    .unwrap();
    std::fs::create_dir(scratch.workspace.join("src")).unwrap();
    std::fs::write(scratch.workspace.join("Cargo.toml"), "[package]\n").unwrap();
    let runtime = scratch.runtime();
    enable(
        &runtime,
        "prompt-workspace",
        Grants::of([Permission::WorkspaceRead]),
    );
    let block = runtime
        .ledger()
        .prompt_blocks()
        .pop()
        .expect("the block is installed");
    assert_eq!(block.spec().name, "workspace");
    let text = block.render(&RenderContext::default()).unwrap();
    let expected = format!(
        "Date: {}\nGit branch: feature/x\nWorkspace top level (2 entries):\n  Cargo.toml\n  src/\n",
        today()
    );
    assert_eq!(text, expected);
}

#[test]
fn without_the_workspace_it_still_gives_the_date() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    enable(&runtime, "prompt-workspace", Grants::none());
    let block = runtime.ledger().prompt_blocks().pop().unwrap();
    let text = block.render(&RenderContext::default()).unwrap();
    assert_eq!(text, format!("Date: {}", today()));
}
