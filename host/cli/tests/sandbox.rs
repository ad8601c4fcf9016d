//! The holes a hostile probe found, each tried again through the real
//! `amber exec` in write mode, without `--yes` and without a terminal, with
//! the bundled shell tool and the fake LLM server: amber's key never
//! leaves it, nothing outside the workspace is read or written, and the
//! network is not reached. Then the rest of the probe's findings: scoped
//! rules, one writer per session, bounded input, a capped reply, signals.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use amber_tests::exec_env::{fake, text, Env, Run};
use amber_tests::fake_llm::FakeLlm;
use serde_json::Value;

const AMBER: &str = env!("CARGO_BIN_EXE_amber");

/// The key amber runs with: it must appear nowhere a command can reach.
const KEY: &str = "sk-probe-7f3a9c2e51d84b06";

const DONE: &str = "[[turns]]\nreply = { text = \"DONE\" }\n";

/// A TOML basic string.
fn toml_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// One turn calling `shell` once per command, then an answer.
fn shell_script(commands: &[String]) -> String {
    let calls: Vec<String> = commands
        .iter()
        .enumerate()
        .map(|(i, c)| {
            format!(
                "{{ id = \"s{i}\", name = \"shell\", arguments = {{ command = {} }} }}",
                toml_str(c)
            )
        })
        .collect();
    format!(
        "[[turns]]\nreply = {{ tool_calls = [{}] }}\n[[turns]]\nreply = {{ text = \"probed\" }}\n{DONE}",
        calls.join(", ")
    )
}

/// One turn a `shell` call, then an answer.
fn shell_turns(commands: &[&str]) -> String {
    let turns: String = commands
        .iter()
        .enumerate()
        .map(|(i, c)| {
            format!(
                "[[turns]]\nreply = {{ tool_calls = [{{ id = \"s{i}\", name = \"shell\", arguments = {{ command = {} }} }}] }}\n",
                toml_str(c)
            )
        })
        .collect();
    format!("{turns}[[turns]]\nreply = {{ text = \"probed\" }}\n{DONE}")
}

/// A user's home with an SSH key in it, and a folder outside both the
/// workspace and /tmp, in /var/tmp (so a write there meets the read-only
/// filesystem).
struct Probe {
    env: Env,
    home: tempfile::TempDir,
    outside: tempfile::TempDir,
}

impl Probe {
    fn new() -> Probe {
        let env = Env::new(AMBER);
        let home = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(home.path().join(".ssh")).unwrap();
        std::fs::write(home.path().join(".ssh/id_rsa"), "PRIVATE-KEY-MATERIAL\n").unwrap();
        // Not under /tmp (nor under a checkout that may live there): a
        // write here must meet the read-only filesystem.
        let outside = tempfile::tempdir_in("/var/tmp").unwrap();
        Probe { env, home, outside }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = self.env.command(args);
        cmd.env("OPENAI_API_KEY", KEY).env("HOME", self.home.path());
        cmd
    }

    fn exec(&self, server: &FakeLlm, extra: &[&str]) -> Run {
        let base = server.openai_base();
        let mut args = vec!["exec", "--json", "--base-url", &base];
        args.extend_from_slice(extra);
        args.push("probe");
        Run::from(self.command(&args).output().unwrap())
    }

    fn out(&self, name: &str) -> PathBuf {
        self.outside.path().join(name)
    }
}

/// Every file under `dir`, for the search for the key.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                todo.push(path);
            } else {
                found.push(path);
            }
        }
    }
    found
}

fn assert_key_nowhere(probe: &Probe, run: &Run) {
    for (id, _, output) in run.results() {
        assert!(!output.contains(KEY), "{id} got the key: {output}");
    }
    assert!(!run.stderr.contains(KEY));
    for file in files_under(&probe.env.home) {
        let bytes = std::fs::read(&file).unwrap_or_default();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(KEY),
            "the key is in {}",
            file.display()
        );
    }
}

