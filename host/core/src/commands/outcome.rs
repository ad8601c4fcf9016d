//! What dispatching a line produced. Seed: "Command dispatch": its four
//! ends (the handler's reply, the man page, unknown command, command
//! error).

use serde::Serialize;

use super::Reply;

/// The result of one line, for a front end to print (`text`) or to emit
/// as JSON (`--json`). Serialized with `"status"`: `ok`, `man`, `unknown`
/// or `error`. The reply of `Ok` is flattened into the same object:
/// `{"status": "ok", "action", "path", "text", "data", "effect"}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum Outcome {
    /// A handler ran and replied.
    Ok {
        action: String,
        path: Vec<String>,
        #[serde(flatten)]
        reply: Reply,
    },
    /// The line named a node that is documented but not executable (no
    /// action, or no handler registered for it): its page.
    Man {
        path: Vec<String>,
        text: String,
        /// A word the node does not have (`/set nosuch`): the page is
        /// shown, and a script gets a usage error.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        unmatched: Option<String>,
    },
    /// The line names no command. `message` is what to print; it ends with
    /// "did you mean /x?" when `suggestion` is set.
    Unknown {
        line: String,
        suggestion: Option<String>,
        message: String,
    },
    /// The line could not be read, or its handler failed or panicked.
    /// `action` is empty when no handler was reached.
    Error {
        action: String,
        message: String,
        /// The words were not ones the command takes (a value out of its
        /// choices or range): a usage error to a script, not a failure.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        usage: bool,
    },
}

impl Outcome {
    /// What a front end prints: the reply, the page, or the message.
    pub fn text(&self) -> String {
        match self {
            Outcome::Ok { reply, .. } => reply.text.clone(),
            Outcome::Man { text, .. } => text.clone(),
            Outcome::Unknown { message, .. } | Outcome::Error { message, .. } => message.clone(),
        }
    }

    /// A handler's reply or a man page; the shell's exit status follows it.
    pub fn is_success(&self) -> bool {
        matches!(self, Outcome::Ok { .. } | Outcome::Man { .. })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::commands::Effect;

    #[test]
    fn ok_serializes_with_its_reply_flattened() {
        let outcome = Outcome::Ok {
            action: "quit".into(),
            path: vec!["quit".into()],
            reply: Reply::text("bye").with_effect(Effect::Quit),
        };
        assert_eq!(
            serde_json::to_value(&outcome).unwrap(),
            json!({
                "status": "ok", "action": "quit", "path": ["quit"],
                "text": "bye", "data": null, "effect": "quit"
            })
        );
        assert!(outcome.is_success());
        assert_eq!(outcome.text(), "bye");
    }

    #[test]
    fn every_status_is_lowercase_and_only_ok_and_man_succeed() {
        let cases = [
            (
                Outcome::Man {
                    path: vec![],
                    text: "page".into(),
                    unmatched: None,
                },
                "man",
                true,
            ),
            (
                Outcome::Unknown {
                    line: "x".into(),
                    suggestion: None,
                    message: "unknown command: /x (try /help)".into(),
                },
                "unknown",
                false,
            ),
            (
                Outcome::Error {
                    action: "a".into(),
                    message: "command error: no".into(),
                    usage: false,
                },
                "error",
                false,
            ),
        ];
        for (outcome, status, success) in cases {
            assert_eq!(serde_json::to_value(&outcome).unwrap()["status"], status);
            assert_eq!(outcome.is_success(), success, "{status}");
        }
    }
}
