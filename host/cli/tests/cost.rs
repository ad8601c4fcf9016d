//! Tokens and cost end to end, through the real binary and the fake LLM
//! server in each of its three wire formats: three turns with cache
//! tokens add up to a figure computed by hand; a compression's calls are
//! counted; a budget stops the run before the call that would pass it; a
//! model without a price shows tokens only.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use amber_tests::exec_env::{fake, text, Env, Run};
use amber_tests::fake_llm::FakeLlm;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

/// USD per million: input 2, output 8, cache read 0.5, cache write 2.5.
const PRICES: &str = r#"
[prices."openai/gpt-4.1"]
input = 2.0
output = 8.0
cache_read = 0.5
cache_write = 2.5

[prices."openai-responses/gpt-5"]
input = 2.0
output = 8.0
cache_read = 0.5
cache_write = 2.5

[prices."anthropic/claude-sonnet-4-5"]
input = 2.0
output = 8.0
cache_read = 0.5
cache_write = 2.5
"#;

/// 6,000 plain input × 2 + 4,000 cached × 0.5 + 1,000 output × 8, per
/// million.
const ONE_TURN: f64 = (6_000.0 * 2.0 + 4_000.0 * 0.5 + 1_000.0 * 8.0) / 1_000_000.0;

fn env() -> Env {
    let env = Env::new(AMBER);
    std::fs::write(
        env.home.join("config.toml"),
        format!("[agent]\nconfirm_turn = false\n{PRICES}"),
    )
    .unwrap();
    env
}

fn turn(reply: &str) -> FakeLlm {
    fake(&format!(
        "[[turns]]\nreply = {{ text = \"{reply}\", usage = {{ input = 10000, cached = 4000, output = 1000 }} }}\n"
    ))
}

