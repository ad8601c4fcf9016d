//! TUI III end to end, in tmux, against the fake LLM server: what a
//! person living in the TUI needs. The approval dialog keeps its choices
//! on screen at 80×24 and 60×16 and scrolls its diff; a denial's reason
//! reaches the model; tabs show; a paste the terminal did not bracket
//! keeps its lines; a TUI opened and quit leaves no session; a resumed
//! session shows its conversation and mode; `amber "prompt"`,
//! `amber -- index` and `-c`; `@path`, `!command`, Esc, `/model`; and the
//! session flags reaching the server from the TUI, `-p` and `exec` alike.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::time::Duration;

use amber_tests::exec_env::{fake, text, Env};
use amber_tests::tmux::Tmux;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

fn env() -> Env {
    Env::without_confirm_turn(AMBER)
}

/// The dialog takes no letter for its first moments.
fn settle() {
    std::thread::sleep(Duration::from_millis(600));
}

/// Every request body the server got, as text.
fn bodies(server: &amber_tests::fake_llm::FakeLlm) -> Vec<String> {
    server
        .received()
        .iter()
        .map(|r| r.body.to_string())
        .collect()
}

#[test]
fn the_dialog_keeps_its_choices_at_80x24_shows_tabs_and_passes_the_reason_on() {
    let env = env();
    std::fs::write(env.ws.join("b.txt"), "old line\n").unwrap();
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "e1", name = "edit_file", arguments = { path = "b.txt", old_string = "old line", new_string = "new line" } }] }
[[turns]]
reply = { tool_calls = [{ id = "m1", name = "write_file", arguments = { path = "Makefile", content = "all:\n\techo hi\n" } }] }
[[turns]]
reply = { text = "Understood, no edit then." }
"#,
    );
    let tui = Tmux::start_sized(&env, &server, "amber-dialog-80", "", (80, 24));
    tui.wait_for("mode write");
    tui.type_line("Fix b.txt");
    let dialog = tui.wait_for("approval needed");
    // A one-line edit: the diff and every choice on screen.
    assert!(dialog.contains("+new line"), "{dialog}");
    assert!(dialog.contains("approve once"), "{dialog}");
    assert!(dialog.contains("deny"), "{dialog}");
    settle();
    // `n`, then the reason, which reaches the model as the tool's result.
    tui.keys(&["n"]);
    tui.wait_for("reason");
    tui.keys(&["-l", "use a patch instead"]);
    tui.keys(&["Enter"]);
    // The write of a Makefile asks next; its tab shows at the tab stop.
    let dialog = tui.wait_for("Makefile");
    assert!(dialog.contains("approve once"), "{dialog}");
    assert!(!dialog.contains("+echo hi"), "the tab vanished:\n{dialog}");
    assert!(
        dialog.lines().any(|l| l.contains("+") && l.contains("    echo hi")),
        "{dialog}"
    );
    settle();
    tui.keys(&["y"]);
    let screen = tui.wait_for("Understood, no edit then.");
    assert!(!screen.contains("+echo hi"), "{screen}");
    assert_eq!(
        std::fs::read_to_string(env.ws.join("b.txt")).unwrap(),
        "old line\n"
    );
    let second = &bodies(&server)[1];
    assert!(
        second.contains("the user declined this") && second.contains("use a patch instead"),
        "{second}"
    );
    assert!(!second.contains("--yes"), "headless advice:\n{second}");
    tui.keys(&["C-d"]);
    tui.wait_for("amber exited 0");
}

#[test]
fn at_60x16_a_long_write_scrolls_to_its_last_line_and_opens_whole() {
    let env = env();
    let content: String = (1..=80).map(|i| format!("line {i}\n")).collect();
    let script = format!(
        "[[turns]]\nreply = {{ tool_calls = [{{ id = \"w1\", name = \"write_file\", arguments = {{ path = \"long.txt\", content = {content:?} }} }}] }}\n[[turns]]\nreply = {{ text = \"Written.\" }}\n"
    );
    let server = fake(&script);
    let tui = Tmux::start_sized(&env, &server, "amber-dialog-60", "", (60, 16));
    tui.wait_for("write");
    tui.type_line("Write long.txt");
    let dialog = tui.wait_for("approval needed");
    // At 60×16 the choices are compact, but every one is there.
    for choice in ["y once", "1 session", "2 session", "n deny"] {
        assert!(dialog.contains(choice), "{choice}:\n{dialog}");
    }
    assert!(dialog.contains("lines 1"), "{dialog}");
    assert!(!dialog.contains("+line 80"), "{dialog}");
    // The end of the diff, the choices still there.
    tui.keys(&["End"]);
    let end = tui.wait_for("+line 80");
    assert!(end.contains("y once") && end.contains("n deny"), "{end}");
    // `o` opens it whole; q comes back to the dialog.
    settle();
    tui.keys(&["o"]);
    tui.wait_for_gone("y once");
    tui.keys(&["q"]);
    tui.wait_for("y once");
    tui.keys(&["y"]);
    tui.wait_for("Written.");
    assert_eq!(
        std::fs::read_to_string(env.ws.join("long.txt")).unwrap(),
        content
    );
    tui.keys(&["C-d"]);
    tui.wait_for("amber exited 0");
}

