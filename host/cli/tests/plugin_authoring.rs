//! `amber plugin new|build|test` for each language, through the real
//! binary and the real toolchains: Rust (cargo, wasm32-wasip2), Python
//! (componentize-py, installed by amber into its cache on first use) and
//! JavaScript (componentize-js, the same). Each scaffold builds and passes
//! its own examples as it is; a broken example fails with a diff; the
//! plugin, once added, is called by the model through `amber exec`
//! against the fake LLM server.
//!
//! The toolchains and compiled components are shared between runs: they
//! live in the tests' cache dir (`target/test-cache`), and the Rust
//! scaffold builds into `target/plugin-scaffolds`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::path::Path;
use std::process::Output;

use amber_tests::exec_env::{fake, text, Env};
use amber_tests::repo_root;
use serde_json::Value;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

fn amber(env: &Env, args: &[&str]) -> Output {
    env.command(args)
        .env(
            "CARGO_TARGET_DIR",
            repo_root().join("target/plugin-scaffolds"),
        )
        .output()
        .unwrap()
}

/// `amber plugin new ID --lang LANG --kind KIND` under the env's
/// workspace; returns the folder.
fn scaffold(env: &Env, id: &str, lang: &str, kind: &str) -> std::path::PathBuf {
    scaffold_with(env, id, lang, kind, &[])
}

