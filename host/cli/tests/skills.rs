//! Skills end to end through the real binary and the fake LLM server:
//! the index in the first request, `skill` loading the instructions into
//! the next, `allowed-tools` narrowing what the model may call, the
//! folders of Claude Code's layout, a broken SKILL.md named and skipped,
//! and a compression candidate promoted by a person.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::path::Path;

use amber_tests::exec_env::{fake, sent_messages, text, Env};
use serde_json::Value;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

fn skill(dir: &Path, text: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("SKILL.md"), text).unwrap();
}

fn listed(env: &Env) -> Value {
    let out = env.run(&["skills", "list", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_skill_is_indexed_loaded_on_call_and_narrows_the_tools() {
    let env = Env::without_confirm_turn(AMBER);
    skill(
        &env.ws.join(".amber/skills/release-notes"),
        "---\nname: release-notes\ndescription: Write release notes from the git log.\nallowed-tools:\n- read_file\n---\n\nRead CHANGES.md first, then write three bullet points.\n",
    );
    std::fs::write(
        env.ws.join(".amber/skills/release-notes/TEMPLATE.md"),
        "## Notes\n",
    )
    .unwrap();
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "c1", name = "skill", arguments = { name = "release-notes" } }] }
[[turns]]
reply = { tool_calls = [{ id = "c2", name = "read_file", arguments = { path = "a.txt" } }, { id = "c3", name = "write_file", arguments = { path = "NOTES.md", content = "x" } }] }
[[turns]]
reply = { text = "Notes drafted." }
"#,
    );
    let run = env.exec(&server, &["--yes"], "Write the release notes.");
    run.assert_done_after_denial("Notes drafted.");
    let received = server.received();
    // The index names the skill in the first request, without its body.
    let first = sent_messages(&received[0].body).join("\n");
    assert!(
        first.contains("- release-notes: Write release notes from the git log."),
        "{first}"
    );
    assert!(!first.contains("three bullet points"), "{first}");
    // Loaded: the instructions and the files beside it.
    let results = run.results();
    assert_eq!(results[0].1, "ok", "{results:?}");
    assert!(
        results[0].2.contains("Read CHANGES.md first"),
        "{results:?}"
    );
    assert!(results[0].2.contains("TEMPLATE.md"), "{results:?}");
    assert!(
        results[0].2.contains("you may call only: read_file, skill"),
        "{results:?}"
    );
    // Narrowed: read_file runs, write_file is refused.
    assert_eq!(results[1].1, "ok", "{results:?}");
    assert_eq!(results[2].1, "denied", "{results:?}");
    assert!(
        results[2]
            .2
            .contains("skill `release-notes` allows only read_file, skill"),
        "{results:?}"
    );
    assert!(!env.ws.join("NOTES.md").exists());

    // The narrowing ends with the request: the next one may write.
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "c1", name = "write_file", arguments = { path = "NOTES.md", content = "x" } }] }
[[turns]]
reply = { text = "Written." }
"#,
    );
    let run = env.exec(&server, &["--yes"], "Now write them.");
    run.assert_done("Written.");
    assert!(env.ws.join("NOTES.md").exists());
}

