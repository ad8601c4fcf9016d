//! The TUI's views drawn into ratatui's TestBackend and compared with
//! their snapshots (tests/snapshots/): chat with markdown and code, tool
//! cards running, done and failed, a diff card, the approval dialog with a
//! diff, the status line, compression notices. docs/tui.md shows the same
//! renders.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use amber_core::engine::{AgentEvent, DeltaKind, Status};
use amber_core::ports::dialect::Usage;
use amber_core::ports::{ApprovalRequest, CompressionStats, Scope};
use amber_tui::dialog::Dialog;
use amber_tui::ui::Ui;
use ratatui::style::Color;

mod common;
use common::{draw, started};

fn ui() -> Ui {
    let mut ui = Ui::new();
    ui.apply(started(), None);
    ui.status.context = Some(0.23);
    ui
}

fn text(ui: &mut Ui, text: &str) {
    ui.apply(
        AgentEvent::MessageDelta {
            turn: 1,
            kind: DeltaKind::Text,
            text: text.into(),
        },
        None,
    );
}

fn call(ui: &mut Ui, id: &str, name: &str, arguments: &str, preview: Option<String>) {
    ui.apply(
        AgentEvent::ToolCall {
            turn: 1,
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        },
        preview,
    );
}

fn result(ui: &mut Ui, id: &str, status: Status, output: &str, meta: Option<serde_json::Value>) {
    ui.apply(
        AgentEvent::ToolResult {
            turn: 1,
            id: id.into(),
            name: String::new(),
            status,
            output: output.into(),
            meta,
        },
        None,
    );
}

const DIFF: &str = "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,3 +1,3 @@\n fn add(a: i32, b: i32) -> i32 {\n-    a - b\n+    a + b\n }\n";

#[test]
fn chat_with_markdown_and_code() {
    let mut ui = ui();
    ui.history.push(amber_tui::history::Cell::User(
        "Why do the tests fail?".into(),
    ));
    ui.apply(
        AgentEvent::MessageDelta {
            turn: 1,
            kind: DeltaKind::Reasoning,
            text: "The test says 5 but got -1.\nSo the operator is wrong.".into(),
        },
        None,
    );
    text(
        &mut ui,
        "## The cause\n\n`add` **subtracts**: see [the docs](https://doc.rust-lang.org).\n\n",
    );
    text(&mut ui, "1. fix the operator\n2. run the tests\n\n```rust\nfn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n```\n");
    let terminal = draw(&mut ui, 72, 26);
    insta::assert_snapshot!(terminal.backend());
    // The code is highlighted: a keyword has a colour of its own.
    let buffer = terminal.backend().buffer();
    let fn_cell = (0..buffer.area.height)
        .flat_map(|y| (0..buffer.area.width).map(move |x| (x, y)))
        .find(|&(x, y)| {
            buffer[(x, y)].symbol() == "f"
                && buffer[(x + 1, y)].symbol() == "n"
                && x > 0
                && buffer[(x - 1, y)].symbol() == " "
        })
        .expect("the code block is drawn");
    assert!(
        matches!(buffer[fn_cell].fg, Color::Rgb(..)),
        "{:?}",
        buffer[fn_cell]
    );
}

