//! Live reload through the real manager and real components: a folder
//! dropped into the plugin directory is registered (not enabled), a new
//! version that asks for nothing new replaces the old one in place and
//! keeps its grants, one that asks for more waits Deactivated until every
//! new permission is decided, a folder emptied of its `.wasm` is unwound,
//! and a file that is no component is reported while the rest goes on.
//! (The TUI's own path, with the watcher, is host/cli/tests/tui_panes.rs.)

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::path::Path;

use amber_runtime::manager::{DirChange, GrantChoice, NoTty, PluginManager};
use amber_runtime::{Permission, PluginState};
use amber_tests::{call_tool, guest, Scratch};
use serde_json::json;

fn manager(scratch: &Scratch) -> PluginManager {
    PluginManager::new(scratch.runtime(), &scratch.dirs(), Default::default(), None)
}

/// `guest` copied into `folder` as `name`, whole before it appears.
fn drop_in(guest_name: &str, folder: &Path, name: &str) {
    std::fs::create_dir_all(folder).unwrap();
    let part = folder.join(format!(".{name}.part"));
    std::fs::copy(guest(guest_name), &part).unwrap();
    std::fs::rename(&part, folder.join(name)).unwrap();
}

#[test]
fn a_new_folder_is_registered_and_an_emptied_one_is_unwound() {
    let scratch = Scratch::new();
    let mut manager = manager(&scratch);
    let folder = manager.plugin_dir().join("echo");
    drop_in("echo-tool", &folder, "echo.wasm");
    let changes = manager.sync_plugin_dir();
    let id = match changes.as_slice() {
        [DirChange::Added { id }] => id.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        manager.runtime().state(&id),
        Some(PluginState::Registered),
        "found, not enabled"
    );
    assert!(
        manager.sync_plugin_dir().is_empty(),
        "nothing changed since"
    );
    // Enabled by the user, it works; recorded, it loads in a later run.
    manager.set_enabled(&id, true).unwrap();
    assert_eq!(
        call_tool(manager.runtime(), "echo", json!({"x": 1})).unwrap(),
        r#"{"x":1}"#
    );
    let mut later = self::manager(&scratch);
    later.load_all().unwrap();
    assert_eq!(later.runtime().state(&id), Some(PluginState::Active));

    std::fs::remove_dir_all(&folder).unwrap();
    assert_eq!(
        manager.sync_plugin_dir(),
        [DirChange::Removed { id: id.clone() }]
    );
    assert!(manager.runtime().state(&id).is_none());
    assert!(manager.runtime().ledger().tool("echo").is_none());
}

#[test]
fn a_new_version_keeps_what_was_decided_and_waits_for_what_is_new() {
    let scratch = Scratch::new();
    let mut manager = manager(&scratch);
    let choice = GrantChoice {
        explicit: vec![Permission::WorkspaceRead],
        all: false,
    };
    // v2 asks for workspace-read (granted); v1 asks for nothing.
    manager
        .add(&guest("hello-v2"), &choice, &mut NoTty)
        .unwrap();
    let folder = manager.plugin_dir().join("hello");
    // Named to sort before the stored `<hash>.wasm`: the newer file wins
    // by its time, not by its name.
    drop_in("hello-tool", &folder, "0-b-v1.wasm");
    assert_eq!(
        manager.sync_plugin_dir(),
        [DirChange::Reloaded { id: "hello".into() }]
    );
    assert_eq!(
        call_tool(manager.runtime(), "hello", json!({"name": "Ada"})).unwrap(),
        "Hello, Ada!"
    );

    // v2 again: workspace-read is a new request for the record now bound
    // to v1, so it waits.
    drop_in("hello-v2", &folder, "0-a-v2.wasm");
    assert_eq!(
        manager.sync_plugin_dir(),
        [DirChange::Waiting {
            id: "hello".into(),
            permissions: vec![Permission::WorkspaceRead],
        }]
    );
    let status = manager.runtime().status("hello").unwrap();
    assert_eq!(status.state, PluginState::Deactivated);
    assert!(status.reason.unwrap().contains("workspace-read"));
    assert!(manager.runtime().ledger().tool("hello").is_none());
    // Refusing is deciding too: it is enabled, without the permission.
    manager
        .set_grant("hello", Permission::WorkspaceRead, false)
        .unwrap();
    let status = manager.runtime().status("hello").unwrap();
    assert_eq!(status.state, PluginState::Active);
    assert!(!status.grants.has(Permission::WorkspaceRead));
    assert_eq!(
        call_tool(manager.runtime(), "wave", json!({})).unwrap(),
        "o/"
    );
}

