//! TUI II end to end in a real terminal (tmux, the real binary, the fake
//! LLM server): the drawer completes `/set policy read`; a plugin disabled
//! in the plugin view is gone from the next request the server receives;
//! a past session opens from the picker and the next request carries it.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use amber_tests::exec_env::{fake, Env};
use amber_tests::tmux::Tmux;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

fn env() -> Env {
    Env::without_confirm_turn(AMBER)
}

/// `amber plugin list --json`'s plugins, in the order the view lists them.
fn listed_plugins(env: &Env) -> Vec<serde_json::Value> {
    let listed: serde_json::Value =
        serde_json::from_slice(&env.run(&["plugin", "list", "--json"]).stdout).unwrap();
    listed["plugins"].as_array().cloned().unwrap_or_default()
}

/// Where plugin `id` is in the plugin view's list.
fn row_of(env: &Env, id: &str) -> usize {
    listed_plugins(env)
        .iter()
        .position(|p| p["id"] == id)
        .unwrap_or_else(|| panic!("no plugin `{id}`"))
}

/// The names of the tools a recorded request declared.
fn declared_tools(body: &serde_json::Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["function"]["name"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_drawer_completes_a_command_and_enter_runs_it() {
    let env = env();
    let server = fake("[[turns]]\nreply = { text = \"unused\" }\n");
    let tui = Tmux::start(&env, &server, "amber-drawer", "");
    tui.wait_for("mode write");
    tui.keys(&["-l", "/set po"]);
    // The keys arrive one by one: wait for the drawer of the whole prefix.
    tui.wait_for("› /set po");
    let drawer = tui.wait_for("tab completes");
    assert!(drawer.contains("policy"), "{drawer}");
    tui.keys(&["Tab"]);
    // The drawer follows: the values of `policy`, each with its help.
    let values = tui.wait_for("yolo");
    assert!(
        values.contains("read") && values.contains("write"),
        "{values}"
    );
    tui.keys(&["-l", "re"]);
    tui.keys(&["Enter"]);
    tui.wait_for("mode read");
    // A command's error goes to the status line.
    tui.type_line("/set temperature 5");
    tui.wait_for("command error: cannot set temperature");
    // A word the tree does not have opens the node's page.
    tui.type_line("/set nonsense 3");
    tui.wait_for("/set has no `nonsense`");
    tui.keys(&["Escape"]);
    tui.wait_for("enter sends");
    tui.keys(&["C-d"]);
    tui.wait_for("amber exited 0");
}

#[test]
fn a_plugin_disabled_in_the_view_is_gone_from_the_next_request() {
    let env = env();
    let server = fake(
        "[[turns]]\nreply = { text = \"First answer.\" }\n[[turns]]\nreply = { text = \"Second answer.\" }\n",
    );
    let grep = row_of(&env, "grep");

    let tui = Tmux::start(&env, &server, "amber-plugin-view", "");
    tui.wait_for("mode write");
    tui.type_line("First question");
    tui.wait_for("First answer.");
    assert!(declared_tools(&server.received()[0].body).contains(&"grep".to_string()));

    tui.type_line("/plugins");
    tui.wait_for("e enable");
    for _ in 0..grep {
        tui.keys(&["Down"]);
    }
    tui.keys(&["d"]);
    let view = tui.wait_for("deactivated");
    assert!(view.contains("grep"), "{view}");
    tui.keys(&["Escape"]);
    tui.wait_for("plugin `grep` is deactivated");

    tui.type_line("Second question");
    tui.wait_for("Second answer.");
    let tools = declared_tools(&server.received()[1].body);
    assert!(!tools.contains(&"grep".to_string()), "{tools:?}");
    assert!(tools.contains(&"read_file".to_string()), "{tools:?}");
    tui.keys(&["C-d"]);
    tui.wait_for("amber exited 0");
    // The choice is kept: a later run starts without it too.
    let grep = listed_plugins(&env)
        .into_iter()
        .find(|p| p["id"] == "grep")
        .unwrap();
    assert_eq!(grep["enabled"], false, "{grep}");
}

#[test]
fn a_past_session_opens_from_the_picker() {
    let env = env();
    let server = fake(
        "[[turns]]\nreply = { text = \"The answer is 42.\" }\n[[turns]]\nreply = { text = \"Still 42.\" }\n",
    );
    env.exec(&server, &[], "What is the answer?")
        .assert_done("The answer is 42.");
    let listed: serde_json::Value =
        serde_json::from_slice(&env.run(&["sessions", "list", "--json"]).stdout).unwrap();
    let past = listed["sessions"][0]["id"].as_str().unwrap().to_string();

    let tui = Tmux::start(&env, &server, "amber-picker", "");
    tui.wait_for("mode write");
    tui.keys(&["C-r"]);
    let picker = tui.wait_for("enter opens");
    assert!(picker.contains("What is the answer?"), "{picker}");
    // Newest first: the TUI's own new session, then the past one.
    tui.keys(&["Down"]);
    tui.keys(&["Enter"]);
    tui.wait_for(&format!("session {past} resumed"));
    tui.type_line("And now?");
    tui.wait_for("Still 42.");
    let sent = server.received().last().unwrap().body.to_string();
    assert!(
        sent.contains("What is the answer?") && sent.contains("The answer is 42."),
        "{sent}"
    );
    tui.keys(&["C-d"]);
    tui.wait_for("amber exited 0");
    assert_eq!(env.show(&past)["verified"], true);
}

/// The folder amber keeps plugin `id` in, from `amber plugin list`.
fn plugin_folder(env: &Env, id: &str) -> std::path::PathBuf {
    let plugin = listed_plugins(env)
        .into_iter()
        .find(|p| p["id"] == id)
        .unwrap_or_else(|| panic!("no plugin `{id}`"));
    std::path::PathBuf::from(plugin["source"].as_str().unwrap())
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Copies `guest` into `folder` under `name`, whole before it appears
/// (as a package manager or `cp` to a temporary name and `mv` would).
fn drop_in(guest: &str, folder: &std::path::Path, name: &str) {
    let tmp = folder.join(format!(".{name}.part"));
    std::fs::copy(amber_tests::guest(guest), &tmp).unwrap();
    std::fs::rename(&tmp, folder.join(name)).unwrap();
}

#[test]
fn a_changed_plugin_reloads_in_place_and_one_asking_for_more_waits_for_the_grant() {
    let env = env();
    // v2 asks for workspace-read, granted as it is added.
    let out = env.run(&[
        "plugin",
        "add",
        "--grant",
        "workspace-read",
        amber_tests::guest("hello-v2").to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let folder = plugin_folder(&env, "hello");
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "h1", name = "hello", arguments = { name = "Ada" } }] }
[[turns]]
expect_tool_results = ["h1"]
reply = { text = "Greeted once." }
[[turns]]
reply = { tool_calls = [{ id = "h2", name = "hello", arguments = { name = "Bob" } }] }
[[turns]]
expect_tool_results = ["h2"]
reply = { text = "Greeted twice." }
[[turns]]
reply = { tool_calls = [{ id = "w1", name = "wave", arguments = {} }] }
[[turns]]
expect_tool_results = ["w1"]
reply = { text = "Waved." }
"#,
    );
    let tui = Tmux::start(&env, &server, "amber-reload", "");
    tui.wait_for("mode write");
    tui.type_line("Greet Ada");
    tui.wait_for("Greeted once.");
    assert!(server.received()[1]
        .body
        .to_string()
        .contains("Hi there, Ada!"));

    // v1 in the folder (named to sort before the stored `<hash>.wasm`:
    // the newest file wins by time, not name): it asks for nothing new,
    // so it replaces v2 at once, without a restart, and the next call is
    // answered by it.
    drop_in("hello-tool", &folder, "0-b-v1.wasm");
    tui.wait_for("plugin `hello` reloaded");
    tui.type_line("Greet Bob");
    tui.wait_for("Greeted twice.");
    let answer = server.received()[3].body.to_string();
    assert!(
        answer.contains("Hello, Bob!") && !answer.contains("Hi there, Bob"),
        "{answer}"
    );

    // v2 again, copied in as a newer file: since v1 the grant record is
    // bound to v1, which asked for nothing; v2's workspace-read is a new
    // request, so it waits, deactivated, until the user decides.
    drop_in("hello-v2", &folder, "0-a-v2-again.wasm");
    tui.wait_for("now asks for workspace-read");
    tui.keys(&["C-p"]);
    tui.wait_for("e enable");
    let hello = row_of(&env, "hello");
    for _ in 0..hello {
        tui.keys(&["Down"]);
    }
    let view = tui.wait_for("grant or refuse");
    assert!(view.contains("deactivated"), "{view}");
    // Tab to its permissions, g grants the one waiting: it is enabled.
    tui.keys(&["Tab"]);
    tui.keys(&["g"]);
    tui.wait_for("tool wave");
    tui.keys(&["Escape"]);
    tui.type_line("Wave");
    tui.wait_for("Waved.");
    assert!(server.received()[5].body.to_string().contains("o/"));
    tui.keys(&["C-d"]);
    tui.wait_for("amber exited 0");
}
