//! Running one line. Seed: "Command dispatch": strip the leading slash,
//! trim, tokenize; walk the tree to the deepest documented match; no match
//! is an unknown command; a node without an action, or whose action
//! nobody registered, prints its man page; otherwise its handler runs, and
//! whatever goes wrong in it comes back as `command error: …`.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::man::page_after;
use super::{tokenize, CommandError, CommandSet, Invocation, Outcome, Resolution};

impl<C> CommandSet<C> {
    /// Runs `line` (`/set policy read`; the slash is optional) against the
    /// merged tree. It never panics: a handler's panic is caught and
    /// reported. `ctx` may then be half-updated by that handler, which is
    /// why handlers change their context last.
    pub fn dispatch(&self, ctx: &mut C, line: &str) -> Outcome {
        let line = strip(line);
        let words = match tokenize(line) {
            Ok(words) => words,
            Err(e) => {
                return Outcome::Error {
                    action: String::new(),
                    message: format!("command error: {e}"),
                    usage: true,
                }
            }
        };
        let (path, node, arg) = match self.resolve(&words) {
            Resolution::Found { path, node, arg } => (path, node, arg),
            Resolution::Unknown { suggestion } => {
                let first = words.first().map_or("", String::as_str);
                return unknown(line, first, suggestion);
            }
        };
        // `--help` (or `-h`) after any command is its page, never a value
        // it acts on: `/compact --help` does not compact with "--help" as
        // its focus, and `/set model --help` does not set the model.
        if matches!(
            words.get(path.len()).map(String::as_str),
            Some("--help" | "-h")
        ) {
            return Outcome::Man {
                text: super::man::man_page(&path, node),
                path,
                unmatched: None,
            };
        }
        let Some((action, handler)) = node
            .action()
            .and_then(|action| Some((action, self.handler(action)?)))
        else {
            let unmatched = words
                .get(path.len())
                .filter(|_| !node.children.is_empty())
                .cloned();
            return Outcome::Man {
                text: page_after(&path, node, unmatched.as_deref()),
                path,
                unmatched,
            };
        };
        let invocation = Invocation {
            action,
            path: &path,
            arg: &arg,
            tree: self.tree(),
        };
        match catch_unwind(AssertUnwindSafe(|| handler(ctx, &invocation))) {
            Ok(Ok(reply)) => Outcome::Ok {
                action: action.to_string(),
                path,
                reply,
            },
            Ok(Err(CommandError::Failed(e))) => Outcome::Error {
                action: action.to_string(),
                message: format!("command error: {e}"),
                usage: false,
            },
            Ok(Err(CommandError::Invalid(e))) => Outcome::Error {
                action: action.to_string(),
                message: format!("command error: {e}"),
                usage: true,
            },
            // Disabled between the tree's rebuild and this call: to the
            // user the command no longer exists, which is the truth.
            Ok(Err(CommandError::Gone)) => unknown(line, &path.join(" "), None),
            Err(payload) => Outcome::Error {
                action: action.to_string(),
                message: format!(
                    "command error: the handler panicked: {}",
                    panic_text(payload.as_ref())
                ),
                usage: false,
            },
        }
    }
}

/// The line without its surrounding whitespace and one leading slash.
fn strip(line: &str) -> &str {
    strip_start(line).trim_end()
}

/// The line without its leading whitespace and one leading slash; the end
/// is kept, since completion reads a trailing space as a finished word.
pub(crate) fn strip_start(line: &str) -> &str {
    let line = line.trim_start();
    line.strip_prefix('/').unwrap_or(line).trim_start()
}

fn unknown(line: &str, command: &str, suggestion: Option<String>) -> Outcome {
    let mut message = format!("unknown command: /{command} (try /help)");
    if let Some(near) = &suggestion {
        message.push_str(&format!("; did you mean {near}?"));
    }
    Outcome::Unknown {
        line: line.to_string(),
        suggestion,
        message,
    }
}