const ENVIRON_PROBE: &str = r#"ps -eo pid,comm | awk '$2=="amber"{print "/proc/" $1 "/environ"}' > p.txt; xargs cat < p.txt | tr '\0' '\n' | grep -a KEY"#;

#[test]
fn the_probes_commands_reach_no_key_no_file_outside_and_no_network_in_write_mode() {
    let probe = Probe::new();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let key_file = probe.home.path().join(".ssh/id_rsa");
    std::fs::write(
        probe.env.ws.join("list.txt"),
        format!("{}\0", key_file.display()),
    )
    .unwrap();
    // A written build file that tries the host's loopback.
    std::fs::write(
        probe.env.ws.join("Net.mk"),
        format!(
            "all:\n\t@perl -MSocket -e 'socket(S, PF_INET, SOCK_STREAM, 0) or die \"socket: $$!\\n\"; connect(S, sockaddr_in({port}, inet_aton(\"127.0.0.1\"))) or die \"connect: $$!\\n\"; print \"connected\\n\"'\n"
        ),
    )
    .unwrap();
    let make = probe.out("make.txt");
    let npm = probe.out("npm.txt");
    let commands = [
        ENVIRON_PROBE.to_string(),
        "printf ~/.ssh/id_rsa > p2.txt && xargs cat < p2.txt".into(),
        "sort --files0-from=list.txt".into(),
        "wc --files0-from=list.txt".into(),
        format!(
            "printf 'all:\\n\\t@echo pwned > {}\\n' > Makefile && make -s",
            make.display()
        ),
        format!(
            "printf '{{\"scripts\":{{\"test\":\"echo pwned > {}\"}}}}' > package.json && npm test --silent",
            npm.display()
        ),
        "make -s -f Net.mk".into(),
    ];
    let server = fake(&shell_script(&commands));
    // Every call fails, so error recovery ends the run early: what counts
    // is what each command could do.
    let run = probe.exec(&server, &[]);
    let results = run.results();
    assert_eq!(results.len(), commands.len(), "{results:#?}");
    assert_key_nowhere(&probe, &run);
    for (id, _, output) in &results {
        assert!(
            !output.contains("PRIVATE-KEY-MATERIAL"),
            "{id} read the key file: {output}"
        );
    }
    // The sandbox has its own processes: amber is not among them.
    assert_eq!(
        std::fs::read_to_string(probe.env.ws.join("p.txt")).unwrap(),
        ""
    );
    // Names read from a file are not seen by classification: asked, and
    // so denied without --yes.
    for denied in [&results[2], &results[3]] {
        assert!(denied.2.contains("not approved"), "{denied:?}");
    }
    // A build run free wrote only where the sandbox let it.
    assert!(!make.exists() && !npm.exists());
    assert!(
        results[4].2.contains("Read-only file system"),
        "{:?}",
        results[4]
    );
    assert!(probe.env.ws.join("Makefile").exists());
    assert!(!results[6].2.contains("connected\n"), "{:?}", results[6]);
    assert!(
        matches!(listener.accept(), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "a sandboxed command reached the host's loopback"
    );
}

#[test]
fn in_yolo_the_command_sees_amber_but_not_its_key() {
    let probe = Probe::new();
    let server = fake(&shell_script(&[ENVIRON_PROBE.to_string()]));
    let run = probe.exec(&server, &["--mode", "yolo"]);
    run.assert_done("probed");
    // Unsandboxed, the probe found amber's process...
    let found = std::fs::read_to_string(probe.env.ws.join("p.txt")).unwrap();
    assert!(found.contains("/proc/"), "{found:?}");
    // ...and could not read the key out of it.
    assert_key_nowhere(&probe, &run);
}

#[test]
fn a_rule_scoped_to_the_workspace_does_not_allow_rm_of_a_path_outside_it() {
    let probe = Probe::new();
    std::fs::write(
        probe.env.home.join("config.toml"),
        "[[policy.rules]]\ntool = \"exec:rm\"\npath = \".\"\ndecision = \"allow\"\n",
    )
    .unwrap();
    let victim = probe.out("victim");
    std::fs::create_dir_all(&victim).unwrap();
    std::fs::create_dir_all(probe.env.ws.join("sub")).unwrap();
    let server = fake(&shell_script(&[
        format!("rm -rf {}", victim.display()),
        "rm -rf sub".into(),
    ]));
    let run = probe.exec(&server, &[]);
    run.assert_done("probed");
    let results = run.results();
    assert!(results[0].2.contains("not approved"), "{:?}", results[0]);
    assert!(victim.exists());
    assert!(!probe.env.ws.join("sub").exists(), "{:?}", results[1]);
}

/// Reads events until one of `kind`.
fn wait_for(child: &mut Child, kind: &str) -> Vec<Value> {
    let mut reader = BufReader::new(child.stdout.as_mut().unwrap());
    let mut seen = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        assert!(
            reader.read_line(&mut line).unwrap() > 0,
            "exec ended before {kind}: {seen:#?}"
        );
        let event: Value = serde_json::from_str(&line).unwrap();
        let found = event["type"] == kind;
        seen.push(event);
        if found {
            return seen;
        }
    }
}

