//! The seed's "Capability ledger", end to end through real components:
//! enable installs in declaration order, disable unwinds in reverse, and
//! enable, disable and replace all work in a running process.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use amber_core::Owner;
use amber_runtime::{Grants, PluginState, Registration};
use amber_tests::{call_tool, enable, guest, Scratch};
use serde_json::json;

#[test]
fn enable_installs_each_capability_in_declaration_order_and_records_it() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    let id = enable(&runtime, "echo-tool", Grants::none());
    let names: Vec<String> = runtime
        .ledger()
        .contributions(&Owner::Plugin(id.clone()))
        .into_iter()
        .map(|c| c.name)
        .collect();
    assert_eq!(names, ["echo", "count"]);
    assert_eq!(runtime.state(&id), Some(PluginState::Active));
    assert_eq!(
        call_tool(&runtime, "echo", json!({"a": [1, 2]})).unwrap(),
        r#"{"a":[1,2]}"#
    );
}

#[test]
fn disable_runs_shutdown_then_unwinds_in_reverse_install_order() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    let id = enable(&runtime, "echo-tool", Grants::none());
    let removed: Vec<String> = runtime
        .disable(&id)
        .unwrap()
        .into_iter()
        .map(|c| c.name)
        .collect();
    assert_eq!(removed, ["count", "echo"]);
    assert_eq!(runtime.state(&id), Some(PluginState::Deactivated));
    assert!(runtime.ledger().tool("echo").is_none());
    assert!(runtime.ledger().records().is_empty());
}

#[test]
fn a_tool_held_across_disable_answers_not_active_instead_of_running() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    let id = enable(&runtime, "hello-tool", Grants::none());
    let held = runtime.ledger().tool("hello").unwrap();
    runtime.disable(&id).unwrap();
    let err = held.call(&json!({})).unwrap_err().to_string();
    assert!(
        err.contains("plugin `hello`") && err.contains("not active"),
        "{err}"
    );
}

#[test]
fn enable_disable_and_enable_again_without_restart() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    let id = enable(&runtime, "hello-tool", Grants::none());
    assert_eq!(
        call_tool(&runtime, "hello", json!({"name": "a"})).unwrap(),
        "Hello, a!"
    );
    runtime.disable(&id).unwrap();
    assert!(call_tool(&runtime, "hello", json!({})).is_err());
    runtime.enable(&id, Grants::none()).unwrap();
    assert_eq!(
        call_tool(&runtime, "hello", json!({"name": "b"})).unwrap(),
        "Hello, b!"
    );
}

#[test]
fn replace_swaps_a_running_plugin_in_place_keeping_it_active() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    let id = enable(&runtime, "hello-tool", Grants::none());
    runtime.replace(&id, &guest("hello-v2")).unwrap();
    assert_eq!(runtime.state(&id), Some(PluginState::Active));
    assert_eq!(
        call_tool(&runtime, "hello", json!({"name": "v2"})).unwrap(),
        "Hi there, v2!"
    );
    assert_eq!(call_tool(&runtime, "wave", json!({})).unwrap(), "o/");
    assert_eq!(runtime.status(&id).unwrap().manifest.version, "0.2.0");
}

#[test]
fn registering_the_same_file_twice_changes_nothing_and_new_bytes_replace() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    let (id, first) = runtime.register_file(&guest("hello-tool")).unwrap();
    let (_, again) = runtime.register_file(&guest("hello-tool")).unwrap();
    let (_, newer) = runtime.register_file(&guest("hello-v2")).unwrap();
    assert_eq!(
        (first, again, newer),
        (
            Registration::New,
            Registration::Unchanged,
            Registration::Replaced
        )
    );
    assert_eq!(runtime.status(&id).unwrap().state, PluginState::Registered);
}

#[test]
fn replace_refuses_a_component_with_another_id() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    let id = enable(&runtime, "hello-tool", Grants::none());
    let err = runtime
        .replace(&id, &guest("echo-tool"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("is plugin `echo`, not `hello`"), "{err}");
    assert_eq!(
        call_tool(&runtime, "hello", json!({"name": "still"})).unwrap(),
        "Hello, still!"
    );
}

