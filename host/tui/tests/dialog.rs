//! The approval dialog drawn into TestBackend at the sizes people use:
//! its choices stay on screen down to 60×16, a long diff scrolls to its
//! end, tabs show as the columns they stand for, `n` asks for a reason
//! for the model, and `o` opens the request whole and Esc comes back.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::time::Duration;

use amber_core::ports::{ApprovalRequest, Decision, Scope};
use amber_tui::dialog::Dialog;
use amber_tui::ui::Ui;
use crossterm::event::{KeyCode, KeyEvent};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use tokio::sync::oneshot;

mod common;
use common::{draw, started};

fn ui() -> Ui {
    let mut ui = Ui::new();
    ui.apply(started(), None);
    ui
}

fn request(action: &str, detail: &str) -> ApprovalRequest {
    ApprovalRequest {
        requester: "model".into(),
        action: action.into(),
        detail: detail.into(),
        cwd: Some("/work/project".into()),
        class: None,
        scopes: vec![
            Scope::Kind(action.into()),
            Scope::Folder {
                kind: action.into(),
                folder: "/work".into(),
            },
        ],
        grants: None,
        agent: "main".into(),
    }
}

/// Opens a dialog in `ui`; its answer comes out of the receiver.
fn open(ui: &mut Ui, request: ApprovalRequest, diff: &str) -> oneshot::Receiver<Decision> {
    let (reply, answer) = oneshot::channel();
    ui.dialog = Some(Dialog::new(request, Some(diff.into()), reply));
    answer
}

fn press(ui: &mut Ui, code: KeyCode) -> Option<Decision> {
    ui.dialog
        .as_mut()
        .expect("a dialog is open")
        .key(KeyEvent::from(code))
}

/// Waits out the time the dialog ignores letter keys for.
fn settle() {
    std::thread::sleep(Duration::from_millis(450));
}

/// The screen's rows as text.
fn screen(terminal: &Terminal<TestBackend>) -> Vec<String> {
    let buffer = terminal.backend().buffer();
    (0..buffer.area.height)
        .map(|y| {
            (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol().to_string())
                .collect()
        })
        .collect()
}

fn shows(rows: &[String], needle: &str) -> bool {
    rows.iter().any(|row| row.contains(needle))
}

/// The cell where `needle` starts on row `y`, if it is there.
fn find_in_row(terminal: &Terminal<TestBackend>, y: u16, needle: &str) -> Option<u16> {
    let buffer = terminal.backend().buffer();
    let chars: Vec<String> = needle.chars().map(String::from).collect();
    let width = buffer.area.width;
    (0..width).find(|&x| {
        chars.iter().enumerate().all(|(i, c)| {
            let cx = x + i as u16;
            cx < width && buffer[(cx, y)].symbol() == c
        })
    })
}

/// The cell where `needle` first starts on screen.
fn find(terminal: &Terminal<TestBackend>, needle: &str) -> Option<(u16, u16)> {
    let height = terminal.backend().buffer().area.height;
    (0..height).find_map(|y| find_in_row(terminal, y, needle).map(|x| (x, y)))
}

fn write_args(path: &str, content: &str) -> String {
    serde_json::json!({ "path": path, "content": content }).to_string()
}

#[test]
fn at_80x24_a_small_edit_leaves_every_choice_on_screen() {
    let mut ui = ui();
    let diff = "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1 +1 @@\n-    a - b\n+    a + b\n";
    let _answer = open(
        &mut ui,
        request(
            "edit_file",
            r#"{"path":"src/lib.rs","old_string":"a - b","new_string":"a + b"}"#,
        ),
        diff,
    );
    let rows = screen(&draw(&mut ui, 80, 24));
    assert!(shows(&rows, "+    a + b"), "{rows:#?}");
    assert!(shows(&rows, "y approve once"), "{rows:#?}");
    assert!(
        shows(&rows, "1 approve for this session: every `edit_file`"),
        "{rows:#?}"
    );
    assert!(
        shows(
            &rows,
            "2 approve for this session: `edit_file` inside /work"
        ),
        "{rows:#?}"
    );
    assert!(shows(&rows, "n deny (esc)"), "{rows:#?}");
    // A diff that fits says nothing about scrolling.
    assert!(!shows(&rows, "lines 1–"), "{rows:#?}");
}