/// A panic's message: `panic!` passes a `&str` or a `String`.
fn panic_text(payload: &(dyn Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::{
        builtin_tree, handler, help_handler, Effect, Feed, Handler, Node, Reply,
    };

    /// The handlers' context in these tests: what they were called with.
    #[derive(Default)]
    struct Log(Vec<String>);

    fn echo() -> Handler<Log> {
        handler(|log: &mut Log, inv| {
            let call = format!("{} {:?} {:?}", inv.action, inv.path, inv.arg);
            log.0.push(call.clone());
            Ok(Reply::text(call))
        })
    }

    fn builtin_set() -> CommandSet<Log> {
        let mut set = CommandSet::new(builtin_tree());
        for action in [
            "set.value",
            "get.all",
            "get.value",
            "plugins.list",
            "status",
        ] {
            set.register(action, echo());
        }
        set.register(
            "quit",
            handler(|_, _| Ok(Reply::text("bye").with_effect(Effect::Quit))),
        );
        set.register("help", help_handler());
        set
    }

    fn ok_text(outcome: &Outcome) -> &str {
        match outcome {
            Outcome::Ok { reply, .. } => &reply.text,
            other => panic!("not ok: {other:?}"),
        }
    }

    #[test]
    fn the_deepest_match_runs_with_the_rest_as_its_argument() {
        let set = builtin_set();
        let mut log = Log::default();
        let outcome = set.dispatch(&mut log, "/set model 'gpt 4o'  mini");
        assert_eq!(
            ok_text(&outcome),
            r#"set.value ["set", "model"] "gpt 4o mini""#
        );
        let outcome = set.dispatch(&mut log, "  set policy read ");
        assert_eq!(
            ok_text(&outcome),
            r#"set.value ["set", "policy", "read"] """#
        );
        let Outcome::Ok { action, path, .. } = set.dispatch(&mut log, "/get") else {
            panic!("get runs");
        };
        assert_eq!(
            (action.as_str(), path.as_slice()),
            ("get.all", &["get".to_string()][..])
        );
        assert_eq!(log.0.len(), 3);
    }

    #[test]
    fn help_after_a_command_is_its_page_and_runs_nothing() {
        let set = builtin_set();
        let mut log = Log::default();
        for (line, at) in [
            ("/set model --help", vec!["set", "model"]),
            ("/status -h", vec!["status"]),
        ] {
            let Outcome::Man { path, .. } = set.dispatch(&mut log, line) else {
                panic!("{line} ran");
            };
            assert_eq!(path, at);
        }
        assert!(log.0.is_empty(), "{:?}", log.0);
    }

    #[test]
    fn a_node_without_an_action_prints_its_page() {
        let set = builtin_set();
        let outcome = set.dispatch(&mut Log::default(), "/set");
        let Outcome::Man { path, text, .. } = &outcome else {
            panic!("set is inert: {outcome:?}");
        };
        assert_eq!(path, &["set"]);
        assert!(text.starts_with("/set — change a setting"), "{text}");
        assert!(outcome.is_success());
        assert!(text.contains("\n  policy "), "{text}");
    }

    #[test]
    fn an_action_nobody_registered_prints_the_page_instead() {
        let set = builtin_set();
        let mut log = Log::default();
        let Outcome::Man { path, text, .. } = set.dispatch(&mut log, "/sessions") else {
            panic!("sessions.list has no handler here");
        };
        assert_eq!(path, ["sessions"]);
        assert!(text.starts_with("/sessions — "), "{text}");
        assert!(log.0.is_empty());
    }

    #[test]
    fn an_empty_line_prints_the_list_of_commands() {
        let set = builtin_set();
        for line in ["", "/", "  /  "] {
            let Outcome::Man { path, text, .. } = set.dispatch(&mut Log::default(), line) else {
                panic!("{line:?} prints the root page");
            };
            assert!(path.is_empty());
            assert!(text.contains("\n  /plugins "), "{text}");
        }
    }

    #[test]
    fn an_unknown_command_suggests_the_nearest() {
        let set = builtin_set();
        let outcome = set.dispatch(&mut Log::default(), "/plugns list");
        assert_eq!(
            outcome,
            Outcome::Unknown {
                line: "plugns list".into(),
                suggestion: Some("/plugins".into()),
                message: "unknown command: /plugns (try /help); did you mean /plugins?".into(),
            }
        );
        assert!(!outcome.is_success());
        let Outcome::Unknown {
            message,
            suggestion,
            ..
        } = set.dispatch(&mut Log::default(), "frobnicate")
        else {
            panic!("unknown");
        };
        assert_eq!(message, "unknown command: /frobnicate (try /help)");
        assert_eq!(suggestion, None);
    }

    #[test]
    fn a_handler_error_is_a_command_error() {
        let mut set = builtin_set();
        set.register(
            "status",
            handler(|_, _| Err(CommandError::failed("no session yet: send a prompt first"))),
        );
        let outcome = set.dispatch(&mut Log::default(), "/status");
        assert_eq!(
            outcome,
            Outcome::Error {
                action: "status".into(),
                message: "command error: no session yet: send a prompt first".into(),
                usage: false,
            }
        );
    }

    #[test]
    fn a_handler_panic_is_caught_and_the_next_dispatch_works() {
        let mut set = builtin_set();
        set.register("status", handler(|_, _| panic!("boom {}", 42)));
        let mut log = Log::default();
        let outcome = set.dispatch(&mut log, "/status");
        assert_eq!(
            outcome,
            Outcome::Error {
                action: "status".into(),
                message: "command error: the handler panicked: boom 42".into(),
                usage: false,
            }
        );
        let outcome = set.dispatch(&mut log, "/get model");
        assert!(outcome.is_success(), "{outcome:?}");
    }

    #[test]
    fn a_gone_target_is_an_unknown_command_not_a_stale_call() {
        let mut set = builtin_set();
        set.set_feed(
            Feed::new(
                "plugin-commands",
                Node::new("").with_child("git", Node::new("git").with_action("plugin.git.git")),
            )
            .with_handler("plugin.git.git", handler(|_, _| Err(CommandError::Gone))),
        );
        let outcome = set.dispatch(&mut Log::default(), "/git log");
        assert_eq!(
            outcome,
            Outcome::Unknown {
                line: "git log".into(),
                suggestion: None,
                message: "unknown command: /git (try /help)".into(),
            }
        );
    }

    #[test]
    fn a_line_that_cannot_be_read_is_a_command_error() {
        let set = builtin_set();
        let Outcome::Error {
            action,
            message,
            usage: true,
        } = set.dispatch(&mut Log::default(), "/set model 'x")
        else {
            panic!("an unclosed quote is an error");
        };
        assert_eq!(action, "");
        assert!(
            message.starts_with("command error: unclosed quote (')"),
            "{message}"
        );
    }

    #[test]
    fn a_word_past_an_inert_node_is_named_on_its_page() {
        let set = builtin_set();
        let Outcome::Man { path, text, .. } = set.dispatch(&mut Log::default(), "/set modle x") else {
            panic!("set is inert");
        };
        assert_eq!(path, ["set"]);
        assert!(
            text.starts_with("/set has no `modle`; did you mean /set model?"),
            "{text}"
        );
    }

    #[test]
    fn help_renders_any_page_of_the_merged_tree() {
        let mut set = builtin_set();
        set.set_feed(Feed::new(
            "plugin-commands",
            Node::new("").with_child("git", Node::new("git helpers").with_man("Git, briefly.")),
        ));
        let mut log = Log::default();
        assert!(ok_text(&set.dispatch(&mut log, "/help")).contains("\n  /git "));
        let page = set.dispatch(&mut log, "/help /set policy");
        assert!(ok_text(&page).starts_with("/set policy — "));
        let page = set.dispatch(&mut log, "/help git");
        assert_eq!(ok_text(&page), "/git — git helpers\n\nGit, briefly.");
        let Outcome::Error { message, .. } = set.dispatch(&mut log, "/help plugns") else {
            panic!("no such command");
        };
        assert_eq!(
            message,
            "command error: no command /plugns (try /help); did you mean /plugins?"
        );
    }
}

#[cfg(test)]
mod properties {
    use proptest::prelude::*;

    use super::*;
    use crate::commands::{builtin_tree, handler, Node, Reply};

    fn every_action_handled() -> CommandSet<()> {
        let mut set = CommandSet::new(builtin_tree());
        for action in set.actions_in_tree() {
            set.register(action, handler(|_, _| Ok(Reply::text("ok"))));
        }
        set
    }

    /// Lines made of the tree's own words, quotes, escapes and noise, so
    /// most of them reach deep into the tree.
    fn line() -> impl Strategy<Value = String> {
        let word = prop_oneof![
            prop::sample::select(vec![
                "/", "set", "get", "policy", "read", "model", "help", "plugins", "enable", "'",
                "\"", "\\", " ", "\t", "--save", "/set",
            ])
            .prop_map(String::from),
            ".{0,6}",
        ];
        prop::collection::vec(word, 0..8).prop_map(|words| words.join(" "))
    }

    proptest! {
        #[test]
        fn dispatch_and_complete_never_panic_and_run_only_real_paths(line in line()) {
            let set = every_action_handled();
            let outcome = set.dispatch(&mut (), &line);
            if tokenize(&line).is_ok() {
                if let Outcome::Ok { action, path, .. } = &outcome {
                    let node = path.iter().try_fold(set.tree(), |n, name| n.child(name));
                    prop_assert_eq!(node.and_then(Node::action), Some(action.as_str()));
                }
            } else {
                let is_error = matches!(outcome, Outcome::Error { .. });
                prop_assert!(is_error);
            }
            for candidate in set.complete(&line) {
                prop_assert!(!candidate.name.is_empty());
            }
        }
    }
}
