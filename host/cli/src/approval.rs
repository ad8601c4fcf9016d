//! The approval handler of a terminal run: a dialog on the TTY offering
//! approve once, approve for the session (the kind, or the folder), or
//! deny. Without a TTY the run is headless: `--yes` approves, anything
//! else is denied (fail-safe). The policy serialises questions, so parallel
//! calls never interleave their dialogs.

use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use amber_core::ports::{
    answered, Approval, ApprovalRequest, Approver, Decision, HeadlessApprover, Scope,
};

/// The handler for this run; an edit or a write is previewed against
/// the files of `workspace`.
pub fn handler(yes: bool, workspace: Option<PathBuf>) -> Arc<dyn Approver> {
    // stdin may be a pipe (`git diff | amber -p …`): the dialog reads the
    // terminal itself, so stderr on a terminal is what counts.
    let interactive = std::io::stderr().is_terminal();
    if yes || !interactive {
        return Arc::new(HeadlessApprover { yes });
    }
    match std::fs::File::open("/dev/tty") {
        Ok(tty) => Arc::new(
            Dialog::new(BufReader::new(tty), std::io::stderr()).previewing(workspace),
        ),
        Err(_) => Arc::new(HeadlessApprover { yes: false }),
    }
}

/// Diff lines the terminal dialog prints before saying how many more
/// there are: the choices must stay near the prompt.
const PREVIEW_LINES: usize = 40;

/// Asks on `output`, reads answers from `input`.
pub struct Dialog<R, W> {
    io: Mutex<(R, W)>,
    workspace: Option<PathBuf>,
}

impl<R: BufRead + Send, W: Write + Send> Dialog<R, W> {
    pub fn new(input: R, output: W) -> Self {
        Dialog {
            io: Mutex::new((input, output)),
            workspace: None,
        }
    }

    /// Shows the diff an edit or a write would make in `workspace`.
    pub fn previewing(mut self, workspace: Option<PathBuf>) -> Self {
        self.workspace = workspace;
        self
    }
}

/// The dialog asks on the caller's thread, which is the policy's (a
/// blocking one, never an async worker), and answers at once.
impl<R: BufRead + Send, W: Write + Send> Approver for Dialog<R, W> {
    fn request(&self, request: ApprovalRequest) -> Approval {
        answered(self.ask(&request))
    }
}

impl<R: BufRead + Send, W: Write + Send> Dialog<R, W> {
    /// Shows `request` and reads the answer.
    pub fn ask(&self, request: &ApprovalRequest) -> Decision {
        let Ok(mut io) = self.io.lock() else {
            return Decision::Deny;
        };
        let (input, output) = &mut *io;
        let _ = writeln!(output, "\namber: approval needed");
        let what = if request.action.starts_with("exec") {
            "command:"
        } else {
            "args:"
        };
        // The command, the args and the folder came from the model: shown,
        // never obeyed, by the terminal.
        let mut field = |label: &str, value: &str| {
            let value = amber_core::printable::printable_lines(value);
            let _ = writeln!(output, "  {label:<9}{value}");
        };
        field("from:", &request.requester);
        field("action:", &request.action);
        field(what, &request.detail);
        if let Some(cwd) = &request.cwd {
            field("cwd:", cwd);
        }
        if let Some(class) = &request.class {
            field("class:", class);
        }
        if let Some(grants) = &request.grants {
            field("runs:", grants);
        }
        let diff = self
            .workspace
            .as_deref()
            .and_then(|w| amber_app::preview::diff(w, &request.action, &request.detail));
        if let Some(diff) = diff {
            let lines: Vec<&str> = diff.lines().collect();
            for line in lines.iter().take(PREVIEW_LINES) {
                let _ = writeln!(output, "    {}", amber_core::printable::printable_lines(line));
            }
            if lines.len() > PREVIEW_LINES {
                let _ = writeln!(
                    output,
                    "    … {} more diff lines",
                    lines.len() - PREVIEW_LINES
                );
            }
        }
        // `s` the kind, then `f` its folder, or `a` all of its group
        // (every tool of an MCP server).
        let keys: Vec<char> = request
            .scopes
            .iter()
            .take(2)
            .enumerate()
            .map(|(i, scope)| match (i, scope) {
                (0, _) => 's',
                (_, Scope::Folder { .. }) => 'f',
                _ => 'a',
            })
            .collect();
        let _ = writeln!(output, "  [y] approve once");
        for (key, scope) in keys.iter().zip(&request.scopes) {
            let _ = writeln!(
                output,
                "  [{key}] approve {} for this session",
                scope.describe()
            );
        }
        let _ = writeln!(output, "  [n] deny (then say why, for the model, or just enter)");
        loop {
            let _ = write!(
                output,
                "approve? [y/{}n] ",
                keys.iter().map(|k| format!("{k}/")).collect::<String>()
            );
            let _ = output.flush();
            let mut answer = String::new();
            match input.read_line(&mut answer) {
                Ok(0) | Err(_) => return Decision::Deny,
                Ok(_) => {}
            }
            let answer = answer.trim().to_lowercase();
            let chosen = match answer.as_str() {
                "y" | "yes" => Some(Decision::ApproveOnce),
                "n" | "no" | "" => Some(Decision::Declined {
                    reason: read_reason(input, output),
                }),
                other => keys
                    .iter()
                    .position(|k| other.len() == 1 && other.starts_with(*k))
                    .and_then(|i| request.scopes.get(i))
                    .cloned()
                    .map(Decision::ApproveForSession),
            };
            match chosen {
                Some(decision) => return decision,
                None => {
                    let _ = writeln!(output, "please answer one of the letters shown");
                }
            }
        }
    }
}