#[test]
fn claude_code_folders_shadowing_broken_files_and_disabling() {
    let env = Env::without_confirm_turn(AMBER);
    skill(
        &env.ws.join(".claude/skills/pdf"),
        "---\nname: pdf\ndescription: Fill PDF forms.\nallowed-tools: Read, Bash(python:*)\n---\nUse the script.\n",
    );
    skill(
        &env.ws.join(".agents/skills/lint"),
        "---\nname: lint\ndescription: Lint the code.\n---\nRun the linter.\n",
    );
    skill(
        &env.ws.join(".amber/skills/broken"),
        "---\nname: broken\n---\nNo description.\n",
    );
    let list = listed(&env);
    let skills = list["skills"].as_array().unwrap();
    let names: Vec<&str> = skills.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["lint", "pdf"], "{list:#}");
    assert_eq!(skills[1]["source"], "claude-workspace");
    assert_eq!(
        skills[1]["allowed_tools"],
        serde_json::json!(["Read", "Bash(python:*)"])
    );
    let skipped = list["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{list:#}");
    assert!(skipped[0]["path"]
        .as_str()
        .unwrap()
        .ends_with("broken/SKILL.md"));
    assert_eq!(
        skipped[0]["reason"],
        "line 1: key `description` is missing or empty"
    );
    // The skipped file is named in the text list, and on stderr beside JSON.
    let out = env.run(&["skills", "list"]);
    assert!(text(&out.stdout).contains("broken/SKILL.md: line 1: key `description`"));
    let out = env.run(&["skills", "list", "--json"]);
    assert!(text(&out.stderr).contains("broken/SKILL.md: line 1: key `description`"));

    // `show`, and `/skills disable` from the shell: off in the config.
    let out = env.run(&["skills", "show", "pdf"]);
    assert!(
        text(&out.stdout).contains("Use the script."),
        "{}",
        text(&out.stdout)
    );
    let out = env.run(&["/skills", "disable", "pdf"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(listed(&env)["skills"][1]["disabled"], true);
    let config = std::fs::read_to_string(env.home.join("config.toml")).unwrap();
    assert!(config.contains("disabled = [\"pdf\"]"), "{config}");
    assert!(
        config.contains("confirm_turn = false"),
        "the rest is kept: {config}"
    );

    // A disabled skill is neither indexed nor loadable.
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "c1", name = "skill", arguments = { name = "pdf" } }] }
[[turns]]
reply = { text = "No such skill." }
"#,
    );
    let run = env.exec(&server, &[], "Fill the form.");
    run.assert_done("No such skill.");
    let first = sent_messages(&server.received()[0].body).join("\n");
    assert!(first.contains("- lint: Lint the code."), "{first}");
    assert!(!first.contains("Fill PDF forms"), "{first}");
    let results = run.results();
    assert_eq!(results[0].1, "error", "{results:?}");
    assert!(
        results[0]
            .2
            .contains("no skill `pdf`; the skills are: lint"),
        "{results:?}"
    );
}

#[test]
fn a_compression_candidate_is_marked_and_promoted_by_a_person() {
    use amber_core::ports::SkillOp;
    use amber_memory::skills::{skills_dir, SkillFolders, Stamp};
    let env = Env::without_confirm_turn(AMBER);
    // Written as compression writes it: the real writer, in the data dir.
    let folders = SkillFolders::new(skills_dir(&env.home.join("data"), &env.ws), &env.ws);
    folders
        .apply(
            &SkillOp::Upsert {
                name: "add-dialect".into(),
                description: "Add a provider dialect.".into(),
                trigger: "adding a dialect".into(),
                body: "1. Copy anthropic.rs.\n".into(),
            },
            &Stamp {
                session: None,
                model: None,
                at: 1_796_083_200,
            },
        )
        .unwrap();
    let list = listed(&env);
    assert_eq!(list["skills"][0]["name"], "add-dialect", "{list:#}");
    assert_eq!(list["skills"][0]["candidate"], true);
    let out = env.run(&["skills", "promote", "add-dialect", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let promoted = env.ws.join(".amber/skills/add-dialect/SKILL.md");
    let written = std::fs::read_to_string(&promoted).unwrap();
    assert!(
        written.contains("description: Add a provider dialect."),
        "{written}"
    );
    assert!(!written.contains("candidate"), "{written}");
    let list = listed(&env);
    assert_eq!(list["skills"][0]["candidate"], false, "{list:#}");
    assert_eq!(list["skills"][0]["source"], "workspace");
    // A person's skill is never written over by compression.
    let again = folders.apply(
        &SkillOp::Upsert {
            name: "add-dialect".into(),
            description: "Rewritten.".into(),
            trigger: "t".into(),
            body: "b".into(),
        },
        &Stamp {
            session: None,
            model: None,
            at: 1_796_083_300,
        },
    );
    assert!(again.is_ok());
    assert!(std::fs::read_to_string(&promoted)
        .unwrap()
        .contains("Add a provider dialect."));
    // And a new candidate of its name does not shadow it.
    let list = listed(&env);
    assert_eq!(list["skills"][0]["source"], "workspace", "{list:#}");
    assert_eq!(list["skills"][0]["description"], "Add a provider dialect.");
    // Promoting what is not a candidate says so.
    let out = env.run(&["skills", "promote", "add-dialect"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("is not a candidate"),
        "{}",
        text(&out.stderr)
    );
}