#[test]
fn a_cr_paste_keeps_its_lines_and_open_and_quit_leaves_no_session() {
    let env = env();
    let server = fake("[[turns]]\nreply = { text = \"Three lines read.\" }\n");
    let tui = Tmux::start(&env, &server, "amber-paste", "");
    tui.wait_for("mode write");
    tui.paste_unbracketed("first\rsecond\rthird");
    let screen = tui.wait_for("third");
    assert!(screen.contains("› first"), "{screen}");
    assert!(screen.contains("  second"), "{screen}");
    // Nothing was sent by the paste's CRs.
    std::thread::sleep(Duration::from_millis(300));
    assert!(server.received().is_empty());
    tui.keys(&["Enter"]);
    tui.wait_for("Three lines read.");
    let sent = &bodies(&server)[0];
    assert!(sent.contains("first\\nsecond\\nthird"), "{sent}");
    tui.keys(&["C-d"]);
    tui.wait_for("amber exited 0");
    drop(tui);

    // A TUI opened and quit without a prompt leaves no session file.
    let sessions = env.home.join("data/sessions");
    let before = std::fs::read_dir(&sessions).unwrap().count();
    let tui = Tmux::start(&env, &server, "amber-open-quit", "");
    tui.wait_for("mode write");
    tui.keys(&["C-d"]);
    tui.wait_for("amber exited 0");
    assert_eq!(std::fs::read_dir(&sessions).unwrap().count(), before);
}

#[test]
fn a_resumed_session_shows_its_conversation_its_mode_and_its_counters() {
    let env = env();
    std::fs::write(env.ws.join("a.txt"), "hi from a\n").unwrap();
    let server = fake(
        r#"
[[turns]]
reply = { tool_calls = [{ id = "r1", name = "read_file", arguments = { path = "a.txt" } }], usage = { input = 1000, output = 10 } }
[[turns]]
reply = { text = "It says hi from a.", usage = { input = 1200, output = 20 } }
[[turns]]
reply = { text = "Still here." }
"#,
    );
    let run = env.exec(&server, &["--mode", "read"], "What does a.txt say?");
    run.assert_done("It says hi from a.");
    let tui = Tmux::start(&env, &server, "amber-resume-replay", "-c");
    let screen = tui.wait_for("resumed");
    assert!(screen.contains("› What does a.txt say?"), "{screen}");
    assert!(screen.contains("It says hi from a."), "{screen}");
    assert!(screen.contains("read_file"), "{screen}");
    assert!(screen.contains("mode read"), "{screen}");
    assert!(screen.contains("in 2.2k"), "{screen}");
    tui.type_line("Still there?");
    tui.wait_for("Still here.");
    tui.keys(&["C-d"]);
    tui.wait_for("amber exited 0");
}

#[test]
fn a_first_prompt_a_double_dash_and_continue() {
    let env = env();
    let server = fake(
        r#"
[[turns]]
reply = { text = "Tests fixed." }
[[turns]]
reply = { text = "Indexed." }
[[turns]]
reply = { text = "Continued." }
"#,
    );
    let tui = Tmux::start(&env, &server, "amber-first-prompt", "'fix the tests'");
    let screen = tui.wait_for("Tests fixed.");
    assert!(screen.contains("› fix the tests"), "{screen}");
    tui.keys(&["C-d"]);
    tui.wait_for("amber exited 0");
    drop(tui);
    let tui = Tmux::start(&env, &server, "amber-dash-dash", "-- index");
    tui.wait_for("Indexed.");
    tui.keys(&["C-d"]);
    tui.wait_for("amber exited 0");
    drop(tui);
    assert!(bodies(&server)[1].contains("\"index\""), "{:?}", bodies(&server));
    // -c continues the latest session: the request carries its turns.
    let tui = Tmux::start(&env, &server, "amber-continue", "-c 'go on'");
    tui.wait_for("Continued.");
    tui.keys(&["C-d"]);
    tui.wait_for("amber exited 0");
    let last = &bodies(&server)[2];
    assert!(last.contains("Indexed.") && last.contains("go on"), "{last}");
}

