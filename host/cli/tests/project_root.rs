//! The project root found from any folder of a project, end to end with the
//! real binary: the walk up to `.git` or `.amber/`, AGENTS.md from the root
//! down to the folder amber started in, paths typed from that folder, and
//! the same session workspace and memory namespace from anywhere inside.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::path::{Path, PathBuf};
use std::process::Output;

use amber_tests::exec_env::{fake, sent_messages, text, Env, Run};
use serde_json::Value;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");
const DONE: &str = "[[turns]]\nreply = { text = \"DONE\" }\n";

/// A project with `.git` at `ws`, and `ws/app/src` to start in.
fn project() -> (Env, PathBuf) {
    let env = Env::new(AMBER);
    let ws = env.ws.canonicalize().unwrap();
    std::fs::create_dir_all(ws.join(".git")).unwrap();
    std::fs::create_dir_all(ws.join("app/src")).unwrap();
    (env, ws)
}

/// `amber ARGS` started in `dir`, with no `-C` and no `$AMBER_WORKSPACE`.
fn run_in(env: &Env, dir: &Path, args: &[&str]) -> Output {
    let mut cmd = env.command(args);
    cmd.current_dir(dir).env_remove("AMBER_WORKSPACE");
    cmd.output().unwrap()
}

fn json(out: &Output) -> Value {
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out.stdout)))
}

#[test]
fn a_subfolder_indexes_the_whole_project_with_the_same_ids() {
    let (env, ws) = project();
    std::fs::write(ws.join("app/src/lib.rs"), "pub fn helper() {}\n").unwrap();
    std::fs::write(ws.join("top.rs"), "fn top() { helper(); }\n").unwrap();
    let deep = ws.join("app/src");
    let report = json(&run_in(&env, &deep, &["index", "--json"]));
    assert_eq!(report["root"], ws.display().to_string());
    assert_eq!(report["report"]["files"], 2, "{report}");
    // A path typed in the subfolder is read from it, and the ids are the
    // project's, the same as from the root.
    let from_deep = json(&run_in(&env, &deep, &["outline", "lib.rs", "--json"]));
    let from_root = json(&run_in(&env, &ws, &["outline", "app/src/lib.rs", "--json"]));
    assert_eq!(from_deep, from_root);
    assert!(
        from_deep.to_string().contains("app/src/lib.rs::helper"),
        "{from_deep}"
    );
    let out = run_in(&env, &deep, &["outline", "../../../outside.rs"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("outside the workspace"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn an_amber_folder_marks_a_root_below_the_git_root() {
    let (env, ws) = project();
    std::fs::create_dir_all(ws.join("app/.amber")).unwrap();
    let out = run_in(
        &env,
        &ws.join("app/src"),
        &["doctor", "--json", "--offline"],
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        report["workspace"]["root"],
        ws.join("app").display().to_string()
    );
    assert_eq!(report["workspace"]["rule"], "amber-marker");
    // -C wins over the walk.
    let out = run_in(
        &env,
        &ws.join("app/src"),
        &["-C", ws.to_str().unwrap(), "doctor", "--json", "--offline"],
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (
            report["workspace"]["root"].clone(),
            report["workspace"]["rule"].clone()
        ),
        (Value::from(ws.display().to_string()), Value::from("flag"))
    );
}

fn exec_in(env: &Env, dir: &Path, prompt: &str) -> (Run, amber_tests::fake_llm::FakeLlm) {
    let server = fake(&format!("[[turns]]\nreply = {{ text = \"ok\" }}\n{DONE}"));
    let base = server.openai_base();
    let out = run_in(env, dir, &["exec", "--json", "--base-url", &base, prompt]);
    (Run::from(out), server)
}

#[test]
fn agents_files_from_the_root_down_to_the_start_folder_all_reach_the_model_nearest_last() {
    let (env, ws) = project();
    std::fs::write(ws.join("AGENTS.md"), "Root rule: answer briefly.").unwrap();
    std::fs::write(ws.join("app/CLAUDE.md"), "App rule: use tabs.").unwrap();
    std::fs::write(ws.join("app/src/AGENTS.md"), "Src rule: no unwrap.").unwrap();
    let (run, server) = exec_in(&env, &ws.join("app/src"), "hello");
    run.assert_done("ok");
    let started = run.one("session.started");
    assert_eq!(started["workspace"], ws.display().to_string());
    let files: Vec<String> = started["instruction_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        files,
        [
            ws.join("AGENTS.md"),
            ws.join("app/CLAUDE.md"),
            ws.join("app/src/AGENTS.md")
        ]
        .map(|p| p.display().to_string())
    );
    assert_eq!(started["instructions"], files[2]);
    let system = &sent_messages(&server.received()[0].body)[0];
    let at = |s: &str| {
        system
            .find(s)
            .unwrap_or_else(|| panic!("{s} not in {system}"))
    };
    assert!(at("Root rule") < at("App rule") && at("App rule") < at("Src rule"));
    assert!(system.contains("(from app/src/AGENTS.md)"), "{system}");

    // From the root, only the root's file is read.
    let (run, _) = exec_in(&env, &ws, "hello");
    let started = run.one("session.started");
    assert_eq!(started["instruction_files"].as_array().unwrap().len(), 1);
}

#[test]
fn sessions_and_memory_are_the_projects_from_any_folder() {
    let (env, ws) = project();
    let deep = ws.join("app/src");
    let (run, _) = exec_in(&env, &deep, "from deep");
    run.assert_done("ok");
    let listed = json(&run_in(&env, &ws, &["sessions", "list", "--json"]));
    let workspaces: Vec<&Value> = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["workspace"])
        .collect();
    assert_eq!(workspaces, [&Value::from(ws.display().to_string())]);

    json(&run_in(
        &env,
        &deep,
        &[
            "memory",
            "add",
            "--json",
            "--type",
            "procedure",
            "--title",
            "build",
            "run cargo xtask test",
        ],
    ));
    let exported = json(&run_in(
        &env,
        &ws,
        &["memory", "export", "--format", "json"],
    ));
    assert_eq!(exported["namespace"], format!("project:{}", ws.display()));
    assert_eq!(exported["records"][0]["content"], "run cargo xtask test");
    let recalled = run_in(&env, &ws, &["memory", "recall", "cargo xtask"]);
    assert!(
        text(&recalled.stdout).contains("run cargo xtask test"),
        "{}",
        text(&recalled.stdout)
    );
}
