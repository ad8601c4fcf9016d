//! The tests of the policy, beside it: most of its lines were tests.

use super::*;
use crate::ports::DenyAll;

/// A small fake of the Approver port: answers from a script and
/// remembers what it was asked.
struct Scripted {
    answers: Mutex<Vec<Decision>>,
    asked: Mutex<Vec<ApprovalRequest>>,
}

impl Approver for Scripted {
    fn request(&self, request: ApprovalRequest) -> crate::ports::Approval {
        self.asked.lock().unwrap().push(request);
        let mut answers = self.answers.lock().unwrap();
        crate::ports::answered(if answers.is_empty() {
            Decision::Deny
        } else {
            answers.remove(0)
        })
    }
}

fn sandboxed() -> SandboxStance {
    SandboxStance::fixed(true, false)
}

fn scripted(answers: Vec<Decision>) -> Arc<Scripted> {
    Arc::new(Scripted {
        answers: Mutex::new(answers),
        asked: Mutex::new(Vec::new()),
    })
}

fn ask(kind: &str, path: &str) -> Ask {
    Ask {
        requester: "model".into(),
        kind: kind.into(),
        detail: "{}".into(),
        cwd: "/ws".into(),
        class: "writes".into(),
        paths: vec![PathBuf::from(path)],
        also: Vec::new(),
        open_paths: false,
        grants: None,
        group: None,
    }
}

fn grouped(kind: &str, group: &str) -> Ask {
    Ask {
        group: Some(group.into()),
        paths: Vec::new(),
        ..ask(kind, "/ws")
    }
}

