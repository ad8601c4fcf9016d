//! Prompt assembly end to end (seed: "Prompt assembly"): the bundled
//! `workspace` block and the hostile `bad-blocks` component through the
//! binary. Head blocks follow the system prompt by priority, the tail
//! block follows the conversation, an empty block is omitted, and blocks
//! that fail or trap are logged and omitted without breaking the turn.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use amber_tests::exec_env::{fake, sent_messages, text, Env};
use amber_tests::guest;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

#[test]
fn blocks_are_ordered_and_a_failing_or_trapping_block_cannot_break_the_turn() {
    let env = Env::new(AMBER);
    let blocks = guest("bad-blocks");
    let out = env.run(&["plugin", "add", blocks.to_str().unwrap(), "--yes"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let server =
        fake("[[turns]]\nreply = { text = \"fine\" }\n[[turns]]\nreply = { text = \"DONE\" }\n");
    let run = env.exec(&server, &[], "hello");
    run.assert_done("fine");
    let said = sent_messages(&server.received()[0].body);
    assert!(said[0].starts_with("system: You are amber"), "{said:#?}");
    assert!(
        said[1].starts_with("system: Date: ") && said[1].contains("a.txt"),
        "{said:#?}"
    );
    assert_eq!(said[2], "system: LATE HEAD BLOCK");
    assert_eq!(said[3], "user: hello");
    assert_eq!(said[4], "user: TAIL BLOCK");
    assert_eq!(said.len(), 5);
    let warnings: Vec<String> = run
        .of_type("warning")
        .iter()
        .map(|w| w["message"].as_str().unwrap().to_string())
        .collect();
    // Each named, with its cause, once per run.
    assert_eq!(warnings.len(), 2, "{warnings:#?}");
    assert!(
        warnings[0].starts_with("plugin `bad-blocks` trapped in prompt block `traps`")
            && warnings[0].ends_with("(the block was left out)"),
        "{warnings:#?}"
    );
    assert_eq!(
        warnings[1],
        "prompt block `fails` failed: the block's data source is down (the block was left out)"
    );
    // The blocks are in the request, never in the history.
    let shown = env.show(&run.session_id());
    assert_eq!(shown["messages"].as_array().unwrap().len(), 3);
}