fn spawn(probe: &Probe, server: &FakeLlm, extra: &[&str]) -> Child {
    let base = server.openai_base();
    let mut args = vec!["exec", "--json", "--base-url", &base];
    args.extend_from_slice(extra);
    args.push("run a long command");
    probe
        .command(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn a_second_run_on_a_session_in_use_fails_at_once_naming_the_first() {
    let probe = Probe::new();
    let server = fake(
        "[[turns]]\nreply = { tool_calls = [{ id = \"w\", name = \"wait\", arguments = { ms = 60000 } }] }\n",
    );
    let mut first = spawn(&probe, &server, &[]);
    let seen = wait_for(&mut first, "tool.call");
    let id = seen[0]["session_id"].as_str().unwrap().to_string();
    // Read amber's environment from outside, as root can despite
    // non-dumpable: the key was scrubbed from it at start. (As another
    // user the read itself is refused.)
    if let Ok(environ) = std::fs::read(format!("/proc/{}/environ", first.id())) {
        let environ = String::from_utf8_lossy(&environ);
        assert!(
            !environ.contains(KEY),
            "the key is in amber's /proc environ"
        );
        assert!(
            environ.contains("AMBER_HOME="),
            "the read worked: {environ}"
        );
    }
    let second_server = fake(DONE);
    let started = Instant::now();
    let second = probe.exec(&second_server, &["--resume", &id]);
    assert_eq!(second.code, Some(1));
    let failed = second.one("session.failed");
    assert_eq!(
        failed["error"],
        format!(
            "session {id} is in use by PID {}; wait for it to finish, or stop it",
            first.id()
        )
    );
    assert!(started.elapsed() < Duration::from_secs(20));
    assert!(second_server.received().is_empty());
    first.kill().unwrap();
    first.wait().unwrap();
    // Once the first is gone, the session resumes.
    let third_server =
        fake("[[turns]]\nexpect_tool_results = [\"w\"]\nreply = { text = \"back\" }\n[[turns]]\nreply = { text = \"DONE\" }\n");
    probe
        .exec(&third_server, &["--resume", &id])
        .assert_done("back");
}

fn plugin_add(probe: &Probe, file: &Path) -> (Option<i32>, String, Duration) {
    let started = Instant::now();
    let out = probe
        .command(&["plugin", "add", file.to_str().unwrap(), "--yes"])
        .output()
        .unwrap();
    (out.status.code(), text(&out.stderr), started.elapsed())
}

fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

#[test]
fn plugin_add_refuses_devices_and_fifos_at_once_and_caps_the_size() {
    let probe = Probe::new();
    let (code, stderr, took) = plugin_add(&probe, Path::new("/dev/zero"));
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("/dev/zero: is a device; a plugin is read only from a regular .wasm file"),
        "{stderr}"
    );
    assert!(took < Duration::from_secs(10));
    let fifo = probe.env.ws.join("plugin.wasm");
    mkfifo(&fifo);
    let (code, stderr, took) = plugin_add(&probe, &fifo);
    assert_eq!(code, Some(1));
    assert!(stderr.contains("is a FIFO"), "{stderr}");
    assert!(took < Duration::from_secs(10));
    std::fs::write(
        probe.env.home.join("config.toml"),
        "[limits]\nplugin_file_mib = 1\n",
    )
    .unwrap();
    let big = probe.env.ws.join("big.wasm");
    std::fs::write(&big, vec![0u8; 3 << 20]).unwrap();
    let (code, stderr, _) = plugin_add(&probe, &big);
    assert_eq!(code, Some(1));
    assert!(
        stderr.contains("is 3 MiB, more than the 1 MiB a plugin may be"),
        "{stderr}"
    );
}

#[test]
fn the_file_tools_refuse_a_fifo_before_opening_it() {
    let probe = Probe::new();
    mkfifo(&probe.env.ws.join("pipe"));
    for (tool, args) in [
        ("read_file", r#"{"path": "pipe"}"#),
        (
            "edit_file",
            r#"{"path": "pipe", "old_string": "a", "new_string": "b"}"#,
        ),
        ("write_file", r#"{"path": "pipe", "content": "x"}"#),
    ] {
        let started = Instant::now();
        let out = probe
            .command(&["tool", "call", "--json", "--yes", tool, args])
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|_| panic!("{tool}: {}", text(&out.stderr)));
        assert_eq!(v["status"], "error", "{tool}: {v}");
        assert!(
            v["output"]
                .as_str()
                .unwrap()
                .contains("pipe is not a regular file"),
            "{tool}: {v}"
        );
        assert!(started.elapsed() < Duration::from_secs(20));
    }
}

#[test]
fn a_reply_past_the_cap_fails_typed_and_the_session_resumes() {
    let probe = Probe::new();
    std::fs::write(
        probe.env.home.join("config.toml"),
        "[wire]\nmax_reply_mib = 1\n",
    )
    .unwrap();
    let huge = "x".repeat(3 << 20);
    let server = fake(&format!("[[turns]]\nreply = {{ text = \"{huge}\" }}\n"));
    let run = probe.exec(&server, &[]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let failed = run.one("session.failed");
    assert_eq!(failed["model_error"]["kind"], "reply_too_large", "{failed}");
    assert!(
        failed["error"].as_str().unwrap().contains("passed 1 MiB"),
        "{failed}"
    );
    let id = run.session_id();
    let again =
        fake("[[turns]]\nreply = { text = \"short\" }\n[[turns]]\nreply = { text = \"DONE\" }\n");
    probe.exec(&again, &["--resume", &id]).assert_done("short");
    let sent = again.received();
    let body = sent[0].body.to_string();
    assert!(body.contains("probe"), "the first prompt is kept: {body}");
}

/// A run whose shell command writes its pid, then sleeps.
fn start_shell_run(probe: &Probe, command: &str) -> (Child, FakeLlm) {
    let server = fake(&shell_script(&[command.to_string()]));
    let mut child = spawn(probe, &server, &["--mode", "yolo"]);
    wait_for(&mut child, "tool.call");
    (child, server)
}

fn wait_for_file(path: &Path) -> String {
    for _ in 0..400 {
        if let Ok(text) = std::fs::read_to_string(path) {
            if text.ends_with('\n') {
                return text.trim().to_string();
            }
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    panic!("{} never appeared", path.display());
}

#[test]
fn sigterm_and_sighup_end_the_run_like_ctrl_c_and_kill_the_command() {
    for (signal, code) in [("-TERM", 143), ("-HUP", 129)] {
        let probe = Probe::new();
        let (mut child, _server) = start_shell_run(&probe, "echo $$ > pid.txt; sleep 60");
        let pid = wait_for_file(&probe.env.ws.join("pid.txt"));
        assert!(Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap()
            .success());
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(code), "{signal}");
        assert!(
            !amber_tests::processes::still_runs(&pid),
            "{signal}: the command {pid} outlived the run"
        );
    }
}

#[test]
fn after_kill_9_no_command_finishes_its_side_effects() {
    // Sandboxed (write mode) and not (yolo): both die with amber.
    for mode in ["write", "yolo"] {
        let probe = Probe::new();
        let server = fake(&shell_script(&[
            "echo $$ > pid.txt; sleep 2; echo slept > out.txt".into(),
        ]));
        let mut child = spawn(&probe, &server, &["--mode", mode]);
        wait_for(&mut child, "tool.call");
        wait_for_file(&probe.env.ws.join("pid.txt"));
        child.kill().unwrap();
        child.wait().unwrap();
        std::thread::sleep(Duration::from_secs(3));
        assert!(
            !probe.env.ws.join("out.txt").exists(),
            "{mode}: a command finished after amber was killed"
        );
    }
}

#[test]
fn config_values_that_make_everything_fail_are_refused_by_every_command() {
    let probe = Probe::new();
    for (table, key, range) in [
        ("exec", "timeout_ms", "must be between 1 and 86400000"),
        ("exec", "output_kib", "must be between 1 and 1048576"),
        ("limits", "output_kib", "must be between 1 and 1048576"),
        ("agent", "max_tokens", "must be at least 1"),
        ("agent", "subagent_max_iterations", "must be at least 1"),
        ("agent", "max_tool_iterations", "must be at least 1"),
        ("wire", "max_reply_mib", "must be between 1 and 4096"),
        ("limits", "memory_mib", "must be between 1 and 4096"),
        ("limits", "deadline_ms", "must be at least 1"),
        ("limits", "plugin_file_mib", "must be between 1 and 4096"),
        ("agent", "subagent_max", "must be between 1 and 16"),
        ("memory", "recall_budget", "must be between 64 and 8192"),
        ("wire", "connect_timeout_ms", "must be at least 1"),
        ("wire", "first_byte_timeout_ms", "must be at least 1"),
        ("wire", "read_timeout_ms", "must be at least 1"),
        ("wire", "max_attempts", "must be between 1 and 10"),
        ("wire", "max_retry_delay_ms", "must be at least 1"),
    ] {
        std::fs::write(
            probe.env.home.join("config.toml"),
            format!("[{table}]\n{key} = 0\n"),
        )
        .unwrap();
        for command in [&["memory", "list"][..], &["tool", "list"][..]] {
            let out = probe.command(command).output().unwrap();
            let stderr = text(&out.stderr);
            assert_eq!(
                out.status.code(),
                Some(1),
                "{table}.{key} with {command:?}: {stderr}"
            );
            assert!(
                stderr.contains(&format!(":2: {table}.{key}: {range}")),
                "{table}.{key}: {stderr}"
            );
        }
    }
    std::fs::write(
        probe.env.home.join("config.toml"),
        "[exec]\nenv = [\"OPENAI_API_KEY\"]\n",
    )
    .unwrap();
    let out = probe.command(&["tool", "list"]).output().unwrap();
    assert!(
        text(&out.stderr).contains("looks like a secret"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn an_approved_write_outside_the_workspace_gets_exactly_that_folder() {
    let probe = Probe::new();
    let granted = probe.out("granted.txt");
    let elsewhere = probe.home.path().join("elsewhere.txt");
    let server = fake(&shell_script(&[
        format!("echo ok > {}", granted.display()),
        // Classified as writing only in the workspace, so it runs free and
        // gets no escalation: the sandbox stops its write to the home.
        format!(
            "printf 'all:\\n\\t@echo no > {}\\n' > Out.mk && make -s -f Out.mk",
            elsewhere.display()
        ),
    ]));
    let run = probe.exec(&server, &["--yes"]);
    let results = run.results();
    assert_eq!(
        std::fs::read_to_string(&granted).unwrap(),
        "ok\n",
        "{results:?}"
    );
    assert!(!elsewhere.exists(), "{results:?}");
}

#[test]
fn resuming_from_another_workspace_warns_naming_the_sessions_own() {
    let probe = Probe::new();
    let server =
        fake("[[turns]]\nreply = { text = \"first\" }\n[[turns]]\nreply = { text = \"DONE\" }\n");
    let run = probe.exec(&server, &[]);
    run.assert_done("first");
    let id = run.session_id();
    let other = tempfile::tempdir().unwrap();
    let again =
        fake("[[turns]]\nreply = { text = \"second\" }\n[[turns]]\nreply = { text = \"DONE\" }\n");
    let base = again.openai_base();
    let out = probe
        .command(&[
            "exec",
            "--json",
            "--base-url",
            &base,
            "--resume",
            &id,
            "go on",
        ])
        .env("AMBER_WORKSPACE", other.path())
        .output()
        .unwrap();
    let resumed = Run::from(out);
    resumed.assert_done("second");
    let started = resumed.one("session.started");
    let warned = started["warnings"].as_array().unwrap().iter().any(|w| {
        w.as_str().unwrap().contains(&format!(
            "belongs to the workspace {}",
            probe.env.ws.display()
        ))
    });
    assert!(warned, "{:#?}", resumed.events);
}

/// The workspace Makefile of the guard's probe: it writes a nested
/// repository's hook and config, creates a repository with a planted hook
/// and `core.fsmonitor`, and plants a `.claude/settings.json` (`plant`);
/// connects to a Unix socket outside `/run` and `/tmp` (`sock`); runs a
/// loopback server and its client (`loop`).
fn guard_makefile(socket: &Path) -> String {
    let recipe = |lines: &[&str]| lines.iter().map(|l| format!("\t{l}\n")).collect::<String>();
    format!(
        "plant:\n{}sock:\n{}loop:\n{}",
        recipe(&[
            "-printf '#!/bin/sh\\necho pwned\\n' > vendor/lib/.git/hooks/post-checkout",
            "-chmod +x vendor/lib/.git/hooks/post-checkout",
            "-printf '[core]\\n\\tfsmonitor = echo pwned\\n' >> vendor/lib/.git/config",
            "mkdir -p sub && cd sub && git init -q && printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout && git config core.fsmonitor 'echo pwned'",
            "mkdir -p .claude && echo '{}' > .claude/settings.json",
            "@echo planted",
        ]),
        recipe(&[&format!(
            "@perl -MSocket -e 'socket(S, PF_UNIX, SOCK_STREAM, 0) or die \"socket: $$!\\n\"; connect(S, pack_sockaddr_un(\"{}\")) or die \"connect: $$!\\n\"; print \"connected\\n\"'",
            socket.display()
        )]),
        recipe(&["@perl -MSocket -e 'socket(L, PF_INET, SOCK_STREAM, 0) or die \"socket: $$!\\n\"; bind(L, sockaddr_in(0, INADDR_LOOPBACK)) or die \"bind: $$!\\n\"; listen(L, 1) or die; my ($$port) = sockaddr_in(getsockname(L)); socket(C, PF_INET, SOCK_STREAM, 0) or die; connect(C, sockaddr_in($$port, INADDR_LOOPBACK)) or die \"connect: $$!\\n\"; accept(A, L) or die; syswrite(C, \"ping\"); sysread(A, $$got, 4); print \"got $$got\\n\"'"]),
    )
}

const NESTED_CONFIG: &str = "[core]\n\tbare = false\n";

#[test]
fn the_workspace_guard_holds_through_exec_under_both_backends() {
    let sockets = tempfile::tempdir_in("/var/tmp").unwrap();
    let socket = sockets.path().join("agent.sock");
    let listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    listener.set_nonblocking(true).unwrap();
    for backend in ["bubblewrap", "landlock"] {
        let probe = Probe::new();
        let ws = &probe.env.ws;
        std::fs::write(
            probe.env.home.join("config.toml"),
            format!("[sandbox]\nbackend = \"{backend}\"\n"),
        )
        .unwrap();
        let lib = ws.join("vendor/lib/.git");
        std::fs::create_dir_all(lib.join("hooks")).unwrap();
        std::fs::write(lib.join("config"), NESTED_CONFIG).unwrap();
        std::fs::write(ws.join("Makefile"), guard_makefile(&socket)).unwrap();
        // One call a turn: calls of one turn run at once, and then the
        // command that ends first after the plant finds what it made.
        let server = fake(&shell_turns(&[
            "make -s plant",
            "make -s sock",
            "make -s loop",
        ]));
        let run = probe.exec(&server, &[]);
        let results = run.results();
        assert_eq!(results.len(), 3, "{backend}: {results:#?}\n{}", run.stderr);
        // The nested repository: unchanged (read-only, or put back).
        assert!(!lib.join("hooks/post-checkout").exists(), "{backend}");
        assert_eq!(
            std::fs::read_to_string(lib.join("config")).unwrap(),
            NESTED_CONFIG
        );
        // The repository the command made: its hook and fsmonitor gone.
        let made = ws.join("sub/.git");
        assert!(made.join("HEAD").exists(), "{backend}: {:?}", results[0]);
        assert!(!made.join("hooks/post-checkout").exists(), "{backend}");
        let config = std::fs::read_to_string(made.join("config")).unwrap();
        assert!(!config.contains("fsmonitor"), "{backend}: {config}");
        // The model was told, in the tool result.
        assert!(
            results[0].2.contains("planted"),
            "{backend}: {:?}",
            results[0]
        );
        assert!(
            results[0].2.contains("[amber: git hooks and config keys")
                && results[0].2.contains("sub/.git/hooks/post-checkout"),
            "{backend}: {:?}",
            results[0]
        );
        // The user too, at the end of the turn.
        let changed = run.of_type("workspace.protected_changed")[0];
        assert_eq!(changed["turn"], 1, "{changed}");
        let changes = changed["changes"].as_array().unwrap();
        let has = |path: &str, change: &str| {
            changes
                .iter()
                .any(|c| c["path"] == path && c["change"] == change)
        };
        assert!(has("sub/.git", "reverted"), "{backend}: {changed}");
        assert!(
            has(".claude/settings.json", "created"),
            "{backend}: {changed}"
        );
        assert_eq!(
            has("vendor/lib/.git", "reverted"),
            backend == "landlock",
            "{changed}"
        );
        // No Unix socket, with or without a namespace.
        assert!(
            !results[1].2.contains("connected\n"),
            "{backend}: {:?}",
            results[1]
        );
        assert!(
            results[1].2.contains("socket: Operation not permitted"),
            "{:?}",
            results[1]
        );
        // Loopback inside one command: in bubblewrap's own namespace; not
        // at all without one (Landlock, no network granted).
        if backend == "bubblewrap" {
            assert!(results[2].2.contains("got ping"), "{:?}", results[2]);
        } else {
            assert!(
                results[2].2.contains("socket: Operation not permitted"),
                "{:?}",
                results[2]
            );
        }
    }
    assert!(
        matches!(listener.accept(), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock),
        "a sandboxed command connected to the socket"
    );
}

#[test]
fn exec_names_what_the_guard_undid_and_what_it_saw_on_stderr() {
    let probe = Probe::new();
    std::fs::write(
        probe.env.ws.join("Makefile"),
        guard_makefile(Path::new("/var/tmp/none.sock")),
    )
    .unwrap();
    std::fs::create_dir_all(probe.env.ws.join("vendor/lib/.git/hooks")).unwrap();
    let server = fake(&shell_script(&["make -s plant".to_string()]));
    let base = server.openai_base();
    let out = probe
        .command(&["exec", "--base-url", &base, "probe"])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("amber: workspace guard: removed the hook sub/.git/hooks/post-checkout, which the command made"),
        "{stderr}"
    );
    assert!(
        stderr.contains("amber: workspace guard: reverted core.fsmonitor in sub/.git/config"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "amber: workspace guard: created .claude/settings.json (Claude Code's hooks and permissions)"
        ),
        "{stderr}"
    );
}
