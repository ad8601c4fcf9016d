//! Hooks end to end (docs/hooks.md): the real `amber` binary, the
//! `hook-script` test component (its behaviour chosen by its settings),
//! the notes test tool, command hooks in Claude Code's format run through
//! the real spawner, and the fake LLM server.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use amber_tests::exec_env::{fake, sent_messages, Env};
use amber_tests::guest;
use serde_json::Value;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

/// A home with the notes tool and, given settings, the hook-script hook;
/// `extra` goes at the end of the config.
fn env(settings: &[(&str, &str)], extra: &str) -> Env {
    let env = Env::new(AMBER);
    std::fs::write(env.ws.join("b.txt"), "bee\n").unwrap();
    let mut config = String::from("[agent]\nconfirm_turn = false\n");
    if !settings.is_empty() {
        add(&env, "hook-script");
        config.push_str("[plugins.hook-script.settings]\n");
        for (key, value) in settings {
            config.push_str(&format!("{key:?} = {value:?}\n"));
        }
    }
    config.push_str(extra);
    std::fs::write(env.home.join("config.toml"), config).unwrap();
    env
}

/// Adds the test or first-party guest `name`, granted what it asks.
fn add(env: &Env, name: &str) {
    let out = env.run(&["plugin", "add", guest(name).to_str().unwrap(), "--yes"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// One call of read_note on `path`, then "done".
fn read_then_done(path: &str) -> String {
    format!(
        r#"
[[turns]]
reply = {{ tool_calls = [{{ id = "r1", name = "read_note", arguments = {{ path = "{path}" }} }}] }}
[[turns]]
reply = {{ text = "done" }}
"#
    )
}

fn hook_events(run: &amber_tests::exec_env::Run) -> Vec<&Value> {
    run.of_type("hook")
}

#[test]
fn a_pre_tool_deny_is_the_tools_result_and_an_event() {
    let env = env(&[("pre-tool", "deny:no notes today")], "");
    let server = fake(&read_then_done("a.txt"));
    let run = env.exec(&server, &[], "Read a.txt.");
    run.assert_done_after_denial("done");
    let results = run.results();
    assert_eq!(results[0].1, "denied", "{results:?}");
    assert!(
        results[0]
            .2
            .contains("denied by hook `hook-script`: no notes today"),
        "{results:?}"
    );
    let hooks = hook_events(&run);
    let deny = hooks
        .iter()
        .find(|h| h["event"] == "pre-tool")
        .expect("a pre-tool outcome");
    assert_eq!(deny["outcome"], "deny");
    assert_eq!(deny["tool"], "read_note");
    // The session record keeps it too.
    let record = std::fs::read_to_string(env.session_file(&run.session_id())).unwrap();
    assert!(record.contains(r#""type":"hook""#), "{record}");
    // And the chain still verifies on resume.
    let shown = env.show(&run.session_id());
    assert!(
        shown["messages"].as_array().is_some_and(|m| !m.is_empty()),
        "{shown}"
    );
}

#[test]
fn a_rewrite_runs_with_the_new_arguments_and_a_bad_one_is_refused_by_the_schema() {
    let env = env(&[("pre-tool", r#"rewrite:{"path":"b.txt"}"#)], "");
    let server = fake(&read_then_done("a.txt"));
    let run = env.exec(&server, &[], "Read a.txt.");
    run.assert_done("done");
    let results = run.results();
    assert_eq!(results[0].1, "ok", "{results:?}");
    assert!(results[0].2.contains("bee"), "{results:?}");

    let env = crate::env(&[("pre-tool", r#"rewrite:{"nope":1}"#)], "");
    let server = fake(&read_then_done("a.txt"));
    let run = env.exec(&server, &[], "Read a.txt.");
    let results = run.results();
    assert_eq!(results[0].1, "denied", "{results:?}");
    assert!(
        results[0].2.contains("a hook rewrote the arguments")
            && results[0].2.contains("schema of `read_note`"),
        "{results:?}"
    );
}

#[test]
fn post_tool_context_reaches_the_next_request() {
    let env = env(&[("post-tool", "context:remember the tests")], "");
    let server = fake(&read_then_done("a.txt"));
    let run = env.exec(&server, &[], "Read a.txt.");
    run.assert_done("done");
    let received = server.received();
    let second = sent_messages(&received[1].body).join("\n");
    assert!(
        second.contains("hi there") && second.contains("[hook `hook-script`] remember the tests"),
        "{second}"
    );
}

#[test]
fn a_stop_hook_continues_the_run_until_the_cap_holds() {
    let env = env(&[("stop", "continue:the tests still fail")], "");
    let server = fake(
        r#"
[[turns]]
reply = { text = "done 1" }
[[turns]]
reply = { text = "done 2" }
[[turns]]
reply = { text = "done 3" }
[[turns]]
reply = { text = "done 4" }
"#,
    );
    let run = env.exec(&server, &[], "Fix it.");
    run.assert_done("done 4");
    let steers = run.of_type("steer");
    assert_eq!(steers.len(), 3, "{:#?}", run.events);
    assert!(steers[0]["message"]
        .as_str()
        .unwrap()
        .contains("the tests still fail"));
    let warnings: Vec<&str> = run
        .of_type("warning")
        .iter()
        .filter_map(|w| w["message"].as_str())
        .collect();
    assert!(
        warnings.iter().any(|w| w.contains("at most 3")),
        "{warnings:?}"
    );
    assert_eq!(server.received().len(), 4);
}

#[test]
fn a_trapping_pre_tool_hook_denies_and_names_itself() {
    let env = env(&[("pre-tool", "trap")], "");
    let server = fake(&read_then_done("a.txt"));
    let run = env.exec(&server, &[], "Read a.txt.");
    run.assert_done_after_denial("done");
    let results = run.results();
    assert_eq!(results[0].1, "denied", "{results:?}");
    assert!(
        results[0].2.contains("hook `hook-script`") && results[0].2.contains("failed"),
        "{results:?}"
    );
    let failed = hook_events(&run)
        .into_iter()
        .find(|h| h["outcome"] == "failed")
        .expect("a failed outcome");
    assert_eq!(failed["denied"], true);
}

#[test]
fn a_slow_hook_hits_its_deadline_and_on_error_allow_lets_the_call_run() {
    let env = env(&[("pre-tool", "spin")], "[limits]\ndeadline_ms = 300\n");
    let server = fake(&read_then_done("a.txt"));
    let run = env.exec(&server, &[], "Read a.txt.");
    let results = run.results();
    assert_eq!(results[0].1, "denied", "{results:?}");
    assert!(results[0].2.contains("deadline"), "{results:?}");

    let env = crate::env(
        &[("pre-tool", "spin")],
        "[limits]\ndeadline_ms = 300\n[plugins.hook-script]\nhook_on_error = \"allow\"\n",
    );
    let server = fake(&read_then_done("a.txt"));
    let run = env.exec(&server, &[], "Read a.txt.");
    let results = run.results();
    assert_eq!(results[0].1, "ok", "{results:?}");
}

#[test]
fn a_command_hook_in_claude_codes_format_blocks_with_exit_code_two() {
    let config = r#"
[[hooks.command]]
event = "PreToolUse"
matcher = "read_note"
command = "cat > hook-input.json; echo 'not that file' >&2; exit 2"
"#;
    let env = env(&[], config);
    let server = fake(&read_then_done("a.txt"));
    let run = env.exec(&server, &["--mode", "yolo"], "Read a.txt.");
    run.assert_done_after_denial("done");
    let results = run.results();
    assert_eq!(results[0].1, "denied", "{results:?}");
    assert!(
        results[0].2.contains("hook `config#1`: not that file"),
        "{results:?}"
    );
    // It read the event's JSON in Claude Code's names on stdin.
    let input: Value =
        serde_json::from_str(&std::fs::read_to_string(env.ws.join("hook-input.json")).unwrap())
            .unwrap();
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["tool_name"], "read_note");
    // read_note is no tool of Claude Code: its arguments keep their names.
    assert_eq!(input["tool_input"]["path"], "a.txt");
}

#[test]
fn an_untrusted_workspace_hook_is_skipped_without_a_terminal_until_trusted() {
    let env = env(&[], "[hooks]\nclaude_settings = true\n");
    std::fs::create_dir_all(env.ws.join(".claude")).unwrap();
    std::fs::write(
        env.ws.join(".claude/settings.json"),
        r#"{"hooks":{"PreToolUse":[{"matcher":"read_note","hooks":[{"type":"command","command":"echo planted >&2; exit 2"}]}]}}"#,
    )
    .unwrap();
    let server = fake(&read_then_done("a.txt"));
    let run = env.exec(&server, &[], "Read a.txt.");
    run.assert_done("done");
    assert_eq!(run.results()[0].1, "ok", "{:?}", run.results());
    let warnings = run.one("session.started")["warnings"].to_string();
    assert!(
        warnings.contains("is not trusted, so it does not run"),
        "{warnings}"
    );
    let listed: Value =
        serde_json::from_slice(&env.run(&["hooks", "list", "--json"]).stdout).unwrap();
    let planted = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|h| {
            h["source"]
                .as_str()
                .unwrap_or("")
                .ends_with(".claude/settings.json")
        })
        .expect("the planted hook is listed");
    assert_eq!(planted["trust"], "untrusted");
    let fingerprint = planted["fingerprint"].as_str().unwrap().to_string();
    // `/hooks` in the command tree shows the same list.
    let out = env.run(&["--json", "/hooks"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let slash: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(slash["data"]["hooks"], listed, "{slash}");

    // Trusted by fingerprint, it runs; changed, it is untrusted again.
    let out = env.run(&["hooks", "trust", &fingerprint]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let server = fake(&read_then_done("a.txt"));
    let run = env.exec(&server, &[], "Read a.txt.");
    assert_eq!(run.results()[0].1, "denied", "{:?}", run.results());
    assert!(run.results()[0].2.contains("planted"));
    std::fs::write(
        env.ws.join(".claude/settings.json"),
        r#"{"hooks":{"PreToolUse":[{"matcher":"read_note","hooks":[{"type":"command","command":"echo changed >&2; exit 2"}]}]}}"#,
    )
    .unwrap();
    let server = fake(&read_then_done("a.txt"));
    let run = env.exec(&server, &[], "Read a.txt.");
    assert_eq!(run.results()[0].1, "ok", "{:?}", run.results());
    // --trust-hooks trusts and pins it for later runs.
    let server = fake(&read_then_done("a.txt"));
    let run = env.exec(&server, &["--trust-hooks"], "Read a.txt.");
    assert_eq!(run.results()[0].1, "denied", "{:?}", run.results());
    let server = fake(&read_then_done("a.txt"));
    let run = env.exec(&server, &[], "Read a.txt.");
    assert_eq!(run.results()[0].1, "denied", "{:?}", run.results());
}

#[test]
fn a_blocked_prompt_never_reaches_the_model() {
    let env = env(&[("user-prompt-submit", "block:no secrets in prompts")], "");
    let server = fake("[[turns]]\nreply = { text = \"never sent\" }\n");
    let run = env.exec(&server, &[], "Here is my password.");
    assert_eq!(run.code, Some(3), "{:#?}", run.events);
    let failed = run.one("session.failed");
    assert!(
        failed["error"]
            .as_str()
            .unwrap()
            .contains("blocked by hook `hook-script`: no secrets in prompts"),
        "{failed}"
    );
    assert!(server.received().is_empty());
}

#[test]
fn session_start_context_goes_with_the_prompt_and_the_end_is_observed() {
    let env = env(
        &[
            ("session-start", "context:on branch main"),
            ("session-end", "ok"),
        ],
        "",
    );
    let server = fake("[[turns]]\nreply = { text = \"done\" }\n");
    let run = env.exec(&server, &[], "Hello.");
    run.assert_done("done");
    let first = sent_messages(&server.received()[0].body).join("\n");
    assert!(
        first.contains("[hook `hook-script`] on branch main"),
        "{first}"
    );
    let events: Vec<&str> = hook_events(&run)
        .iter()
        .filter_map(|h| h["event"].as_str())
        .collect();
    assert!(
        events.contains(&"session-start") && events.contains(&"session-end"),
        "{events:?}"
    );
}

#[test]
fn a_permission_hook_approves_within_the_mode_only() {
    let write = r#"
[[turns]]
reply = { tool_calls = [{ id = "w1", name = "write_note", arguments = { path = "n.txt", text = "x" } }] }
[[turns]]
reply = { text = "done" }
"#;
    // Without a terminal or --yes, a write is not approved ...
    let env = env(&[("permission-request", "abstain")], "");
    let run = env.exec(&fake(write), &[], "Write.");
    assert_eq!(run.results()[0].1, "denied", "{:?}", run.results());
    // ... but the hook approves it on the user's behalf.
    let env = crate::env(&[("permission-request", "approve")], "");
    let run = env.exec(&fake(write), &[], "Write.");
    assert_eq!(run.results()[0].1, "ok", "{:?}", run.results());
    assert!(env.ws.join("n.txt").exists());
    // Read mode blocks before any hook is asked.
    let run = env.exec(&fake(write), &["--mode", "read"], "Write.");
    assert_eq!(run.results()[0].1, "denied", "{:?}", run.results());
    assert!(
        run.results()[0].2.contains("read mode"),
        "{:?}",
        run.results()
    );
}

#[test]
fn hook_guard_denies_env_reads_and_git_writes_and_lets_the_rest_run() {
    let env = env(&[], "");
    add(&env, "hook-guard");
    std::fs::write(env.ws.join(".env"), "KEY=1\n").unwrap();
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "r1", name = "read_note", arguments = { path = ".env" } }, { id = "w1", name = "write_note", arguments = { path = ".git/config", text = "x" } }, { id = "r2", name = "read_note", arguments = { path = "a.txt" } }] }
[[turns]]
reply = { text = "done" }
"#,
    );
    let run = env.exec(&server, &["--yes"], "Look around.");
    run.assert_done("done");
    let results = run.results();
    assert_eq!(results[0].1, "denied", "{results:?}");
    assert!(results[0].2.contains("hook `hook-guard`"), "{results:?}");
    assert_eq!(results[1].1, "denied", "{results:?}");
    assert!(results[1].2.contains(".git"), "{results:?}");
    assert_eq!(results[2].1, "ok", "{results:?}");
    assert!(!env.ws.join(".git/config").exists());
}

#[test]
fn hook_context_tells_the_model_the_branch_the_changes_and_the_failing_tests() {
    let env = env(&[], "");
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(&env.ws)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    git(&["init", "-q", "-b", "trunk"]);
    git(&["add", "a.txt"]);
    git(&["commit", "-q", "-m", "first"]);
    std::fs::write(env.ws.join("a.txt"), "changed\n").unwrap();
    std::fs::create_dir_all(env.ws.join(".amber")).unwrap();
    std::fs::write(
        env.ws.join(".amber/failing-tests"),
        "parser::handles_tabs\n",
    )
    .unwrap();
    add(&env, "hook-context");
    let server = fake("[[turns]]\nreply = { text = \"done\" }\n");
    let run = env.exec(&server, &[], "Where are we?");
    run.assert_done("done");
    let first = sent_messages(&server.received()[0].body).join("\n");
    assert!(first.contains("[hook `hook-context`]"), "{first}");
    assert!(first.contains("trunk"), "{first}");
    assert!(first.contains("a.txt"), "{first}");
    assert!(first.contains("parser::handles_tabs"), "{first}");
}

#[test]
fn a_workspaces_claude_code_hooks_are_offered_once_instead_of_ignored() {
    let env = Env::without_confirm_turn(AMBER);
    std::fs::create_dir_all(env.ws.join(".claude")).unwrap();
    std::fs::write(
        env.ws.join(".claude/settings.json"),
        r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo offered-hook-ran > hook.out"}]}]}}"#,
    )
    .unwrap();
    let script = "[[turns]]\nreply = { text = \"hi\" }\n[[turns]]\nreply = { text = \"hi again\" }\n";
    // Headless: said once, not run, not asked again.
    let server = fake(script);
    let run = env.exec(&server, &[], "hello");
    run.assert_done("hi");
    // The run's start says so (its warnings, in the JSON stream).
    let said = |run: &amber_tests::exec_env::Run| {
        serde_json::to_string(&run.events).unwrap().contains(".claude/settings.json defines hooks")
    };
    assert!(said(&run), "{:#?}", run.events);
    let again = env.exec(&server, &[], "hello");
    assert!(!said(&again), "{:#?}", again.events);
    assert!(!env.ws.join("hook.out").exists());

    // At a terminal, in a workspace not offered yet: yes turns them on,
    // and the hook itself is still asked about before it runs.
    let other = Env::without_confirm_turn(AMBER);
    std::fs::create_dir_all(other.ws.join(".claude")).unwrap();
    std::fs::copy(env.ws.join(".claude/settings.json"), other.ws.join(".claude/settings.json")).unwrap();
    let server = fake("[[turns]]\nreply = { text = \"done\" }\n");
    let shown = other.exec_on_a_tty(&server.openai_base(), "hello", "y\ny\n");
    assert!(shown.contains("Read Claude Code hooks from now on?"), "{shown}");
    assert!(shown.contains("has not been trusted"), "{shown}");
    let config = std::fs::read_to_string(other.home.join("config.toml")).unwrap();
    assert!(config.contains("claude_settings = true"), "{config}");
    assert_eq!(
        std::fs::read_to_string(other.ws.join("hook.out")).unwrap().trim(),
        "offered-hook-ran"
    );
    // The file the hook writes is its data, not its code: the hook stays
    // trusted after writing it, and runs again headless.
    std::fs::remove_file(other.ws.join("hook.out")).unwrap();
    std::fs::write(other.ws.join("hook.out"), "changed by the hook\n").unwrap();
    let server = fake("[[turns]]\nreply = { text = \"again\" }\n");
    other.exec(&server, &[], "hello").assert_done("again");
    assert_eq!(
        std::fs::read_to_string(other.ws.join("hook.out")).unwrap().trim(),
        "offered-hook-ran"
    );
}
