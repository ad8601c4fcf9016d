//! TUI II's views drawn into TestBackend and compared with their
//! snapshots: the command drawer over the built-in tree and over a
//! plugin's subtree, a man page in its pane, the plugin view with a
//! Failed plugin, and the session picker. docs/tui.md shows the same
//! renders.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use amber_core::commands::{builtin_tree, Candidate};
use amber_core::session::{SessionState, SessionSummary};
use amber_runtime::PluginState;
use amber_tui::drawer::Drawer;
use amber_tui::pane::{PagePane, Pane};
use amber_tui::plugin_view::{PermissionRow, PluginRow, PluginView};
use amber_tui::session_picker::SessionPicker;
use amber_tui::ui::Ui;

mod common;
use common::{draw, started};

fn ui() -> Ui {
    let mut ui = Ui::new();
    ui.apply(started(), None);
    ui
}

fn type_line(ui: &mut Ui, line: &str) {
    for c in line.chars() {
        ui.composer.insert(c);
    }
}

#[test]
fn the_drawer_lists_what_may_follow_with_its_help() {
    let mut ui = ui();
    type_line(&mut ui, "/se");
    ui.drawer = Drawer::new("/se", builtin_tree().complete("/se"));
    if let Some(drawer) = &mut ui.drawer {
        drawer.down();
    }
    insta::assert_snapshot!(draw(&mut ui, 80, 14).backend());
}

#[test]
fn the_drawer_over_a_plugin_subtree() {
    let mut ui = ui();
    type_line(&mut ui, "/git ");
    let candidates = [
        ("about", "What this plugin is (documented, not a command)"),
        ("blame", "Who last changed each line of a file"),
        ("diff", "The working tree's changes, as a unified diff"),
        ("log", "The last commits, one line each"),
        ("status", "The working tree's status, short"),
    ]
    .map(|(name, help)| Candidate {
        name: name.into(),
        help: help.into(),
    })
    .to_vec();
    ui.drawer = Drawer::new("/git ", candidates);
    // An error of the last command sits in the status line.
    ui.flash = Some("command error: /git log: not a git repository".into());
    insta::assert_snapshot!(draw(&mut ui, 80, 14).backend());
}

#[test]
fn a_man_page_in_its_pane() {
    let mut ui = ui();
    let page = "NAME\n    /set policy - the approval mode\n\nSYNOPSIS\n    /set policy read|write|yolo [--save]\n\nDESCRIPTION\n    read: tools that only read run without asking.\n    write: writes inside the workspace run; the rest asks.\n    yolo: nothing asks.\n";
    ui.pane = Some(Pane::Page(PagePane::new("/help set policy", page)));
    insta::assert_snapshot!(draw(&mut ui, 72, 16).backend());
}

fn plugin(id: &str, state: PluginState) -> PluginRow {
    PluginRow {
        id: id.into(),
        version: "0.2.0".into(),
        state,
        reason: None,
        bundled: true,
        capabilities: Vec::new(),
        permissions: Vec::new(),
        log: Vec::new(),
        source: format!("/usr/share/amber/plugins/{id}.wasm"),
    }
}

#[test]
fn the_plugin_view_with_a_failed_plugin() {
    let mut ui = ui();
    let rows = vec![
        PluginRow {
            capabilities: vec!["tool read_file".into(), "tool write_file".into()],
            permissions: vec![
                PermissionRow {
                    name: "workspace-read".into(),
                    reason: "read files the model asks for".into(),
                    granted: true,
                },
                PermissionRow {
                    name: "workspace-write".into(),
                    reason: "write files the model asks for".into(),
                    granted: true,
                },
            ],
            ..plugin("tools-fs", PluginState::Active)
        },
        PluginRow {
            reason: Some("trapped three calls in a row: wasm trap: unreachable".into()),
            bundled: false,
            permissions: vec![PermissionRow {
                name: "exec".into(),
                reason: "run the linter".into(),
                granted: false,
            }],
            log: vec![
                "12:00:01 error call `lint` trapped".into(),
                "12:00:02 error failed: trapped three calls in a row".into(),
            ],
            source: "/home/me/.local/share/amber/plugins/lint/4f1c.wasm".into(),
            ..plugin("lint", PluginState::Failed)
        },
        plugin("command-git", PluginState::Deactivated),
    ];
    let mut view = PluginView::new(rows, "/home/me/.local/share/amber/plugins".into());
    view.selected = 1;
    ui.pane = Some(Pane::Plugins(view));
    insta::assert_snapshot!(draw(&mut ui, 100, 22).backend());
}

fn summary(id: &str, title: &str, turns: usize, tokens: u64, updated: u64) -> SessionSummary {
    SessionSummary {
        id: id.into(),
        path: format!("/home/me/.local/share/amber/sessions/{id}.jsonl").into(),
        created: updated - 600,
        updated,
        workspace: "/work/project".into(),
        provider: "openai".into(),
        model: "gpt-5".into(),
        title: title.into(),
        messages: turns * 3,
        turns,
        approx_tokens: tokens,
        state: SessionState::Complete,
        parent: None,
        children: Vec::new(),
        fork: None,
    }
}

#[test]
fn the_session_picker_shows_this_workspaces_sessions() {
    let mut ui = ui();
    let mut other = summary("20261201-090000-ffff", "elsewhere", 1, 10, 1_796_115_600);
    other.workspace = "/work/other".into();
    let mut broken = summary("20261130-100000-0bad", "", 0, 0, 1_796_032_800);
    broken.state = SessionState::Interrupted;
    let all = vec![
        summary(
            "20261203-041500-ab12",
            "Why do the tests fail? The add function seems to subtract",
            3,
            5_210,
            1_796_271_300,
        ),
        other,
        summary(
            "20261202-160000-77aa",
            "Rename the parser module",
            12,
            48_900,
            1_796_227_200,
        ),
        broken,
    ];
    let mut picker = SessionPicker::new(all, "/work/project", "20261203-041500-ab12");
    picker.selected = 1;
    ui.pane = Some(Pane::Sessions(picker));
    insta::assert_snapshot!(draw(&mut ui, 100, 10).backend());
}

#[test]
fn the_plugin_view_with_a_plugin_waiting_for_new_grants() {
    let mut ui = ui();
    let rows = vec![PluginRow {
        reason: Some(
            "the new version asks for exec: grant or refuse in the plugin view (or `amber plugin grant`)"
                .into(),
        ),
        bundled: false,
        permissions: vec![
            PermissionRow {
                name: "workspace-read".into(),
                reason: "read the files it lints".into(),
                granted: true,
            },
            PermissionRow {
                name: "exec".into(),
                reason: "run the linter".into(),
                granted: false,
            },
        ],
        source: "/home/me/.local/share/amber/plugins/lint/v2.wasm".into(),
        ..plugin("lint", PluginState::Deactivated)
    }];
    let mut view = PluginView::new(rows, "/home/me/.local/share/amber/plugins".into());
    // Tab moves to the permissions; down to the one waiting.
    let key = |code| crossterm::event::KeyEvent::from(code);
    view.key(key(crossterm::event::KeyCode::Tab));
    view.key(key(crossterm::event::KeyCode::Down));
    ui.pane = Some(Pane::Plugins(view));
    insta::assert_snapshot!(draw(&mut ui, 100, 18).backend());
}