#[test]
fn at_paths_bang_commands_esc_queued_prompts_and_model() {
    let env = env();
    std::fs::create_dir_all(env.ws.join("src")).unwrap();
    std::fs::write(env.ws.join("src/lib.rs"), "pub fn answer() -> u32 { 42 }\n").unwrap();
    std::fs::write(env.ws.join("notes.txt"), "bang marker\n").unwrap();
    let server = fake(
        r#"
[[turns]]
reply = { text = "It returns 42." }
[[turns]]
reply = { text = "Saw the listing." }
[[turns]]
faults = [{ kind = "stall", after_events = 3, delay_ms = 20000 }]
reply = { text = "A story that goes on and on without an end in sight, forever and ever." }
[[turns]]
reply = { text = "On the new model." }
"#,
    );
    let tui = Tmux::start(&env, &server, "amber-habits", "");
    tui.wait_for("mode write");
    // @ completes a path with Tab, and attaches the file.
    tui.keys(&["-l", "Explain @src/li"]);
    tui.wait_for("@src/lib.rs");
    tui.keys(&["Tab"]);
    tui.wait_for("› Explain @src/lib.rs");
    tui.keys(&["Enter"]);
    tui.wait_for("It returns 42.");
    assert!(
        bodies(&server)[0].contains("pub fn answer() -> u32 { 42 }"),
        "{}",
        bodies(&server)[0]
    );
    // !ls runs through the shell tool; its output joins the context.
    tui.type_line("!ls");
    let screen = tui.wait_for("notes.txt");
    assert!(screen.contains("src"), "{screen}");
    tui.type_line("What did ls show?");
    tui.wait_for("Saw the listing.");
    let second = &bodies(&server)[1];
    assert!(
        second.contains("The user ran `ls`") && second.contains("notes.txt"),
        "{second}"
    );
    // Esc interrupts; a prompt typed during the turn shows as queued.
    tui.type_line("Tell a long story");
    tui.wait_for("A story");
    tui.type_line("and then?");
    tui.wait_for("queued");
    tui.keys(&["Escape"]);
    tui.wait_for("interrupted; the session is saved");
    // After an interrupt the queued prompt comes back to the editor.
    let screen = tui.wait_for_gone("(queued");
    assert!(screen.contains("› and then?"), "{screen}");
    tui.keys(&["Enter"]);
    // (The server tells the story it was cut off in again, whole.)
    tui.wait_for("forever and ever.");
    // /model lists the presets' models; Down and Enter switch.
    tui.type_line("/model");
    let picker = tui.wait_for("enter switches");
    assert!(picker.contains("gpt-4.1") && picker.contains("gpt-5"), "{picker}");
    tui.keys(&["Down"]);
    tui.keys(&["Enter"]);
    tui.wait_for("gpt-5 (openai)");
    tui.type_line("Which model?");
    tui.wait_for("On the new model.");
    let last = server.received().last().unwrap().body.clone();
    assert_eq!(last["model"], "gpt-5");
    tui.keys(&["C-d"]);
    tui.wait_for("amber exited 0");
}

#[test]
fn session_flags_reach_the_server_from_the_tui_print_and_exec() {
    let env = env();
    let unused = fake("[[turns]]\nreply = { text = \"wrong server\" }\n");
    let server = fake(
        r#"
[[turns]]
reply = { text = "From the TUI." }
[[turns]]
reply = { text = "From print." }
[[turns]]
reply = { text = "From exec." }
"#,
    );
    let base = server.openai_base();
    let flags = format!("--provider openai -m fancy-1 --base-url '{base}' --mode read 'hello'");
    let tui = Tmux::start(&env, &unused, "amber-flags", &flags);
    let screen = tui.wait_for("From the TUI.");
    assert!(screen.contains("fancy-1") && screen.contains("mode read"), "{screen}");
    tui.keys(&["C-d"]);
    tui.wait_for("amber exited 0");
    // -p with the same flags, and stdin piped in as context.
    let out = env.run_with_stdin(
        &["--provider", "openai", "-m", "fancy-2", "--base-url", &base, "-p", "review this"],
        "diff --git a/x b/x\n+added line\n",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("From print."));
    let run = env.exec(&server, &["-m", "fancy-3", "--mode", "read"], "and exec");
    run.assert_done("From exec.");
    let received = server.received();
    assert_eq!(received[0].body["model"], "fancy-1");
    assert_eq!(received[1].body["model"], "fancy-2");
    assert_eq!(received[2].body["model"], "fancy-3");
    let print = received[1].body.to_string();
    let diff_at = print.find("+added line").expect("the piped diff was sent");
    let prompt_at = print.rfind("review this").unwrap();
    assert!(diff_at < prompt_at, "stdin goes before the prompt:\n{print}");
    assert!(unused.received().is_empty());
}
