//! Two-key permissions at the manager level, with an asker that records
//! what it was asked: a new wasm for a known id asks only for what is new.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::collections::BTreeMap;

use amber_runtime::lifecycle::{PermissionRequest, PluginManifest};
use amber_runtime::manager::{GrantAsker, GrantChoice, PluginManager};
use amber_runtime::Permission;
use amber_tests::{guest, Scratch};

#[derive(Default)]
struct Recorder {
    asked: Vec<(String, Permission, String)>,
    answer: bool,
}

impl GrantAsker for Recorder {
    fn ask(&mut self, plugin: &PluginManifest, request: &PermissionRequest) -> bool {
        self.asked.push((
            plugin.id.clone(),
            request.permission,
            request.reason.clone(),
        ));
        self.answer
    }
}

fn new_manager(scratch: &Scratch) -> PluginManager {
    PluginManager::new(scratch.runtime(), &scratch.dirs(), BTreeMap::new(), None)
}

#[test]
fn each_request_is_asked_with_its_reason_and_answers_are_kept() {
    let scratch = Scratch::new();
    let mut manager = new_manager(&scratch);
    let mut asker = Recorder {
        answer: true,
        ..Recorder::default()
    };
    let report = manager
        .add(&guest("misbehave"), &GrantChoice::default(), &mut asker)
        .unwrap();
    let asked: Vec<Permission> = asker.asked.iter().map(|a| a.1).collect();
    assert_eq!(asked, [Permission::WorkspaceRead, Permission::Exec]);
    assert_eq!(asker.asked[1].2, "to run commands it was not granted");
    assert_eq!(
        report.granted,
        [Permission::WorkspaceRead, Permission::Exec]
    );

    // A later run asks nothing and keeps the grants.
    let mut later = new_manager(&scratch);
    later.load_all().unwrap();
    let status = later.runtime().status("misbehave").unwrap();
    assert!(status.grants.has(Permission::Exec));
}

#[test]
fn a_new_wasm_for_the_same_id_asks_only_for_what_is_new() {
    let scratch = Scratch::new();
    let mut manager = new_manager(&scratch);
    let mut asker = Recorder {
        answer: true,
        ..Recorder::default()
    };
    manager
        .add(&guest("hello-tool"), &GrantChoice::default(), &mut asker)
        .unwrap();
    assert!(asker.asked.is_empty(), "hello 0.1.0 requests nothing");
    manager
        .add(&guest("hello-v2"), &GrantChoice::default(), &mut asker)
        .unwrap();
    let asked: Vec<Permission> = asker.asked.iter().map(|a| a.1).collect();
    assert_eq!(asked, [Permission::WorkspaceRead]);
    manager
        .add(&guest("hello-v2"), &GrantChoice::default(), &mut asker)
        .unwrap();
    assert_eq!(asker.asked.len(), 1, "not asked again");
}

#[test]
fn a_refusal_grants_nothing_and_the_plugin_still_runs_without_it() {
    let scratch = Scratch::new();
    let mut manager = new_manager(&scratch);
    let mut asker = Recorder::default();
    let report = manager
        .add(&guest("misbehave"), &GrantChoice::default(), &mut asker)
        .unwrap();
    assert!(report.granted.is_empty());
    assert_eq!(
        report.not_granted,
        [Permission::WorkspaceRead, Permission::Exec]
    );
    assert!(report.enable_error.is_none());
}
