//! Sessions: the context chain persisted as append-only JSONL.
//!
//! One record per line: `message` (with its chain hash), `pop`, `clear`,
//! and a `head` record that ends every turn, so a file cut at a line
//! boundary is detectable. The writer fsyncs at each head. Resuming replays
//! the records through a [`ContextChain`] and checks every hash: a changed
//! line is refused by number; a half-written last line (a crash mid-write)
//! is dropped with a warning; tool calls that never got a result get an
//! "interrupted" error result, so every call still has exactly one.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::context::{link, ChainHash, ContextChain};
use crate::ports::dialect::{Message, Part, Role, ToolResult};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record {
    Message { hash: String, message: Message },
    Pop { hash: String },
    Clear,
    Head { hash: String, len: usize },
}

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("cannot use {}: {reason}", path.display())]
    Io { path: PathBuf, reason: String },
    #[error("{}:{line}: {reason}; the session was changed or is corrupt", path.display())]
    Tampered {
        path: PathBuf,
        line: usize,
        reason: String,
    },
}

/// The content of a message for tool calls that never got a result.
pub const INTERRUPTED: &str = "interrupted: the run ended before this tool call finished";

/// What resuming found.
#[derive(Debug)]
pub struct Resumed {
    pub chain: ContextChain,
    /// E.g. a dropped half-written last line.
    pub warnings: Vec<String>,
    /// Call ids that were given an "interrupted" result.
    pub interrupted: Vec<String>,
}

fn hex(hash: &ChainHash) -> String {
    hash.to_hex().to_string()
}

/// Appends records to one session file.
pub struct SessionWriter {
    path: PathBuf,
    file: File,
}