fn exec(env: &Env, provider: &str, server: &FakeLlm, extra: &[&str], prompt: &str) -> Run {
    env.exec_as(provider, server, extra, prompt)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// What one compression call of the scripts below costs: 2,000 input and
/// 100 output tokens at the test's price.
const ONE_COMPRESSION_CALL: f64 = (2_000.0 * 2.0 + 100.0 * 8.0) / 1_000_000.0;

/// `amber /compact --session ID` against `server`.
fn compact(env: &Env, id: &str, server: &FakeLlm) -> std::process::Output {
    env.command(&["/compact", "--session", id])
        .env("OPENAI_BASE_URL", server.openai_base())
        .output()
        .unwrap()
}

#[test]
fn three_turns_in_each_dialect_add_up_to_the_hand_computed_cost() {
    for provider in ["openai", "openai-responses", "anthropic"] {
        let env = env();
        let run = exec(&env, provider, &turn("one"), &[], "first");
        run.assert_done("one");
        let id = run.session_id();
        let cost = run.one("turn.completed")["cost_usd"].as_f64().unwrap();
        assert!(close(cost, ONE_TURN), "{provider}: {cost}");
        for reply in ["two", "three"] {
            let run = exec(&env, provider, &turn(reply), &["--resume", &id], "next");
            run.assert_done(reply);
        }
        let done = exec(&env, provider, &turn("four"), &["--resume", &id], "last");
        let completed = done.one("session.completed");
        assert!(close(completed["cost_usd"].as_f64().unwrap(), ONE_TURN));
        let session = completed["session_cost_usd"].as_f64().unwrap();
        assert!(close(session, 4.0 * ONE_TURN), "{provider}: {session}");
        // `sessions show` has each turn's and the total.
        let shown = env.show(&id);
        let spend = &shown["spend"];
        assert_eq!(spend["turns"].as_array().unwrap().len(), 4, "{spend:#}");
        assert!(close(
            spend["turns"][2]["cost_usd"].as_f64().unwrap(),
            ONE_TURN
        ));
        assert!(close(spend["cost_usd"].as_f64().unwrap(), 4.0 * ONE_TURN));
        assert_eq!(spend["usage"]["cached_input_tokens"], 16_000);
    }
}

#[test]
fn a_compression_is_counted_and_a_model_without_a_price_shows_tokens_only() {
    let env = env();
    let run = exec(&env, "openai", &turn("one"), &[], "first");
    let id = run.session_id();
    exec(&env, "openai", &turn("two"), &["--resume", &id], "second").assert_done("two");
    // Two compression calls of 2,000 input and 100 output each.
    let server = fake(
        r#"
[[turns]]
check_tool_results = false
reply = { text = "{\"prune\": [1], \"summary\": \"A first turn.\"}", usage = { input = 2000, output = 100 } }
[[turns]]
check_tool_results = false
reply = { text = "{\"memories\": [], \"skills\": []}", usage = { input = 2000, output = 100 } }
"#,
    );
    let out = compact(&env, &id, &server);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let compression = 2.0 * ONE_COMPRESSION_CALL;
    let spend = &env.show(&id)["spend"];
    let total = spend["cost_usd"].as_f64().unwrap();
    assert!(close(total, 2.0 * ONE_TURN + compression), "{spend:#}");
    assert_eq!(spend["usage"]["input_tokens"], 24_000);

    // Another model, no price: tokens, and no cost anywhere.
    let run = exec(
        &env,
        "openai",
        &turn("x"),
        &["--model", "gpt-unpriced"],
        "hi",
    );
    run.assert_done("x");
    assert!(run.one("turn.completed").get("cost_usd").is_none());
    assert!(run.one("session.completed").get("cost_usd").is_none());
    let new = run.session_id();
    let out = env.run(&["sessions", "show", &new]);
    assert!(text(&out.stdout).contains("—"), "{}", text(&out.stdout));
}

#[test]
fn a_budget_stops_the_run_before_the_call_that_would_pass_it() {
    let env = env();
    // The first call costs 0.028 ($20k input, 1k output); its context
    // makes the next one's input alone more than the rest of a 0.03
    // budget.
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "c1", name = "read_note", arguments = { path = "a.txt" } }], usage = { input = 10000, output = 1000 } }
[[turns]]
reply = { text = "never sent" }
"#,
    );
    let run = exec(
        &env,
        "openai",
        &server,
        &["--max-budget-usd", "0.03"],
        "Read a.txt.",
    );
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    let failed = run.one("session.failed");
    let error = failed["error"].as_str().unwrap();
    assert!(
        error.contains(
            "the budget of $0.0300 would be passed by the next model call ($0.0280 spent"
        ),
        "{error}"
    );
    assert_eq!(server.received().len(), 1);
    // Without a price a budget cannot be kept: refused before any call.
    let server = fake("[[turns]]\nreply = { text = \"never\" }\n");
    let run = exec(
        &env,
        "openai",
        &server,
        &["--max-budget-usd", "1", "--model", "gpt-unpriced"],
        "hi",
    );
    assert_eq!(run.code, Some(3), "{}", run.stderr);
    let error = run.one("session.failed")["error"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(error.contains("has no price"), "{error}");
    assert!(server.received().is_empty());
    // A budget that is not a number is a usage error naming the flag.
    let out = env.run(&["exec", "--max-budget-usd", "lots", "hi"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--max-budget-usd"));
}

#[test]
fn a_sub_agents_calls_count_in_the_run_and_the_session() {
    let env = env();
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "t1", name = "task", arguments = { prompt = "Say hi." } }], usage = { input = 10000, cached = 4000, output = 1000 } }
[[turns]]
expect_tool_results = []
reply = { text = "hi", usage = { input = 10000, cached = 4000, output = 1000 } }
[[turns]]
expect_tool_results = ["t1"]
reply = { text = "It said hi.", usage = { input = 10000, cached = 4000, output = 1000 } }
"#,
    );
    let run = exec(&env, "openai", &server, &[], "Ask a sub-agent.");
    run.assert_done("It said hi.");
    let finished = run.one("subagent.finished");
    assert!(close(finished["cost_usd"].as_f64().unwrap(), ONE_TURN));
    let completed = run.one("session.completed");
    assert!(
        close(completed["cost_usd"].as_f64().unwrap(), 3.0 * ONE_TURN),
        "{completed:#}"
    );
    assert_eq!(completed["usage"]["input_tokens"], 30_000);
    let spend = &env.show(&run.session_id())["spend"];
    assert!(
        close(spend["cost_usd"].as_f64().unwrap(), 3.0 * ONE_TURN),
        "{spend:#}"
    );
}

#[test]
fn the_status_line_shows_the_sessions_cost_and_cost_prints_each_turn() {
    let env = env();
    let server = turn("one");
    let tui = amber_tests::tmux::Tmux::start_sized(&env, &server, "amber-cost", "", (100, 30));
    tui.wait_for("mode write");
    tui.type_line("first");
    let screen = tui.wait_for("$0.0220");
    assert!(screen.contains("one"), "{screen}");
    tui.type_line("/cost");
    let screen = tui.wait_for("total");
    assert!(
        screen.contains("   1     10000      4000      1000   $0.0220"),
        "{screen}"
    );
}

#[test]
fn a_failed_compression_still_counts_what_it_spent() {
    let env = env();
    let run = exec(&env, "openai", &turn("one"), &[], "first");
    let id = run.session_id();
    // The classify call is paid for, then its reply is no JSON: the cycle
    // fails and the history stays as it was.
    let server = fake(
        r#"
[[turns]]
check_tool_results = false
reply = { text = "no json here", usage = { input = 2000, output = 100 } }
[[turns]]
check_tool_results = false
reply = { text = "still none", usage = { input = 2000, output = 100 } }
"#,
    );
    let out = compact(&env, &id, &server);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let spent = server.received().len() as f64 * ONE_COMPRESSION_CALL;
    let spend = &env.show(&id)["spend"];
    let total = spend["cost_usd"].as_f64().unwrap();
    assert!(
        close(total, ONE_TURN + spent),
        "{spend:#} (the compression made {} calls)",
        server.received().len()
    );
}