#[test]
fn a_group_is_granted_and_ruled_as_a_whole_and_offered_as_a_scope() {
    let handler = scripted(vec![Decision::ApproveForSession(Scope::Kind(
        "mcp:fs".into(),
    ))]);
    let policy = Policy::new(Mode::Write, "/ws".into(), Vec::new(), Some(handler.clone()));
    assert_eq!(policy.authorize(&grouped("fs__read", "mcp:fs")), Ok(()));
    // The dialog offered the tool, then its group, and no folder.
    let asked = handler.asked.lock().unwrap().clone();
    assert_eq!(
        asked[0].scopes,
        [Scope::Kind("fs__read".into()), Scope::Kind("mcp:fs".into())]
    );
    // The group's grant covers its other tools, not another server's.
    assert_eq!(policy.authorize(&grouped("fs__write", "mcp:fs")), Ok(()));
    assert!(policy.authorize(&grouped("web__get", "mcp:web")).is_err());

    let rules = vec![Rule {
        tool: "mcp:web".into(),
        path: None,
        decision: RuleDecision::Deny,
    }];
    let policy = Policy::new(Mode::Write, "/ws".into(), rules, Some(scripted(vec![])));
    let err = policy
        .authorize(&grouped("web__get", "mcp:web"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("stored rule for `mcp:web`"), "{err}");
}

#[test]
fn without_a_handler_the_answer_is_a_fail_safe_deny() {
    let policy = Policy::new(Mode::Write, "/ws".into(), Vec::new(), None);
    let err = policy
        .authorize(&ask("write_note", "/ws/a"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("no approval handler is installed (fail-safe)"),
        "{err}"
    );
    let policy = Policy::new(
        Mode::Write,
        "/ws".into(),
        Vec::new(),
        Some(Arc::new(DenyAll)),
    );
    assert!(policy
        .authorize(&ask("write_note", "/ws/a"))
        .unwrap_err()
        .to_string()
        .starts_with("not approved"));
}

#[test]
fn stored_rules_decide_before_anyone_is_asked_deny_first() {
    let rules = vec![
        Rule {
            tool: "write_note".into(),
            path: Some("docs".into()),
            decision: RuleDecision::Allow,
        },
        Rule {
            tool: "write_note".into(),
            path: Some("docs/private".into()),
            decision: RuleDecision::Deny,
        },
        Rule {
            tool: "exec:cargo".into(),
            path: None,
            decision: RuleDecision::Allow,
        },
    ];
    let handler = scripted(vec![Decision::Deny]);
    let policy = Policy::new(Mode::Write, "/ws".into(), rules, Some(handler.clone()));
    assert_eq!(
        policy.authorize(&ask("write_note", "/ws/docs/a.md")),
        Ok(())
    );
    assert!(policy
        .authorize(&ask("write_note", "/ws/docs/private/b.md"))
        .unwrap_err()
        .to_string()
        .starts_with("denied by the stored rule for `write_note` in `docs/private`"));
    assert_eq!(policy.authorize(&ask("exec:cargo:network", "/ws")), Ok(()));
    assert!(handler.asked.lock().unwrap().is_empty());
    assert!(policy
        .authorize(&ask("write_note", "/ws/src/x.rs"))
        .is_err());
    assert_eq!(handler.asked.lock().unwrap().len(), 1);
    // An allow rule for the first program does not cover the rest.
    let both = Ask {
        also: vec!["exec:rm:destructive".into()],
        ..ask("exec:cargo:network", "/ws")
    };
    assert!(policy.authorize(&both).is_err());
    assert_eq!(handler.asked.lock().unwrap().len(), 2);
}

#[test]
fn a_session_grant_covers_its_scope_and_nothing_else() {
    let folder = Scope::Folder {
        kind: "write_note".into(),
        folder: "/ws/docs".into(),
    };
    let handler = scripted(vec![
        Decision::ApproveForSession(folder),
        Decision::Deny,
        Decision::ApproveForSession(Scope::Kind("exec:git:network".into())),
    ]);
    let policy = Policy::new(Mode::Write, "/ws".into(), Vec::new(), Some(handler.clone()))
        .with_sandbox(sandboxed());
    assert_eq!(
        policy.authorize(&ask("write_note", "/ws/docs/a.md")),
        Ok(())
    );
    // The dialog offered the tool and the narrowest folder.
    let offered = handler.asked.lock().unwrap()[0].scopes.clone();
    assert_eq!(
        offered,
        [
            Scope::Kind("write_note".into()),
            Scope::Folder {
                kind: "write_note".into(),
                folder: "/ws/docs".into()
            }
        ]
    );
    assert_eq!(
        policy.authorize(&ask("write_note", "/ws/docs/sub/b.md")),
        Ok(())
    );
    assert!(policy
        .authorize(&ask("write_note", "/ws/src/c.rs"))
        .is_err());
    assert!(policy
        .check_command("shell", "git push origin main", Path::new("/ws"))
        .is_ok());
    assert!(policy
        .check_command("shell", "git fetch", Path::new("/ws"))
        .is_ok());
    // Asked three times: the folder, the write outside it, the first push.
    assert_eq!(handler.asked.lock().unwrap().len(), 3);
    // A grant for network git is not one for destructive git.
    assert!(policy
        .check_command("shell", "git push --force", Path::new("/ws"))
        .is_err());
    assert_eq!(handler.asked.lock().unwrap().len(), 4);
}

#[test]
fn commands_follow_the_mode_and_their_class() {
    let handler = scripted(vec![Decision::Deny]);
    let write = Policy::new(Mode::Write, "/ws".into(), Vec::new(), Some(handler.clone()))
        .with_sandbox(sandboxed());
    let ws = Path::new("/ws");
    assert!(write.check_command("p", "cargo test", ws).is_ok());
    let err = write
        .check_command("p", "rm -rf build", ws)
        .unwrap_err()
        .to_string();
    let asked = handler.asked.lock().unwrap()[0].clone();
    assert_eq!(
        (
            asked.requester.as_str(),
            asked.action.as_str(),
            asked.detail.as_str()
        ),
        ("p", "exec:rm:destructive", "rm -rf build")
    );
    assert_eq!(
        asked.class.as_deref(),
        Some("destructive: `rm` deletes files")
    );
    assert!(err.starts_with("not approved: `exec:rm:destructive`"));
    let read = Policy::new(Mode::Read, "/ws".into(), Vec::new(), None);
    assert!(read.check_command("p", "ls -la", ws).is_ok());
    assert!(read
        .check_command("p", "touch x", ws)
        .unwrap_err()
        .to_string()
        .starts_with("read mode"));
    let yolo = Policy::new(Mode::Yolo, "/ws".into(), Vec::new(), None);
    assert!(yolo.check_command("p", "rm -rf build", ws).is_ok());
}

#[test]
fn a_folder_grant_for_a_command_covers_only_commands_whose_paths_are_inside_it() {
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path().to_path_buf();
    std::fs::create_dir_all(root.join("sub2")).unwrap();
    let handler = scripted(vec![
        Decision::ApproveForSession(Scope::Folder {
            kind: "exec:rm:destructive".into(),
            folder: root.clone(),
        }),
        Decision::Deny,
        Decision::Deny,
    ]);
    let policy = Policy::new(Mode::Write, root.clone(), Vec::new(), Some(handler.clone()))
        .with_sandbox(sandboxed());
    assert!(policy.check_command("shell", "rm -rf sub2", &root).is_ok());
    // The grant was for the workspace; /tmp/x is not in it.
    assert!(policy
        .check_command("shell", "rm -rf /tmp/x", &root)
        .is_err());
    assert_eq!(handler.asked.lock().unwrap().len(), 2);
    // A target only known at run time is never inside a folder.
    assert!(policy
        .check_command("shell", "rm -rf $TARGET", &root)
        .is_err());
    assert_eq!(handler.asked.lock().unwrap().len(), 3);
    assert!(policy
        .check_command("shell", "rm -rf sub2/inner", &root)
        .is_ok());
}

#[test]
fn a_rule_with_a_path_allows_only_targets_inside_it() {
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path().to_path_buf();
    let rule = |path: &str| Rule {
        tool: "exec:rm".into(),
        path: Some(path.into()),
        decision: RuleDecision::Allow,
    };
    let policy =
        Policy::new(Mode::Write, root.clone(), vec![rule(".")], None).with_sandbox(sandboxed());
    assert!(policy.check_command("shell", "rm -rf build", &root).is_ok());
    assert!(policy
        .check_command("shell", "rm -rf /etc/x", &root)
        .is_err());
    assert!(policy.check_command("shell", "rm -rf ../x", &root).is_err());
    // Targets that come from xargs's input are inside no folder.
    assert!(policy
        .check_command("shell", "cat list | xargs rm -rf", &root)
        .is_err());
    let policy =
        Policy::new(Mode::Write, root.clone(), vec![rule("sub")], None).with_sandbox(sandboxed());
    assert!(policy.check_command("shell", "rm -rf sub/x", &root).is_ok());
    assert!(policy
        .check_command("shell", "rm -rf other/x", &root)
        .is_err());
}

#[test]
fn an_approved_command_gets_the_escalation_its_class_names_and_the_dialog_says_so() {
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path().to_path_buf();
    let handler = scripted(vec![Decision::ApproveOnce, Decision::ApproveOnce]);
    let policy = Policy::new(Mode::Write, root.clone(), Vec::new(), Some(handler.clone()))
        .with_sandbox(sandboxed());
    let permit = policy
        .check_command("shell", "curl -o out.html example.org", &root)
        .unwrap();
    assert!(permit.network && !permit.unsandboxed && permit.workspace_writable);
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("new.txt");
    let permit = policy
        .check_command("shell", &format!("echo hi > {}", target.display()), &root)
        .unwrap();
    assert_eq!(permit.write_dirs, [outside.path().to_path_buf()]);
    assert!(!permit.network);
    let asked = handler.asked.lock().unwrap();
    assert_eq!(
        asked[0].grants.as_deref(),
        Some("in the sandbox, with network")
    );
    assert_eq!(
        asked[1].grants,
        Some(format!(
            "in the sandbox, with write access to {}",
            outside.path().display()
        ))
    );
}

#[test]
fn without_a_sandbox_every_command_in_write_mode_is_asked_and_yolo_runs_unsandboxed() {
    let handler = scripted(vec![Decision::Deny]);
    let ws = Path::new("/ws");
    let policy = Policy::new(Mode::Write, "/ws".into(), Vec::new(), Some(handler.clone()));
    let err = policy
        .check_command("shell", "ls", ws)
        .unwrap_err()
        .to_string();
    assert!(err.contains("exec:unsandboxed"), "{err}");
    let yolo = Policy::new(Mode::Yolo, "/ws".into(), Vec::new(), None).with_sandbox(sandboxed());
    assert!(yolo.check_command("shell", "ls", ws).unwrap().unsandboxed);
    let always = Policy::new(Mode::Yolo, "/ws".into(), Vec::new(), None)
        .with_sandbox(SandboxStance::fixed(true, true));
    let permit = always.check_command("shell", "curl x.org", ws).unwrap();
    assert!(!permit.unsandboxed && permit.network);
    let read = Policy::new(Mode::Read, "/ws".into(), Vec::new(), None).with_sandbox(sandboxed());
    assert!(
        !read
            .check_command("shell", "ls", ws)
            .unwrap()
            .workspace_writable
    );
}

#[test]
fn a_revoked_grant_asks_again_and_new_rules_hold_at_once() {
    let handler = scripted(vec![
        Decision::ApproveForSession(Scope::Kind("fs__read".into())),
        Decision::Deny,
    ]);
    let policy = Policy::new(Mode::Write, "/ws".into(), Vec::new(), Some(handler.clone()));
    assert_eq!(policy.authorize(&grouped("fs__read", "mcp:fs")), Ok(()));
    assert_eq!(policy.grants(), [Scope::Kind("fs__read".into())]);
    assert_eq!(policy.revoke_grant(1), None);
    assert_eq!(policy.revoke_grant(0), Some(Scope::Kind("fs__read".into())));
    // Asked again, and this time denied.
    assert!(policy.authorize(&grouped("fs__read", "mcp:fs")).is_err());
    assert_eq!(handler.asked.lock().unwrap().len(), 2);
    policy.set_rules(vec![Rule {
        tool: "fs__read".into(),
        path: None,
        decision: RuleDecision::Allow,
    }]);
    assert_eq!(policy.authorize(&grouped("fs__read", "mcp:fs")), Ok(()));
    assert_eq!(handler.asked.lock().unwrap().len(), 2, "the rule answered");
}

#[test]
fn a_skill_narrows_a_second_narrows_further_and_a_new_request_ends_it() {
    let policy = Policy::new(Mode::Write, "/ws".into(), Vec::new(), None);
    assert_eq!(policy.narrowing(), None);
    let tools = |names: &[&str]| names.iter().map(|n| n.to_string()).collect::<Vec<_>>();
    let first = policy.narrow("a", &tools(&["read_file", "grep", "skill"]), None);
    assert!(first.allows("grep") && !first.allows("shell"));
    // A second skill cannot widen: it keeps what both allow.
    let second = policy.narrow("b", &tools(&["grep", "shell", "skill"]), None);
    assert_eq!(second.tools, ["grep", "skill"]);
    assert_eq!(second.by, ["a", "b"]);
    policy.end_narrowing();
    assert_eq!(policy.narrowing(), None);
}

/// A sub-agent's view: taken as it starts, asked under its own name, and
/// what the `exec` import's gate asks when the sub-agent's call runs.
#[test]
fn a_view_keeps_its_mode_and_the_gate_routes_a_call_to_it() {
    let handler = scripted(vec![Decision::ApproveOnce]);
    let parent = Arc::new(
        Policy::new(Mode::Yolo, "/ws".into(), Vec::new(), Some(handler.clone()))
            .with_sandbox(sandboxed()),
    );
    let view = Arc::new(parent.view("task-1", Mode::Read));
    let gate: &dyn CommandGate = parent.as_ref();
    // The parent's own calls: yolo.
    assert!(gate
        .check("shell", "rm -rf build", Path::new("/ws"))
        .is_ok());
    // The sub-agent's call: read mode, whatever the parent says.
    let scope = crate::policy::scope::CallScope {
        call_id: "c1".into(),
        agent: "task-1".into(),
        policy: view.clone(),
        cancel: Default::default(),
    };
    let refused = crate::policy::scope::within(Some(scope), || {
        gate.check("shell", "rm -rf build", Path::new("/ws"))
    });
    assert!(
        matches!(refused, Err(PolicyError::ReadMode { .. })),
        "{refused:?}"
    );
    parent.set_mode(Mode::Yolo);
    assert_eq!(view.mode(), Mode::Read);
    // Tightening the parent tightens a running view; loosening does not.
    let wide = Arc::new(parent.view("task-3", Mode::Write));
    parent.set_mode(Mode::Read);
    assert_eq!(wide.mode(), Mode::Read);
    parent.set_mode(Mode::Yolo);
    assert_eq!(wide.mode(), Mode::Write);
    // A deny rule added to the session reaches the view at once.
    parent.set_rules(vec![Rule {
        tool: "write_file".into(),
        path: None,
        decision: RuleDecision::Deny,
    }]);
    assert!(matches!(
        wide.authorize(&ask("write_file", "/ws/a.txt")),
        Err(PolicyError::DeniedByRule { .. })
    ));
    parent.set_rules(Vec::new());
    // A write-mode view asks the person, saying whose question it is.
    let writer = parent.view("task-2", Mode::Write);
    writer.authorize(&ask("write_file", "/ws/a.txt")).unwrap();
    assert_eq!(handler.asked.lock().unwrap()[0].agent, "task-2");
}

#[test]
fn a_sub_agent_mode_is_its_parents_or_stricter_and_never_plan() {
    assert_eq!(Mode::Write.at_most(Mode::Yolo), Mode::Write);
    assert_eq!(Mode::Yolo.at_most(Mode::Read), Mode::Read);
    assert_eq!(Mode::Plan.at_most(Mode::Write), Mode::Read);
    assert_eq!(Mode::Write.at_most(Mode::Plan), Mode::Read);
    assert_eq!(Mode::Write.cycled(), Mode::Plan);
    assert_eq!(Mode::Plan.cycled(), Mode::Read);
    assert_eq!(Mode::Read.cycled(), Mode::Write);
}

#[test]
fn a_background_process_is_asked_unless_read_only_and_runs_with_the_network() {
    let ws = tempfile::tempdir().unwrap();
    let root = ws.path().to_path_buf();
    let handler = scripted(vec![Decision::ApproveOnce]);
    let policy = Policy::new(Mode::Write, root.clone(), Vec::new(), Some(handler.clone()))
        .with_sandbox(sandboxed());
    // The same command as `shell` runs free, in its own network.
    let free = policy.check_command("shell", "cargo run", &root).unwrap();
    assert!(!free.network);
    let served = policy
        .check_command("process_start", "cargo run", &root)
        .unwrap();
    assert!(served.network && served.workspace_writable && !served.unsandboxed);
    let watching = policy
        .check_command("process_start", "tail -f log.txt", &root)
        .unwrap();
    assert!(!watching.network);
    let asked = handler.asked.lock().unwrap();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].action, "exec:background");
    assert_eq!(
        asked[0].grants.as_deref(),
        Some("in the sandbox, with network")
    );
}