/// What the person says after `n`, for the model: a line, maybe empty.
fn read_reason(input: &mut impl BufRead, output: &mut impl Write) -> Option<String> {
    let _ = write!(output, "why, for the model (enter for no reason): ");
    let _ = output.flush();
    let mut reason = String::new();
    input.read_line(&mut reason).ok()?;
    let reason = reason.trim();
    (!reason.is_empty()).then(|| reason.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use amber_core::ports::Scope;

    fn request() -> ApprovalRequest {
        ApprovalRequest {
            requester: "shell".into(),
            action: "exec:rm:destructive".into(),
            grants: Some("in the sandbox".into()),
            agent: "main".into(),
            detail: "rm -rf build".into(),
            cwd: Some("/ws".into()),
            class: Some("destructive: `rm` deletes files".into()),
            scopes: vec![
                Scope::Kind("exec:rm:destructive".into()),
                Scope::Folder {
                    kind: "exec:rm:destructive".into(),
                    folder: "/ws".into(),
                },
            ],
        }
    }

    fn ask(answers: &str) -> (Decision, String) {
        let mut shown = Vec::new();
        let decision = Dialog::new(answers.as_bytes(), &mut shown).ask(&request());
        (decision, String::from_utf8(shown).unwrap())
    }

    #[test]
    fn the_dialog_shows_who_what_where_and_why_and_takes_each_answer() {
        let (decision, shown) = ask("y\n");
        assert_eq!(decision, Decision::ApproveOnce);
        for line in [
            "from:    shell",
            "command: rm -rf build",
            "cwd:     /ws",
            "class:   destructive: `rm` deletes files",
            "[f] approve `exec:rm:destructive` inside /ws for this session",
        ] {
            assert!(shown.contains(line), "{line} in\n{shown}");
        }
        assert_eq!(
            ask("s\n").0,
            Decision::ApproveForSession(Scope::Kind("exec:rm:destructive".into()))
        );
        assert!(matches!(
            ask("f\n").0,
            Decision::ApproveForSession(Scope::Folder { .. })
        ));
        assert_eq!(ask("n\n").0, Decision::Declined { reason: None });
        assert_eq!(
            ask("n\nuse cargo test\n").0,
            Decision::Declined {
                reason: Some("use cargo test".into())
            }
        );
        let (decision, shown) = ask("maybe\ny\n");
        assert_eq!(decision, Decision::ApproveOnce);
        assert!(shown.contains("please answer one of the letters shown"));
        // End of input denies.
        assert_eq!(ask("").0, Decision::Deny);
    }

    #[test]
    fn an_edit_is_previewed_as_the_diff_it_would_make() {
        let ws = tempfile::tempdir().unwrap();
        std::fs::write(ws.path().join("Makefile"), "all:\n\techo hi\n").unwrap();
        let request = ApprovalRequest {
            requester: "model".into(),
            action: "edit_file".into(),
            detail: r#"{"path":"Makefile","old_string":"echo hi","new_string":"echo bye"}"#.into(),
            cwd: None,
            class: Some("writes".into()),
            scopes: vec![],
            agent: "main".into(),
            grants: None,
        };
        let mut shown = Vec::new();
        let decision = Dialog::new("n\nkeep it\n".as_bytes(), &mut shown)
            .previewing(Some(ws.path().to_path_buf()))
            .ask(&request);
        assert_eq!(
            decision,
            Decision::Declined {
                reason: Some("keep it".into())
            }
        );
        let shown = String::from_utf8(shown).unwrap();
        // The tab is the file's own, kept.
        assert!(shown.contains("-\techo hi") && shown.contains("+\techo bye"), "{shown}");
    }
}
