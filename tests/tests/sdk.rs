//! The Rust SDK end to end, through real guests and the real runtime: a
//! manifest taken from Cargo.toml, tool arguments whose schema is derived
//! from a struct (what the host sees, what dispatch accepts and refuses,
//! what the guest says about arguments that skip the check), and a file
//! call without its grant named as such rather than as WASI's ENOENT.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::collections::BTreeMap;
use std::sync::Arc;

use amber_core::engine::{Dispatcher, Mode, Status};
use amber_core::policy::Policy;
use amber_core::ports::dialect::ToolCall;
use amber_runtime::manager::{GrantAsker, GrantChoice, PluginManager};
use amber_runtime::{Grants, Permission};
use amber_tests::{call_tool, enable, repo_root, Scratch};
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// `[package]` `key` of a guest's Cargo.toml, or of the guests'
/// `[workspace.package]` when the guest inherits it.
fn cargo_field(guest_dir: &str, key: &str) -> String {
    let read = |path: std::path::PathBuf| -> toml::Table {
        toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
    };
    let package = read(repo_root().join(guest_dir).join("Cargo.toml"));
    match &package["package"][key] {
        toml::Value::String(value) => value.clone(),
        _ => {
            let workspace = read(repo_root().join("guests/Cargo.toml"));
            workspace["workspace"]["package"][key]
                .as_str()
                .unwrap()
                .to_string()
        }
    }
}

#[test]
fn manifest_macro_takes_version_and_description_from_cargo_toml() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    let id = enable(&runtime, "hello-tool", Grants::none());
    let manifest = runtime.status(&id).unwrap().manifest;
    assert_eq!(manifest.id, "hello", "the id given to manifest!(id: …)");
    let dir = "guests/testing/hello-tool";
    assert_eq!(manifest.version, cargo_field(dir, "version"));
    assert_eq!(manifest.description, cargo_field(dir, "description"));
    assert_eq!(manifest.description, "Greets whoever you name.");
}

#[test]
fn the_schema_derived_from_the_args_struct_is_what_the_host_sees() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    enable(&runtime, "hello-tool", Grants::none());
    let hello = runtime.ledger().tool("hello").unwrap();
    assert_eq!(
        hello.spec().input_schema,
        json!({
            "type": "object",
            "properties": {
                "name": {
                    "description": "Who to greet; \"world\" when left out.",
                    "type": ["string", "null"]
                }
            },
            "additionalProperties": false
        })
    );
}

fn call(id: &str, args: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: "hello".into(),
        arguments: args.into(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dispatch_checks_arguments_against_the_derived_schema() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    enable(&runtime, "hello-tool", Grants::none());
    let hello = runtime.ledger().tool("hello").unwrap();
    // Read mode runs read-only tools without asking anyone.
    let policy = Policy::new(Mode::Read, scratch.workspace.clone(), Vec::new(), None);
    let dispatcher = Dispatcher::new(&[hello], Arc::new(policy));
    let calls = [
        call("1", r#"{"name": "schema"}"#),
        call("2", r#"{}"#),
        call("3", r#"{"name": 3}"#),
        call("4", r#"{"nmae": "typo"}"#),
    ];
    let out = dispatcher
        .dispatch(&calls, &[], &CancellationToken::new())
        .await;
    // The derived schema compiles: no warning at its first call.
    let warnings = dispatcher.take_warnings();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        (out[0].status, out[0].output.as_str()),
        (Status::Ok, "Hello, schema!")
    );
    assert_eq!(
        (out[1].status, out[1].output.as_str()),
        (Status::Ok, "Hello, world!")
    );
    for refused in &out[2..] {
        assert_eq!(refused.status, Status::Denied, "{}", refused.output);
        assert!(
            refused
                .output
                .starts_with("the arguments do not match the schema of `hello`"),
            "{}",
            refused.output
        );
    }
    assert!(out[3].output.contains("nmae"), "{}", out[3].output);
}

#[test]
fn arguments_that_skip_the_check_get_an_error_naming_the_field() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    enable(&runtime, "hello-tool", Grants::none());
    // Straight to the tool, as `amber tool call --raw` does: the guest's
    // parse_args is what answers.
    let err = call_tool(&runtime, "hello", json!({"name": 3})).unwrap_err();
    assert_eq!(
        err,
        "invalid arguments: `name`: invalid type: integer `3`, expected a string"
    );
    let err = call_tool(&runtime, "hello", json!({"nmae": "typo"})).unwrap_err();
    assert_eq!(
        err,
        "invalid arguments: unknown field `nmae`, expected `name`"
    );
}

/// What a plugin without `permission` is told, with the command to run.
fn not_granted(plugin: &str, permission: &str) -> String {
    format!("not granted: {permission} (grant it with `amber plugin grant {plugin} {permission}`)")
}

#[test]
fn file_tools_without_a_workspace_grant_name_the_missing_permission() {
    let scratch = Scratch::new();
    std::fs::write(scratch.workspace.join("a.txt"), "needle\n").unwrap();
    let runtime = scratch.runtime();
    enable(&runtime, "tools-fs", Grants::none());
    enable(&runtime, "tool-grep", Grants::none());
    let read = |plugin| not_granted(plugin, "workspace-read");
    for (tool, args, expected) in [
        (
            "read_file",
            json!({"path": "a.txt"}),
            format!("a.txt: {}", read("fs")),
        ),
        (
            "list_dir",
            json!({"path": "."}),
            format!(".: {}", read("fs")),
        ),
        (
            "glob",
            json!({"pattern": "*.txt"}),
            format!(".: {}", read("fs")),
        ),
        (
            "grep",
            json!({"pattern": "needle"}),
            format!(".: {}", read("grep")),
        ),
        (
            "write_file",
            json!({"path": "b.txt", "content": "x"}),
            format!("b.txt: {}", not_granted("fs", "workspace-write")),
        ),
    ] {
        let err = call_tool(&runtime, tool, args).unwrap_err();
        assert_eq!(err, expected, "{tool}");
    }
}

struct Yes;

impl GrantAsker for Yes {
    fn ask(
        &mut self,
        _plugin: &amber_runtime::lifecycle::PluginManifest,
        _request: &amber_runtime::lifecycle::PermissionRequest,
    ) -> bool {
        true
    }
}

#[test]
fn a_revoked_grant_is_named_on_the_next_read_and_a_missing_file_is_still_missing() {
    let scratch = Scratch::new();
    std::fs::write(scratch.workspace.join("a.txt"), "hi\n").unwrap();
    let mut manager = PluginManager::new(scratch.runtime(), &scratch.dirs(), BTreeMap::new(), None);
    manager
        .add(
            &amber_tests::guest("tools-fs"),
            &GrantChoice::default(),
            &mut Yes,
        )
        .unwrap();
    let runtime = manager.runtime();
    assert!(call_tool(runtime, "read_file", json!({"path": "a.txt"}))
        .unwrap()
        .contains("hi"));
    // With the grant, a missing file is reported as missing.
    let err = call_tool(runtime, "read_file", json!({"path": "gone.txt"})).unwrap_err();
    assert!(!err.contains("not granted"), "{err}");

    // What `amber plugin revoke fs workspace-read` (and -write) does.
    manager
        .set_grant("fs", Permission::WorkspaceRead, false)
        .unwrap();
    manager
        .set_grant("fs", Permission::WorkspaceWrite, false)
        .unwrap();
    let err = call_tool(manager.runtime(), "read_file", json!({"path": "a.txt"})).unwrap_err();
    assert_eq!(
        err,
        format!("a.txt: {}", not_granted("fs", "workspace-read"))
    );
}