#[test]
fn a_file_that_is_no_component_is_reported_and_the_rest_goes_on() {
    let scratch = Scratch::new();
    let mut manager = manager(&scratch);
    manager
        .add(&guest("echo-tool"), &GrantChoice::default(), &mut NoTty)
        .unwrap();
    let broken = manager.plugin_dir().join("broken");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("broken.wasm"), b"not wasm at all").unwrap();
    let changes = manager.sync_plugin_dir();
    match changes.as_slice() {
        [DirChange::Failed { path, reason }] => {
            assert!(path.ends_with("broken/broken.wasm"), "{}", path.display());
            assert!(!reason.is_empty());
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        call_tool(manager.runtime(), "echo", json!({"still": true})).unwrap(),
        r#"{"still":true}"#
    );
}

#[test]
fn a_plugin_the_user_disabled_stays_disabled_when_its_grants_are_decided() {
    let scratch = Scratch::new();
    let mut manager = manager(&scratch);
    manager
        .add(&guest("hello-tool"), &GrantChoice::default(), &mut NoTty)
        .unwrap();
    let folder = manager.plugin_dir().join("hello");
    drop_in("hello-v2", &folder, "0-v2.wasm");
    assert!(matches!(
        manager.sync_plugin_dir().as_slice(),
        [DirChange::Waiting { .. }]
    ));
    manager.set_enabled("hello", false).unwrap();
    manager
        .set_grant("hello", Permission::WorkspaceRead, true)
        .unwrap();
    assert_ne!(
        manager.runtime().state("hello"),
        Some(PluginState::Active),
        "deciding a grant does not undo a disable"
    );
}

#[test]
fn a_plugin_removed_by_another_amber_is_unloaded_and_an_older_copy_is_not_adopted() {
    let scratch = Scratch::new();
    let mut manager = manager(&scratch);
    manager
        .add(
            &guest("hello-v2"),
            &GrantChoice {
                explicit: vec![Permission::WorkspaceRead],
                all: false,
            },
            &mut NoTty,
        )
        .unwrap();
    // An older copy of hello, in a folder of its own, made before the
    // recorded file was last added: not a new version.
    let elsewhere = manager.plugin_dir().join("hello-old");
    drop_in("hello-tool", &elsewhere, "hello.wasm");
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::OpenOptions::new()
        .write(true)
        .open(elsewhere.join("hello.wasm"))
        .unwrap()
        .set_modified(past)
        .unwrap();
    assert!(
        manager.sync_plugin_dir().is_empty(),
        "the older copy is left alone"
    );
    assert_eq!(
        call_tool(manager.runtime(), "hello", json!({"name": "Ada"})).unwrap(),
        "Hi there, Ada!"
    );
    std::fs::remove_dir_all(&elsewhere).unwrap();

    // `amber plugin remove hello` in another process.
    let mut other = self::manager(&scratch);
    other.load_all().unwrap();
    other.remove("hello").unwrap();
    assert_eq!(
        manager.sync_plugin_dir(),
        [DirChange::Removed { id: "hello".into() }]
    );
    assert!(manager.runtime().ledger().tool("hello").is_none());
}