#[test]
fn a_failing_initialize_marks_the_plugin_failed_with_its_reason() {
    let scratch = Scratch::new();
    let mut options = scratch.options();
    let settings = [("fail-initialize".to_string(), "no config file".to_string())];
    options
        .settings
        .insert("misbehave".into(), settings.into_iter().collect());
    let runtime = scratch.runtime_with(options);
    let (id, _) = runtime.register_file(&guest("misbehave")).unwrap();
    let err = runtime.enable(&id, Grants::none()).unwrap_err().to_string();
    assert!(err.contains("initialize failed: no config file"), "{err}");
    let status = runtime.status(&id).unwrap();
    assert_eq!(status.state, PluginState::Failed);
    assert!(status.reason.unwrap().contains("no config file"));
    assert!(status.contributions.is_empty());
}

/// A host-native tool, installed through the same ledger as components.
struct NativeTool(amber_core::ports::ToolSpec);

impl amber_core::ports::Tool for NativeTool {
    fn spec(&self) -> &amber_core::ports::ToolSpec {
        &self.0
    }
    fn call(
        &self,
        _args: &serde_json::Value,
    ) -> Result<amber_core::ports::ToolOutput, amber_core::ports::ToolError> {
        Ok(amber_core::ports::ToolOutput {
            content: "native".into(),
            meta: None,
            images: Vec::new(),
        })
    }
}

fn native(name: &str) -> amber_core::Service {
    let spec = amber_core::ports::ToolSpec {
        name: name.into(),
        description: "host-native".into(),
        input_schema: json!({"type": "object"}),
        read_only: true,
        gated_by_exec: false,
        approval_group: None,
    };
    amber_core::Service::Tool(std::sync::Arc::new(NativeTool(spec)))
}

#[test]
fn a_name_already_taken_fails_the_plugin_and_unwinds_what_it_installed() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    // hello-v2 declares `hello` then `wave`; the host holds `wave`.
    runtime
        .ledger()
        .install(&Owner::Host, native("wave"))
        .unwrap();
    let (id, _) = runtime.register_file(&guest("hello-v2")).unwrap();
    let err = runtime.enable(&id, Grants::none()).unwrap_err().to_string();
    assert!(
        err.contains("tool `wave` of plugin `hello` is refused: host already provides it"),
        "{err}"
    );
    assert_eq!(runtime.state(&id), Some(PluginState::Failed));
    assert!(
        runtime.ledger().tool("hello").is_none(),
        "its first install was unwound"
    );
    assert_eq!(call_tool(&runtime, "wave", json!({})).unwrap(), "native");
}

#[test]
fn host_native_and_component_contributions_unwind_the_same_way() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    runtime
        .ledger()
        .install(&Owner::Host, native("task"))
        .unwrap();
    enable(&runtime, "hello-tool", Grants::none());
    let owners: Vec<Owner> = runtime
        .ledger()
        .records()
        .into_iter()
        .map(|(o, _)| o)
        .collect();
    assert_eq!(owners, [Owner::Host, Owner::Plugin("hello".into())]);
    assert_eq!(runtime.ledger().unwind(&Owner::Host).len(), 1);
    assert!(runtime.ledger().tool("task").is_none());
    assert!(runtime.ledger().tool("hello").is_some());
}

#[test]
fn info_reports_manifest_exports_hash_grants_and_contributions() {
    let scratch = Scratch::new();
    let runtime = scratch.runtime();
    let id = enable(
        &runtime,
        "misbehave",
        Grants::of([amber_runtime::Permission::WorkspaceRead]),
    );
    let status = runtime.status(&id).unwrap();
    assert_eq!(status.manifest.api_version, "0.3.0");
    assert_eq!(status.manifest.permissions.len(), 2);
    assert!(status.exports.contains(&"tool".to_string()));
    assert_eq!(status.hash.len(), 64);
    assert!(status.grants.can_read_workspace());
    assert_eq!(status.contributions.len(), 16);
}