impl SessionWriter {
    pub fn open(path: &Path) -> Result<Self, SessionError> {
        let io = |e: std::io::Error| SessionError::Io {
            path: path.to_path_buf(),
            reason: e.to_string(),
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(io)?;
        Ok(SessionWriter {
            path: path.to_path_buf(),
            file,
        })
    }

    fn write(&mut self, record: &Record) -> Result<(), SessionError> {
        let io = |e: String| SessionError::Io {
            path: self.path.clone(),
            reason: e,
        };
        let mut line = serde_json::to_string(record).map_err(|e| io(e.to_string()))?;
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .map_err(|e| io(e.to_string()))
    }

    /// Pushes `message` onto `chain` and records it.
    pub fn push(
        &mut self,
        chain: &mut ContextChain,
        message: Message,
    ) -> Result<ChainHash, SessionError> {
        let hash = chain.push(message.clone());
        self.write(&Record::Message {
            hash: hex(&hash),
            message,
        })?;
        Ok(hash)
    }

    pub fn pop(&mut self, chain: &mut ContextChain) -> Result<Option<Message>, SessionError> {
        let popped = chain.pop();
        self.write(&Record::Pop {
            hash: hex(&chain.head()),
        })?;
        Ok(popped)
    }

    pub fn clear(&mut self, chain: &mut ContextChain) -> Result<(), SessionError> {
        chain.clear();
        self.write(&Record::Clear)
    }

    /// Ends a turn: writes the head record and fsyncs.
    pub fn end_turn(&mut self, chain: &ContextChain) -> Result<(), SessionError> {
        self.write(&Record::Head {
            hash: hex(&chain.head()),
            len: chain.len(),
        })?;
        self.file.sync_all().map_err(|e| SessionError::Io {
            path: self.path.clone(),
            reason: e.to_string(),
        })
    }
}

/// Replays a session file, verifying every link.
pub fn resume(path: &Path) -> Result<Resumed, SessionError> {
    let io = |e: std::io::Error| SessionError::Io {
        path: path.to_path_buf(),
        reason: e.to_string(),
    };
    let file = File::open(path).map_err(io)?;
    let lines: Vec<String> = BufReader::new(file)
        .lines()
        .collect::<Result<_, _>>()
        .map_err(io)?;
    let tampered = |line: usize, reason: String| SessionError::Tampered {
        path: path.to_path_buf(),
        line,
        reason,
    };
    let mut chain = ContextChain::new();
    let mut warnings = Vec::new();
    for (i, text) in lines.iter().enumerate() {
        let number = i + 1;
        if text.trim().is_empty() {
            continue;
        }
        let record: Record = match serde_json::from_str(text) {
            Ok(record) => record,
            Err(_) if number == lines.len() => {
                warnings.push(format!(
                    "{}:{number}: dropped a half-written last line (the run was interrupted)",
                    path.display()
                ));
                break;
            }
            Err(e) => return Err(tampered(number, format!("not a session record ({e})"))),
        };
        match record {
            Record::Message { hash, message } => {
                let expected = link(&chain.head(), &message);
                if hex(&expected) != hash {
                    return Err(tampered(
                        number,
                        "the message does not match its chain hash".into(),
                    ));
                }
                chain.push(message);
            }
            Record::Pop { hash } => {
                chain.pop();
                if hex(&chain.head()) != hash {
                    return Err(tampered(
                        number,
                        "the pop does not restore the recorded hash".into(),
                    ));
                }
            }
            Record::Clear => chain.clear(),
            Record::Head { hash, len } => {
                if hex(&chain.head()) != hash || chain.len() != len {
                    return Err(tampered(
                        number,
                        "the turn's head does not match the messages before it".into(),
                    ));
                }
            }
        }
    }
    let interrupted = unanswered_calls(&chain);
    if !interrupted.is_empty() {
        let parts = interrupted
            .iter()
            .map(|id| {
                Part::ToolResult(ToolResult {
                    call_id: id.clone(),
                    content: INTERRUPTED.into(),
                    is_error: true,
                })
            })
            .collect();
        chain.push(Message {
            role: Role::Tool,
            parts,
        });
    }
    Ok(Resumed {
        chain,
        warnings,
        interrupted,
    })
}

/// Tool calls of the last assistant message without a result after it.
fn unanswered_calls(chain: &ContextChain) -> Vec<String> {
    let messages = chain.get_all();
    let Some(last_assistant) = messages.iter().rposition(|m| m.role == Role::Assistant) else {
        return Vec::new();
    };
    let answered: Vec<&str> = messages[last_assistant + 1..]
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::ToolResult(r) => Some(r.call_id.as_str()),
            _ => None,
        })
        .collect();
    messages[last_assistant]
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::ToolCall(c) if !answered.contains(&c.id.as_str()) => Some(c.id.clone()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::dialect::ToolCall;

    fn text(role: Role, t: &str) -> Message {
        Message {
            role,
            parts: vec![Part::Text { text: t.into() }],
        }
    }

    fn call(id: &str) -> Part {
        Part::ToolCall(ToolCall {
            id: id.into(),
            name: "read_file".into(),
            arguments: "{}".into(),
        })
    }

    fn write_turns(path: &Path) -> ContextChain {
        let mut chain = ContextChain::new();
        let mut w = SessionWriter::open(path).unwrap();
        w.push(&mut chain, text(Role::System, "sys")).unwrap();
        w.push(&mut chain, text(Role::User, "hi")).unwrap();
        w.end_turn(&chain).unwrap();
        w.push(&mut chain, text(Role::Assistant, "hello")).unwrap();
        w.push(&mut chain, text(Role::User, "oops")).unwrap();
        w.pop(&mut chain).unwrap();
        w.end_turn(&chain).unwrap();
        chain
    }

    #[test]
    fn a_session_resumes_to_the_same_chain() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let chain = write_turns(&path);
        let resumed = resume(&path).unwrap();
        assert_eq!(resumed.chain.head(), chain.head());
        assert_eq!(resumed.chain.get_all(), chain.get_all());
        assert!(resumed.warnings.is_empty() && resumed.interrupted.is_empty());
    }

    #[test]
    fn a_changed_line_is_refused_by_number() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        write_turns(&path);
        let text = std::fs::read_to_string(&path)
            .unwrap()
            .replacen("\"hi\"", "\"HI\"", 1);
        std::fs::write(&path, text).unwrap();
        let err = resume(&path).unwrap_err().to_string();
        assert!(err.ends_with(":2: the message does not match its chain hash; the session was changed or is corrupt"), "{err}");
    }

    #[test]
    fn a_half_written_last_line_is_dropped_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let chain = write_turns(&path);
        let mut file = OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(b"{\"type\":\"message\",\"hash\":\"ab")
            .unwrap();
        let resumed = resume(&path).unwrap();
        assert_eq!(resumed.chain.head(), chain.head());
        assert!(
            resumed.warnings[0].contains("dropped a half-written last line"),
            "{:?}",
            resumed.warnings
        );
    }

    #[test]
    fn calls_without_results_get_an_interrupted_result_on_resume() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut chain = ContextChain::new();
        let mut w = SessionWriter::open(&path).unwrap();
        w.push(&mut chain, text(Role::User, "read two")).unwrap();
        let assistant = Message {
            role: Role::Assistant,
            parts: vec![call("a"), call("b")],
        };
        w.push(&mut chain, assistant).unwrap();
        let result = ToolResult {
            call_id: "a".into(),
            content: "done".into(),
            is_error: false,
        };
        w.push(
            &mut chain,
            Message {
                role: Role::Tool,
                parts: vec![Part::ToolResult(result)],
            },
        )
        .unwrap();
        // killed before b finished and before the turn's head
        let resumed = resume(&path).unwrap();
        assert_eq!(resumed.interrupted, ["b"]);
        let last = resumed.chain.get_all().last().unwrap().clone();
        assert_eq!(last.role, Role::Tool);
        assert!(
            matches!(&last.parts[0], Part::ToolResult(r) if r.call_id == "b" && r.is_error && r.content == INTERRUPTED)
        );
    }
}