/// [`scaffold`] with more flags (`--http`).
fn scaffold_with(
    env: &Env,
    id: &str,
    lang: &str,
    kind: &str,
    flags: &[&str],
) -> std::path::PathBuf {
    let parent = env.ws.join("plugins");
    std::fs::create_dir_all(&parent).unwrap();
    let mut args = vec!["plugin", "new", id, "--lang", lang, "--kind", kind];
    args.extend_from_slice(flags);
    args.extend(["--dir", parent.to_str().unwrap()]);
    let out = amber(env, &args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    parent.join(id)
}

/// Replaces `from` with `to` in the plugin's `tests.toml`, then runs its
/// tests without building: they must fail (exit 1); what they showed.
fn test_after_edit(env: &Env, dir: &std::path::Path, from: &str, to: &str) -> Output {
    let examples = dir.join("tests.toml");
    let edited = std::fs::read_to_string(&examples)
        .unwrap()
        .replace(from, to);
    std::fs::write(&examples, edited).unwrap();
    let out = amber(
        env,
        &["plugin", "test", dir.to_str().unwrap(), "--no-build"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    out
}

/// Scaffolds `id` in `lang` under the env's workspace, tests it (which
/// builds it), breaks one example, and calls its tool through `exec`.
fn scaffold_build_test_and_call(lang: &str) {
    let env = Env::new(AMBER);
    let id = format!("word-count-{lang}");
    let tool = id.replace('-', "_");
    let dir = scaffold(&env, &id, lang, "tool");
    assert!(dir.join("amber-plugin.toml").is_file());
    assert!(dir.join("README.md").is_file());
    if lang == "js" {
        // The SDK module and the WIT's TypeScript declarations, beside it.
        assert!(dir.join("amber-sdk.js").is_file());
        assert!(dir.join("amber-plugin.d.ts").is_file());
    }

    // As it is, it builds and passes its own examples.
    let out = amber(&env, &["plugin", "test", dir.to_str().unwrap(), "--json"]);
    assert!(
        out.status.success(),
        "{lang}: {}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["plugin"], id.as_str());
    assert_eq!(report["failed"], 0);
    assert_eq!(
        report["examples"].as_array().unwrap().len(),
        2,
        "{report:#}"
    );
    let wasm = dir.join("dist").join(format!("{id}.wasm"));
    assert!(wasm.is_file());

    // An example that expects the wrong thing fails, with a diff.
    let out = test_after_edit(&env, &dir, "output = \"3 words\"", "output = \"4 words\"");
    let shown = text(&out.stdout);
    assert!(
        shown.contains("FAILED  tool")
            && shown.contains("+ 3 words")
            && shown.contains("- 4 words"),
        "{shown}"
    );
    assert!(
        text(&out.stderr).contains("1 of 2 examples failed"),
        "{}",
        text(&out.stderr)
    );

    // Added, and called by the model.
    let out = amber(&env, &["plugin", "add", wasm.to_str().unwrap(), "--yes"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let server = fake(&format!(
        r#"
[[turns]]
expect_tools = ["{tool}"]
reply = {{ tool_calls = [{{ id = "c1", name = "{tool}", arguments = {{ text = "a plugin in {lang}" }} }}] }}
[[turns]]
reply = {{ text = "It has four words." }}
[[turns]]
reply = {{ text = "DONE" }}
"#
    ));
    let run = env.exec(&server, &[], "How many words?");
    run.assert_done("It has four words.");
    let results = run.results();
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(
        (results[0].1.as_str(), results[0].2.as_str()),
        ("ok", "4 words")
    );
}

#[test]
fn a_rust_tool_from_the_scaffold_builds_passes_and_is_called() {
    scaffold_build_test_and_call("rust");
}

#[test]
fn a_python_tool_from_the_scaffold_builds_passes_and_is_called() {
    scaffold_build_test_and_call("python");
}

#[test]
fn a_javascript_tool_from_the_scaffold_builds_passes_and_is_called() {
    scaffold_build_test_and_call("js");
}

#[test]
fn a_folder_without_a_descriptor_and_a_bad_id_are_told_what_to_do() {
    let env = Env::new(AMBER);
    let out = amber(&env, &["plugin", "build", env.ws.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr)
            .contains("has no amber-plugin.toml (make one with `amber plugin new NAME`)"),
        "{}",
        text(&out.stderr)
    );
    let out = amber(
        &env,
        &[
            "plugin",
            "new",
            "Bad Name",
            "--dir",
            env.ws.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("is not a plugin id"),
        "{}",
        text(&out.stderr)
    );
    assert!(!Path::new(&env.ws.join("Bad Name")).exists());
    // C has an example to start from, not a scaffold; nothing is made.
    let out = amber(
        &env,
        &[
            "plugin",
            "new",
            "in-c",
            "--lang",
            "c",
            "--dir",
            env.ws.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("there is no C scaffold: start from sdk/examples/c"),
        "{}",
        text(&out.stderr)
    );
    assert!(!env.ws.join("in-c").exists());
}

/// The other kinds (each language's SDK has them all; building all
/// fifteen would cost CI minutes): a hook in Python, a command in
/// JavaScript, a prompt block in Rust, a parser in each of the three, and
/// a provider in Rust (Python and JavaScript: the next test). Each
/// scaffold passes its own examples: a hook's decisions, a command's
/// output, a block's text, an outline, a request built and a stream
/// decoded (its text not all ASCII, one event not JSON).
#[test]
fn a_scaffold_of_every_other_kind_passes_its_examples() {
    let env = Env::new(AMBER);
    for (lang, kind, kinds_example) in [
        ("python", "hook", "hook pre-tool shell"),
        ("js", "command", "command count one two three"),
        ("rust", "prompt", "prompt kinds_rust_prompt"),
        ("rust", "parser", "parser ini"),
        ("python", "parser", "parser ini"),
        ("js", "parser", "parser ini"),
        ("rust", "provider", "provider kinds-rust-provider stream"),
    ] {
        let dir = scaffold(&env, &format!("kinds-{lang}-{kind}"), lang, kind);
        let out = amber(&env, &["plugin", "test", dir.to_str().unwrap()]);
        let shown = text(&out.stdout);
        assert!(
            out.status.success(),
            "{lang} {kind}: {shown}\n{}",
            text(&out.stderr)
        );
        let examples = std::fs::read_to_string(dir.join("tests.toml")).unwrap();
        let listed = examples.lines().filter(|l| l.starts_with("[[")).count();
        assert_eq!(shown.matches("  passed  ").count(), listed, "{shown}");
        assert!(shown.contains(kinds_example), "{shown}");
    }
}

/// A provider written in Python and one in JavaScript, each from its
/// scaffold: it passes its examples (a request built; streams decoded,
/// one not all ASCII, one with an event that is not JSON), and once added
/// and chosen in the config, the model's reply reaches `amber exec`
/// through the plugin's request and decoder, against the fake LLM
/// server's chat-completions stream.
#[test]
fn providers_in_python_and_javascript_pass_their_examples_and_carry_a_session() {
    let env = Env::new(AMBER);
    for lang in ["python", "js"] {
        let id = format!("chat-{lang}");
        let dir = scaffold(&env, &id, lang, "provider");
        let out = amber(&env, &["plugin", "test", dir.to_str().unwrap()]);
        let shown = text(&out.stdout);
        assert!(
            out.status.success(),
            "{lang}: {shown}\n{}",
            text(&out.stderr)
        );
        assert_eq!(shown.matches("  passed  ").count(), 3, "{shown}");
        assert!(shown.contains(&format!("provider {id} stream")), "{shown}");
        let wasm = dir.join("dist").join(format!("{id}.wasm"));
        let out = amber(&env, &["plugin", "add", wasm.to_str().unwrap(), "--yes"]);
        assert!(out.status.success(), "{lang}: {}", text(&out.stderr));

        let server = fake(&format!(
            r#"
[[turns]]
reply = {{ text = "Grüße from {lang}." }}
"#
        ));
        std::fs::write(
            env.home.join("config.toml"),
            format!(
                "[providers.mine]\nflavor = \"{id}\"\nbase_url = \"{}\"\nmodel = \"m1\"\nkey_env = \"OPENAI_API_KEY\"\n",
                server.openai_base()
            ),
        )
        .unwrap();
        let out = amber(&env, &["exec", "--json", "--provider", "mine", "Say hi."]);
        let run = amber_tests::exec_env::Run::from(out);
        run.assert_done(&format!("Grüße from {lang}."));
        // The request the plugin built is what the server saw.
        let received = server.received();
        assert_eq!(received[0].path, "/v1/chat/completions");
        assert_eq!(received[0].authorization.as_deref(), Some("Bearer sk-test"));
        let body = &received[0].body;
        assert_eq!(body["model"], "m1", "{body}");
        assert_eq!(body["stream"], true, "{body}");
        let last = body["messages"].as_array().unwrap().last().unwrap().clone();
        assert_eq!(last["role"], "user", "{body}");
        assert!(
            last["content"].as_str().unwrap().contains("Say hi."),
            "{body}"
        );
    }
}

/// The C example (sdk/examples/c), built by `cargo xtask test` through
/// `cargo xtask c-example` (wit-bindgen-c, clang, wit-component), is a
/// plugin like the others: `plugin test --no-build` passes its examples,
/// and the model calls it.
#[test]
fn the_c_example_passes_its_examples_and_is_called() {
    let wasm = std::env::var_os("AMBER_TEST_C_EXAMPLE")
        .map(std::path::PathBuf::from)
        .expect("AMBER_TEST_C_EXAMPLE: run the tests through `cargo xtask test`, which builds the C example");
    let dir = wasm
        .parent()
        .and_then(Path::parent)
        .expect("the C example's dist folder");
    let env = Env::new(AMBER);
    let out = amber(
        &env,
        &["plugin", "test", "--no-build", dir.to_str().unwrap()],
    );
    let shown = text(&out.stdout);
    assert!(out.status.success(), "{shown}\n{}", text(&out.stderr));
    assert_eq!(shown.matches("  passed  ").count(), 3, "{shown}");
    // Without a toolchain of amber's, `plugin build` says what to do.
    let out = amber(&env, &["plugin", "build", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("amber has no C toolchain of its own"),
        "{}",
        text(&out.stderr)
    );

    let out = amber(&env, &["plugin", "add", wasm.to_str().unwrap(), "--yes"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "c1", name = "c_word_count", arguments = { text = "written in plain C" } }] }
[[turns]]
reply = { text = "Four." }
[[turns]]
reply = { text = "DONE" }
"#,
    );
    let run = env.exec(&server, &[], "Count.");
    run.assert_done("Four.");
    assert_eq!(run.results()[0].2, "4 words");
}

/// Scaffolds the `--http` tool in `lang`: it builds and passes both its
/// examples from their recorded `[[http]]` responses; a request no
/// fixture answers fails, naming it, and nothing is sent. Returns the
/// env and the folder.
fn http_scaffold_passes_offline(lang: &str) -> (Env, std::path::PathBuf) {
    let env = Env::new(AMBER);
    let dir = scaffold_with(&env, &format!("stars-{lang}"), lang, "tool", &["--http"]);
    let descriptor = std::fs::read_to_string(dir.join("amber-plugin.toml")).unwrap();
    assert!(descriptor.contains("http = true"), "{descriptor}");

    let out = amber(&env, &["plugin", "test", dir.to_str().unwrap(), "--json"]);
    assert!(
        out.status.success(),
        "{lang}: {}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["failed"], 0, "{report:#}");
    assert_eq!(report["examples"].as_array().unwrap().len(), 2);

    let out = test_after_edit(
        &env,
        &dir,
        "repos/rust-lang/rust\"",
        "repos/rust-lang/cargo\"",
    );
    let shown = text(&out.stdout);
    assert!(
        shown.contains("no [[http]] fixture")
            && shown.contains("api.github.com/repos/rust-lang/rust"),
        "{lang}: {shown}"
    );
    (env, dir)
}

#[test]
fn an_http_tool_in_rust_passes_its_recorded_responses_without_the_network() {
    let (env, dir) = http_scaffold_passes_offline("rust");
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    assert!(manifest.contains("features = [\"http\"]"), "{manifest}");

    // --http makes a tool; another kind is told how to ask for http.
    let out = amber(
        &env,
        &[
            "plugin",
            "new",
            "x",
            "--kind",
            "command",
            "--http",
            "--dir",
            env.ws.join("plugins").to_str().unwrap(),
        ],
    );
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("--http makes a tool")
            && text(&out.stderr).contains("http = true"),
        "{}",
        text(&out.stderr)
    );
}

/// Takes `http = true` out of the plugin's descriptor and tests it again
/// (which builds it again): it must fail, saying so. What it said.
fn without_http_line(env: &Env, dir: &std::path::Path) -> String {
    let descriptor = dir.join("amber-plugin.toml");
    let text_of = std::fs::read_to_string(&descriptor).unwrap();
    std::fs::write(&descriptor, text_of.replace("http = true\n", "")).unwrap();
    let out = amber(env, &["plugin", "test", dir.to_str().unwrap()]);
    assert!(!out.status.success());
    text(&out.stderr)
}

#[test]
fn an_http_tool_in_python_passes_its_recorded_responses_without_the_network() {
    let (env, dir) = http_scaffold_passes_offline("python");
    // Without the line the build has no wasi:http bindings: the SDK's
    // import says which line to add.
    let said = without_http_line(&env, &dir);
    assert!(
        said.contains("amber_sdk.http needs `http = true` under [plugin]"),
        "{said}"
    );
}

#[test]
fn an_http_tool_in_javascript_passes_its_recorded_responses_without_the_network() {
    let (env, dir) = http_scaffold_passes_offline("js");
    // Without the line the build leaves `fetch` out; the check says so
    // rather than let every request fail.
    let said = without_http_line(&env, &dir);
    assert!(
        said.contains("asks for `http`, but amber-plugin.toml does not say `http = true`"),
        "{said}"
    );
}