#[test]
fn tool_cards_running_done_failed_and_denied() {
    let mut ui = ui();
    call(&mut ui, "c1", "read_file", r#"{"path":"src/lib.rs"}"#, None);
    result(
        &mut ui,
        "c1",
        Status::Ok,
        "fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n// more\n// and more\n// end\n",
        None,
    );
    call(&mut ui, "c2", "shell", r#"{"command":"cargo test"}"#, None);
    result(
        &mut ui,
        "c2",
        Status::Error,
        "error[E0308]: mismatched types",
        None,
    );
    call(&mut ui, "c3", "shell", r#"{"command":"rm -rf /"}"#, None);
    result(&mut ui, "c3", Status::Denied, "denied: destructive", None);
    call(&mut ui, "c4", "grep", r#"{"pattern":"add"}"#, None);
    ui.running = true;
    insta::assert_snapshot!(draw(&mut ui, 72, 24).backend());
}

#[test]
fn an_edit_card_shows_its_coloured_diff() {
    let mut ui = ui();
    call(
        &mut ui,
        "c1",
        "edit_file",
        r#"{"path":"src/lib.rs","old_string":"a - b","new_string":"a + b"}"#,
        None,
    );
    result(
        &mut ui,
        "c1",
        Status::Ok,
        "edited src/lib.rs",
        Some(serde_json::json!({"path": "src/lib.rs", "diff": DIFF})),
    );
    let terminal = draw(&mut ui, 72, 14);
    insta::assert_snapshot!(terminal.backend());
    let buffer = terminal.backend().buffer();
    let row = |needle: &str| {
        (0..buffer.area.height)
            .find(|&y| {
                let line: String = (0..buffer.area.width)
                    .map(|x| buffer[(x, y)].symbol().to_string())
                    .collect();
                line.contains(needle)
            })
            .unwrap()
    };
    assert_eq!(buffer[(2, row("+    a + b"))].fg, Color::Green);
    assert_eq!(buffer[(2, row("-    a - b"))].fg, Color::Red);
}

#[test]
fn the_approval_dialog_with_a_diff() {
    let mut ui = ui();
    let (reply, answer) = tokio::sync::oneshot::channel();
    let request = ApprovalRequest {
        requester: "model".into(),
        action: "write_file".into(),
        detail: r#"{"path":"../outside.txt","content":"hello\n"}"#.into(),
        cwd: Some("/work/project".into()),
        class: Some("outside the workspace".into()),
        scopes: vec![
            Scope::Kind("write_file".into()),
            Scope::Folder {
                kind: "write_file".into(),
                folder: "/work".into(),
            },
        ],
        grants: None,
        agent: "main".into(),
    };
    let dialog = Dialog::new(
        request,
        Some("--- ../outside.txt\n+++ ../outside.txt\n@@ -0,0 +1 @@\n+hello\n".into()),
        reply,
    );
    assert_eq!(
        dialog.decision_for('2'),
        Some(amber_core::ports::Decision::ApproveForSession(
            Scope::Folder {
                kind: "write_file".into(),
                folder: "/work".into()
            }
        ))
    );
    ui.dialog = Some(dialog);
    insta::assert_snapshot!(draw(&mut ui, 80, 24).backend());
    // Closing the TUI with the dialog open denies.
    ui.dialog = None;
    assert_eq!(
        answer.blocking_recv().unwrap(),
        amber_core::ports::Decision::Deny
    );
}

#[test]
fn the_status_line_counts_tokens_and_the_context() {
    let mut ui = ui();
    ui.apply(
        AgentEvent::TurnCompleted {
            turn: 1,
            usage: Usage {
                input_tokens: 12_400,
                output_tokens: 310,
                cached_input_tokens: 11_000,
                ..Usage::default()
            },
            stop_reason: None,
            tool_calls: 1,
            cost_usd: None,
        },
        None,
    );
    let line = ui.status_line(120).to_string();
    assert_eq!(
        line,
        " gpt-5 (openai) · mode write · in 12.4k (cached 11.0k) out 310 · context 23% · session 20261203-041500-ab12 "
    );
    insta::assert_snapshot!(draw(&mut ui, 110, 5).backend());
}

#[test]
fn the_status_line_fits_80_columns_keeping_model_mode_and_context() {
    let mut ui = ui();
    ui.status.tokens_in = 1_234_567;
    ui.status.tokens_out = 45_000;
    let line = ui.status_line(80).to_string();
    assert!(line.chars().count() <= 80, "{line}");
    assert_eq!(
        line,
        " gpt-5 (openai) · mode write · in 1.2M out 45.0k · context 23% · …ab12 "
    );
    // A turn running takes room; the facts give way in order.
    ui.running = true;
    let line = ui.status_line(80).to_string();
    assert!(line.chars().count() <= 80, "{line}");
    assert!(
        line.contains("gpt-5") && line.contains("write") && line.contains("23%"),
        "{line}"
    );
    let line = ui.status_line(40).to_string();
    assert!(line.chars().count() <= 40, "{line}");
    insta::assert_snapshot!(draw(&mut ui, 80, 4).backend());
}

#[test]
fn compression_notices() {
    let mut ui = ui();
    ui.apply(
        AgentEvent::CompactionStarted {
            trigger: amber_core::engine::CompactionTrigger::Auto,
            tokens: 81_234,
            window: 100_000,
            focus: None,
        },
        None,
    );
    ui.apply(
        AgentEvent::CompactionCompleted {
            stats: CompressionStats {
                tokens_before: 81_234,
                tokens_after: 30_112,
                kept: 41,
                collapsed: 19,
                pruned: 57,
            },
            memories: 2,
            skills: 1,
        },
        None,
    );
    ui.apply(
        AgentEvent::CompactionFailed {
            reason: "the classify reply is not JSON, even after one repair".into(),
        },
        None,
    );
    insta::assert_snapshot!(draw(&mut ui, 90, 12).backend());
}

/// The cells of row `y`, one string.
fn row_text(terminal: &ratatui::Terminal<ratatui::backend::TestBackend>, y: u16) -> String {
    let buffer = terminal.backend().buffer();
    (0..buffer.area.width)
        .map(|x| buffer[(x, y)].symbol().to_string())
        .collect()
}

#[test]
fn a_makefile_write_card_and_a_read_card_show_their_tabs_at_the_tab_stops() {
    let mut ui = ui();
    let diff = "--- a/Makefile\n+++ b/Makefile\n@@ -0,0 +1,2 @@\n+all:\n+\techo hi\n";
    call(
        &mut ui,
        "w1",
        "write_file",
        r#"{"path":"Makefile","content":"all:\n\techo hi\n"}"#,
        Some(diff.into()),
    );
    result(&mut ui, "w1", Status::Ok, "wrote Makefile", None);
    call(&mut ui, "r1", "read_file", r#"{"path":"Makefile"}"#, None);
    result(&mut ui, "r1", Status::Ok, "     1\tall:\n     2\t\techo hi", None);
    let terminal = draw(&mut ui, 72, 16);
    let rows: Vec<String> = (0..16).map(|y| row_text(&terminal, y)).collect();
    // The diff line: "  +" then the tab to column 8.
    assert!(
        rows.iter().any(|r| r.starts_with("  +     echo hi")),
        "{rows:#?}"
    );
    // The read card: "  │ " and the line number, the tab to column 16.
    assert!(
        rows.iter().any(|r| r.starts_with("  │      1      all:")),
        "{rows:#?}"
    );
    assert!(
        rows.iter().any(|r| r.starts_with("  │      2              echo hi")),
        "{rows:#?}"
    );
}
