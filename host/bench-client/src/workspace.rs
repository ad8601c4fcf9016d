//! The scenario's workspace: written from `setup.files` before the run,
//! and looked at after it (`checks.files`, `checks.commands`).

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Component, Path};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::fake_llm::script::{CommandCheck, FileCheck};
use crate::fake_llm::Transcript;

/// `path` stays inside the workspace: a scenario file may come from
/// anywhere.
fn inside(path: &str) -> bool {
    !path.is_empty()
        && Path::new(path)
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
}

/// Writes `setup.files` into `ws`.
pub fn set_up(transcript: &Transcript, ws: &Path) -> Result<(), String> {
    for (path, content) in &transcript.setup.files {
        if !inside(path) {
            return Err(format!("setup.files: `{path}` leads out of the workspace"));
        }
        let file = ws.join(path);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("setup.files: cannot make {}: {e}", parent.display()))?;
        }
        std::fs::write(&file, content)
            .map_err(|e| format!("setup.files: cannot write {path}: {e}"))?;
    }
    Ok(())
}

/// Every way `ws` misses the file checks.
pub fn check_files(transcript: &Transcript, ws: &Path) -> Vec<String> {
    let mut misses = Vec::new();
    for check in &transcript.checks.files {
        if let Err(why) = check_file(transcript, check, ws) {
            misses.push(format!("file {}: {why}", check.path));
        }
    }
    misses
}

fn check_file(transcript: &Transcript, check: &FileCheck, ws: &Path) -> Result<(), String> {
    if !inside(&check.path) {
        return Err("leads out of the workspace".into());
    }
    let now = std::fs::read(ws.join(&check.path)).ok();
    let text = now.as_deref().map(String::from_utf8_lossy);
    if check.unchanged {
        let before = transcript.setup.files.get(&check.path);
        match (before, &text) {
            (Some(before), Some(now)) if before.as_str() == now.as_ref() => {}
            (None, None) => {}
            (Some(_), None) => return Err("was removed; it should be unchanged".into()),
            (None, Some(_)) => return Err("was created; it should not exist".into()),
            _ => return Err("was changed; it should be unchanged".into()),
        }
    }
    match (check.exists, &text) {
        (Some(false), Some(_)) => return Err("exists; it should not".into()),
        (Some(true), None) => return Err("does not exist".into()),
        _ => {}
    }
    let wants_content =
        check.equals.is_some() || !check.contains.is_empty() || !check.not_contains.is_empty();
    let Some(text) = text else {
        return if wants_content {
            Err("does not exist".into())
        } else {
            Ok(())
        };
    };
    if let Some(equals) = &check.equals {
        if equals.as_str() != text.as_ref() {
            return Err(format!("is not as expected; it holds {:?}", clip(&text)));
        }
    }
    for needle in &check.contains {
        if !text.contains(needle.as_str()) {
            return Err(format!("lacks {needle:?}"));
        }
    }
    for needle in &check.not_contains {
        if text.contains(needle.as_str()) {
            return Err(format!("contains {needle:?}"));
        }
    }
    Ok(())
}

/// Every way the workspace's commands miss their checks.
pub fn check_commands(transcript: &Transcript, ws: &Path) -> Vec<String> {
    transcript
        .checks
        .commands
        .iter()
        .filter_map(|check| {
            run_check(check, ws)
                .err()
                .map(|why| format!("command `{}`: {why}", check.run))
        })
        .collect()
}

fn run_check(check: &CommandCheck, ws: &Path) -> Result<(), String> {
    // Its own process group, so that a timeout kills what it started too.
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(&check.run)
        .process_group(0)
        .current_dir(ws)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start sh: {e}"))?;
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let (mut out, mut err) = (String::new(), String::new());
        if let Some(s) = stdout.as_mut() {
            let _ = s.read_to_string(&mut out);
        }
        if let Some(s) = stderr.as_mut() {
            let _ = s.read_to_string(&mut err);
        }
        (out, err)
    });
    let deadline = Instant::now() + Duration::from_millis(check.timeout_ms);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                if let Ok(pid) = i32::try_from(child.id()) {
                    // SAFETY: kill(2) on the group this check started.
                    unsafe { libc::kill(-pid, libc::SIGKILL) };
                }
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("did not end within {} ms", check.timeout_ms));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(e.to_string()),
        }
    };
    let (out, err) = reader.join().unwrap_or_default();
    let code = status.code().unwrap_or(-1);
    if code != check.exit {
        let said = if err.trim().is_empty() { &out } else { &err };
        return Err(format!(
            "exited {code}, not {}; it said {:?}",
            check.exit,
            clip(said)
        ));
    }
    for needle in &check.stdout_contains {
        if !out.contains(needle.as_str()) {
            return Err(format!("its output lacks {needle:?}"));
        }
    }
    Ok(())
}

/// At most 200 characters of `text`, for a reason line.
fn clip(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(extra: &str) -> Transcript {
        Transcript::parse(&format!(
            "prompt = \"p\"\n[setup.files]\n\"a.txt\" = \"one\\n\"\n{extra}"
        ))
        .unwrap()
    }

    #[test]
    fn setup_files_may_not_lead_out_of_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        for path in ["../escape.txt", "/tmp/abs.txt", "a/../../b.txt", ""] {
            let mut t = scenario("");
            t.setup.files.insert(path.into(), "x".into());
            let e = set_up(&t, &ws).unwrap_err();
            assert!(e.contains("leads out of the workspace"), "{path}: {e}");
        }
        assert!(!dir.path().join("escape.txt").exists());
    }

    #[test]
    fn each_file_check_says_what_is_wrong() {
        let dir = tempfile::tempdir().unwrap();
        let t = scenario(
            r#"
[[checks.files]]
path = "a.txt"
unchanged = true
[[checks.files]]
path = "a.txt"
contains = ["two"]
not_contains = ["one"]
[[checks.files]]
path = "new.txt"
exists = false
[[checks.files]]
path = "gone.txt"
equals = "x"
"#,
        );
        set_up(&t, dir.path()).unwrap();
        assert_eq!(
            check_files(&t, dir.path()),
            [
                r#"file a.txt: lacks "two""#,
                "file gone.txt: does not exist"
            ]
        );
        std::fs::write(dir.path().join("a.txt"), "one two\n").unwrap();
        std::fs::write(dir.path().join("new.txt"), "").unwrap();
        assert_eq!(
            check_files(&t, dir.path()),
            [
                "file a.txt: was changed; it should be unchanged",
                r#"file a.txt: contains "one""#,
                "file new.txt: exists; it should not",
                "file gone.txt: does not exist"
            ]
        );
    }

    #[test]
    fn a_command_check_fails_on_its_status_its_output_or_its_time() {
        let dir = tempfile::tempdir().unwrap();
        let t = scenario(
            r#"
[[checks.commands]]
run = "echo all good"
stdout_contains = ["good"]
[[checks.commands]]
run = "echo broke >&2; exit 3"
[[checks.commands]]
run = "exit 3"
exit = 3
stdout_contains = ["never"]
[[checks.commands]]
run = "sleep 5"
timeout_ms = 100
"#,
        );
        assert_eq!(
            check_commands(&t, dir.path()),
            [
                r#"command `echo broke >&2; exit 3`: exited 3, not 0; it said "broke""#,
                r#"command `exit 3`: its output lacks "never""#,
                "command `sleep 5`: did not end within 100 ms",
            ]
        );
    }
}