#[test]
fn at_60x16_a_long_diff_scrolls_under_choices_that_stay() {
    let mut ui = ui();
    let content: String = (1..=80).map(|i| format!("line {i}\n")).collect();
    let body: String = (1..=80).map(|i| format!("+line {i}\n")).collect();
    let diff = format!("--- big.txt\n+++ big.txt\n@@ -0,0 +1,80 @@\n{body}");
    let _answer = open(
        &mut ui,
        request("write_file", &write_args("big.txt", &content)),
        &diff,
    );
    let rows = screen(&draw(&mut ui, 60, 16));
    for choice in [
        "y once",
        "1 session: every `write_file`",
        "2 session: `write_file` inside /work",
        "n deny",
    ] {
        assert!(shows(&rows, choice), "{choice} is missing: {rows:#?}");
    }
    assert!(shows(&rows, "lines 1–"), "{rows:#?}");
    assert!(!shows(&rows, "+line 80"), "{rows:#?}");
    assert_eq!(press(&mut ui, KeyCode::End), None);
    let rows = screen(&draw(&mut ui, 60, 16));
    assert!(shows(&rows, "+line 80"), "{rows:#?}");
    assert!(shows(&rows, "of 81"), "{rows:#?}");
    assert!(shows(&rows, "n deny"), "{rows:#?}");
    // And back to the top, a page at a time.
    for _ in 0..100 {
        press(&mut ui, KeyCode::PageUp);
    }
    let rows = screen(&draw(&mut ui, 60, 16));
    assert!(shows(&rows, "@@ -0,0 +1,80 @@"), "{rows:#?}");
}

#[test]
fn a_makefile_recipe_shows_its_tab_as_columns() {
    let mut ui = ui();
    let diff = "--- Makefile\n+++ Makefile\n@@ -0,0 +1,2 @@\n+all:\n+\techo hi\n";
    let _answer = open(
        &mut ui,
        request("write_file", &write_args("Makefile", "all:\n\techo hi\n")),
        diff,
    );
    let terminal = draw(&mut ui, 80, 24);
    let (plus, y) = find(&terminal, "+all:").expect("the diff is drawn");
    let echo = find_in_row(&terminal, y + 1, "echo hi").expect("the recipe is drawn");
    // The diff line is "  +\techo hi": `+` at column 2, the tab fills to
    // the stop at column 8.
    assert_eq!(echo, plus + 6);
    let buffer = terminal.backend().buffer();
    assert_eq!(buffer[(plus, y + 1)].symbol(), "+");
    for x in plus + 1..echo {
        assert_eq!(buffer[(x, y + 1)].symbol(), " ");
    }
}

#[test]
fn n_asks_for_a_reason_and_enter_sends_it() {
    let mut ui = ui();
    let answer = open(
        &mut ui,
        request("shell", r#"{"command":"make test"}"#),
        "--- a\n+++ a\n@@ -1 +1 @@\n-a\n+b\n",
    );
    draw(&mut ui, 80, 24);
    // Too soon: a key typed for the prompt does not answer.
    assert_eq!(press(&mut ui, KeyCode::Char('n')), None);
    let rows = screen(&draw(&mut ui, 80, 24));
    assert!(!shows(&rows, "reason for the model"), "{rows:#?}");
    settle();
    assert_eq!(press(&mut ui, KeyCode::Char('n')), None);
    let rows = screen(&draw(&mut ui, 80, 24));
    assert!(shows(&rows, "reason for the model"), "{rows:#?}");
    for c in "use cargo test".chars() {
        assert_eq!(press(&mut ui, KeyCode::Char(c)), None);
    }
    let rows = screen(&draw(&mut ui, 80, 24));
    assert!(shows(&rows, "use cargo test"), "{rows:#?}");
    let decision = press(&mut ui, KeyCode::Enter).expect("enter answers");
    assert_eq!(
        decision,
        Decision::Declined {
            reason: Some("use cargo test".into())
        }
    );
    ui.dialog.take().unwrap().answer(decision.clone());
    assert_eq!(answer.blocking_recv().unwrap(), decision);
}

#[test]
fn o_opens_the_request_whole_and_esc_comes_back_without_answering() {
    let mut ui = ui();
    let mut answer = open(
        &mut ui,
        request("write_file", &write_args("a.txt", "hello\n")),
        "--- a.txt\n+++ a.txt\n@@ -0,0 +1 @@\n+hello\n",
    );
    draw(&mut ui, 80, 24);
    settle();
    assert_eq!(press(&mut ui, KeyCode::Char('o')), None);
    let rows = screen(&draw(&mut ui, 80, 24));
    assert!(shows(&rows, "approval request"), "{rows:#?}");
    assert!(shows(&rows, "+hello"), "{rows:#?}");
    assert!(!shows(&rows, "approve once"), "{rows:#?}");
    assert_eq!(press(&mut ui, KeyCode::Esc), None);
    assert!(ui.dialog.is_some());
    let rows = screen(&draw(&mut ui, 80, 24));
    assert!(shows(&rows, "approve once"), "{rows:#?}");
    assert!(answer.try_recv().is_err(), "nothing was answered");
    // Esc in the dialog itself declines, without a reason.
    assert_eq!(
        press(&mut ui, KeyCode::Esc),
        Some(Decision::Declined { reason: None })
    );
    // Closed unanswered (the TUI quitting), it denies.
    ui.dialog = None;
    assert_eq!(answer.blocking_recv().unwrap(), Decision::Deny);
}
