//! Sessions: the context chain persisted as append-only JSONL.
//!
//! One record per line: a `start` record naming the session, `message`
//! (with its chain hash), `pop`, `clear`, and a `head` record that ends
//! every turn, so a file cut at a line boundary is detectable. The writer
//! fsyncs at each head. Resuming replays the records through a
//! [`ContextChain`] and checks every hash: a changed line is refused by
//! number; a half-written last line (a crash mid-write) is dropped with a
//! warning and cut off before anything more is appended; a compaction's
//! rebuild (`clear`, the new messages, its `head`) counts only once its
//! head is there, so a kill mid-rebuild resumes the context before it;
//! tool calls that
//! never got a result are reported, so the caller can record an
//! "interrupted" result for each and every call still has exactly one.

pub mod fork;
pub mod images;
mod links;
pub mod rewind;
mod store;
mod transcript;

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::context::{link, ChainHash, ContextChain};
use crate::ports::dialect::{Message, Part, Role, ToolResult, Usage};

pub use store::{civil_date, SessionState, SessionStore, SessionSummary};
pub use transcript::{transcript, Replayed};

/// What a session was started with, recorded once on its first line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionInfo {
    pub id: String,
    /// Seconds since the Unix epoch.
    pub created: u64,
    pub workspace: String,
    pub provider: String,
    pub model: String,
    /// The commit the workspace's HEAD was at when the session began, in
    /// a git workspace: what `/diff` compares the work tree with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_head: Option<String>,
    /// A sub-agent's session names its parent's and the call that
    /// started it (docs/agents.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<ParentLink>,
    /// A fork names the session it was taken from, the turn and that
    /// turn's head hash (docs/sessions.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fork: Option<links::ForkLink>,
    /// A hash of the fields above, written with the start record: an edit
    /// of the workspace, provider or model is refused on resume. (The
    /// system prompt is the chain's first message, sealed by the chain.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seal: Option<String>,
}

impl SessionInfo {
    /// The seal of these fields, whatever `seal` holds now.
    pub fn compute_seal(&self) -> String {
        let unsealed = SessionInfo {
            seal: None,
            ..self.clone()
        };
        let bytes = serde_json::to_vec(&unsealed).unwrap_or_default();
        blake3::hash(&[b"amber-session-start\0".as_slice(), &bytes].concat())
            .to_hex()
            .to_string()
    }
}

/// Where a sub-agent's session came from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParentLink {
    /// The parent session's id.
    pub session: String,
    /// The `task` call that started the sub-agent.
    pub call_id: String,
    /// Its id in the parent's run (`task-1`).
    pub agent: String,
    /// The custom agent it ran as, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record {
    Start(SessionInfo),
    Message {
        hash: String,
        message: Message,
    },
    Pop {
        hash: String,
    },
    Clear,
    Head {
        hash: String,
        len: usize,
        /// The tokens the session has used so far, every model call of
        /// every turn summed: a resume carries the counters on.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<Usage>,
        /// Their cost in US dollars so far, while every call had a price.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cost_usd: Option<f64>,
    },
    /// What a hook did (docs/hooks.md). Not part of the chain: resume
    /// reads past it.
    Hook(crate::hooks::HookOutcome),
    /// The prompt as the person typed it, before the user message that
    /// carries it (with notes and hook context around it). Not part of
    /// the chain: a resumed transcript shows it.
    Prompt { text: String },
    /// The settings the session runs with from here on (its start, a
    /// `/set`, `/model`): a resume restores the last. Not part of the
    /// chain.
    Settings(SessionSettings),
    /// A sub-agent began, in a session of its own. Not part of the chain.
    Child {
        session: String,
        call_id: String,
        agent: String,
    },
    /// The todo list after a change, whole; a resume restores the last.
    /// Not part of the chain.
    Todos { todos: Vec<crate::engine::todo::Todo> },
    /// What a turn's calls changed in the workspace, each file's content
    /// before and after as hashes into the checkpoint store
    /// (docs/checkpoints.md). `turn` is the head it comes before.
    Checkpoint {
        turn: usize,
        files: Vec<crate::ports::FileChange>,
    },
    /// The conversation was rewound to the end of `turn`: the rebuild that
    /// follows (`clear`, the messages, a head) holds it. Not part of the
    /// chain.
    Rewound { turn: usize },
}

/// What a session runs with and a resume restores: the policy mode, the
/// provider and the model.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionSettings {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    #[serde(default)]
    pub provider: String,
    #[serde(default)]
    pub model: String,
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
    #[error("no session `{id}` in {} (see `amber sessions list`)", dir.display())]
    NotFound { id: String, dir: PathBuf },
    #[error("session {id} is in use by {holder}; wait for it to finish, or stop it")]
    InUse {
        id: String,
        /// "PID 4242", or "another amber process" when its PID could not
        /// be read.
        holder: String,
    },
}

/// One writer per session: an advisory lock on `<id>.lock` beside the
/// session file, held for the whole run and released by the kernel when
/// the process ends, however it ends. It holds the holder's PID, for the
/// error a second writer gets. The file is left in place: removing it
/// would let two runs lock two different files of the same name.
#[derive(Debug)]
pub struct SessionLock {
    _file: File,
}

impl SessionLock {
    /// Locks the session at `session` (its `.jsonl` path), or says who
    /// holds it.
    pub fn acquire(session: &Path) -> Result<SessionLock, SessionError> {
        let path = session.with_extension("lock");
        let io = io_error(&path);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(&io)?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(&io)?;
        match file.try_lock() {
            Ok(()) => {
                file.set_len(0).map_err(&io)?;
                file.write_all(std::process::id().to_string().as_bytes())
                    .map_err(&io)?;
                Ok(SessionLock { _file: file })
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                let id = session
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let holder = match holder_pid(&mut file) {
                    Some(pid) => format!("PID {pid}"),
                    None => "another amber process".to_string(),
                };
                Err(SessionError::InUse { id, holder })
            }
            Err(std::fs::TryLockError::Error(e)) => Err(io(e)),
        }
    }
}

/// The content of a result for a tool call that never finished.
pub const INTERRUPTED: &str = "interrupted: the run ended before this tool call finished";

/// What resuming found.
#[derive(Debug)]
pub struct Resumed {
    pub chain: ContextChain,
    pub info: Option<SessionInfo>,
    /// E.g. a dropped half-written last line, or an unfinished turn.
    pub warnings: Vec<String>,
    /// Ids of the last assistant turn's calls that have no result yet.
    pub interrupted: Vec<String>,
    /// Turns ended by a head record.
    pub turns: usize,
    /// Bytes of the file that hold whole records: appending starts here.
    pub valid_len: u64,
    /// The settings last recorded, if any (older sessions have none).
    pub settings: Option<SessionSettings>,
    /// The session's token totals at its last head.
    pub usage: Usage,
    /// The todo list last recorded (empty when none was).
    pub todos: Vec<crate::engine::todo::Todo>,
    /// The sub-agents' sessions it started: (session, call id, agent).
    pub children: Vec<(String, String, String)>,
    /// The session's cost at its last head, while every call had a price
    /// (`None` too for a session an older amber recorded).
    pub cost_usd: Option<f64>,
    /// The totals recorded at each head, in order: a turn's own is the
    /// difference from the one before.
    pub heads: Vec<(Usage, Option<f64>)>,
    /// Every file the session's `checkpoint` records name, in order:
    /// what its turns (and rewinds) changed, for the next turn's
    /// checkpointer.
    pub checkpoints: Vec<crate::ports::FileChange>,
}

/// One "interrupted" error result per call id, each its own tool message,
/// in the order given.
pub fn interrupted_results(call_ids: &[String]) -> Vec<Message> {
    call_ids
        .iter()
        .map(|id| Message {
            role: Role::Tool,
            parts: vec![Part::ToolResult(ToolResult {
                call_id: id.clone(),
                content: INTERRUPTED.into(),
                is_error: true,
            })],
        })
        .collect()
}

fn hex(hash: &ChainHash) -> String {
    hash.to_hex().to_string()
}

fn io_error(path: &Path) -> impl Fn(std::io::Error) -> SessionError + '_ {
    move |e| SessionError::Io {
        path: path.to_path_buf(),
        reason: e.to_string(),
    }
}

/// The PID in a held lock file. The holder writes it just after it takes
/// the lock, so a read in between finds the file empty: read again for a
/// moment before giving up.
fn holder_pid(file: &mut File) -> Option<u32> {
    use std::io::Seek;
    for _ in 0..20 {
        let mut text = String::new();
        let read = file.rewind().and_then(|()| file.read_to_string(&mut text));
        if let (Ok(_), Ok(pid)) = (read, text.trim().parse::<u32>()) {
            return Some(pid);
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    None
}

/// Appends records to one session file.
pub struct SessionWriter {
    path: PathBuf,
    /// `None` while a new session has no message yet: see
    /// [`SessionWriter::deferred`].
    file: Option<File>,
    /// A new session's start record and what came before its first
    /// message (hooks, settings), written when that message is.
    waiting: Option<(SessionInfo, Vec<Record>)>,
    /// Between a `clear` and the `head` that closes the rebuild.
    rebuilding: bool,
    /// Heads in the file: the turn a record written now belongs to is
    /// the next.
    heads: usize,
    _lock: Option<SessionLock>,
}

impl SessionWriter {
    /// Opens `path` for appending, creating it and its folder, and locks
    /// it for this process.
    pub fn open(path: &Path) -> Result<Self, SessionError> {
        let lock = SessionLock::acquire(path)?;
        Self::open_locked(path, lock)
    }

    /// A new session at `path` whose file (and lock) is made with its
    /// first message: a TUI opened and closed without a prompt leaves no
    /// empty session behind for `--resume` to pick.
    pub fn deferred(path: &Path, info: SessionInfo) -> Self {
        SessionWriter {
            path: path.to_path_buf(),
            file: None,
            waiting: Some((info, Vec::new())),
            rebuilding: false,
            heads: 0,
            _lock: None,
        }
    }

    fn open_locked(path: &Path, lock: SessionLock) -> Result<Self, SessionError> {
        let file = open_for_append(path)?;
        Ok(SessionWriter {
            path: path.to_path_buf(),
            file: Some(file),
            waiting: None,
            rebuilding: false,
            heads: 0,
            _lock: Some(lock),
        })
    }

    /// Records where the workspace's git HEAD was as the session began,
    /// in a new session's start record (before its file is made).
    pub fn set_git_head(&mut self, head: Option<String>) {
        if let Some((info, _)) = &mut self.waiting {
            info.git_head = head;
        }
    }

    /// Whether the file exists: a deferred session's appears with its
    /// first message.
    pub fn is_written(&self) -> bool {
        self.file.is_some()
    }

    /// Opens a resumed session for appending after its last whole record,
    /// cutting off a half-written line first so no record is glued to it.
    /// `lock` was taken before the session was read, so nothing changed
    /// it between the read and this write.
    pub fn reopen(path: &Path, resumed: &Resumed, lock: SessionLock) -> Result<Self, SessionError> {
        let io = io_error(path);
        let file = OpenOptions::new().write(true).open(path).map_err(&io)?;
        file.set_len(resumed.valid_len).map_err(&io)?;
        drop(file);
        let mut writer = SessionWriter::open_locked(path, lock)?;
        writer.heads = resumed.turns;
        if resumed.valid_len > 0 && !ends_with_newline(path)? {
            if let Some(file) = writer.file.as_mut() {
                file.write_all(b"\n").map_err(&io)?;
            }
        }
        Ok(writer)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn write(&mut self, record: &Record) -> Result<(), SessionError> {
        if self.file.is_none() {
            self.create()?;
        }
        self.append(record)
    }

    /// A record that does not make a deferred session's file by itself
    /// (a hook's outcome, the settings): kept for the first message.
    fn write_or_wait(&mut self, record: Record) -> Result<(), SessionError> {
        match &mut self.waiting {
            Some((_, records)) => {
                records.push(record);
                Ok(())
            }
            None => self.write(&record),
        }
    }

    /// Makes a deferred session's file: locked, its start record, then
    /// what waited for it.
    fn create(&mut self) -> Result<(), SessionError> {
        if self.waiting.is_none() {
            return Err(SessionError::Io {
                path: self.path.clone(),
                reason: "the session file is not open".into(),
            });
        }
        // The start and what waited stay in memory until the file is
        // there: a failure here (a full disk) can be retried.
        let lock = SessionLock::acquire(&self.path)?;
        if self.path.exists() {
            return Err(SessionError::Io {
                path: self.path.clone(),
                reason: "another session took this file's name; start a new session".into(),
            });
        }
        self.file = Some(open_for_append(&self.path)?);
        self._lock = Some(lock);
        let Some((info, records)) = self.waiting.take() else {
            return Ok(());
        };
        self.start(&info)?;
        for record in &records {
            self.append(record)?;
        }
        Ok(())
    }

    fn append(&mut self, record: &Record) -> Result<(), SessionError> {
        let io = |e: String| SessionError::Io {
            path: self.path.clone(),
            reason: e,
        };
        let mut line = serde_json::to_string(record).map_err(|e| io(e.to_string()))?;
        line.push('\n');
        let Some(file) = self.file.as_mut() else {
            return Err(io("the session file is not open".into()));
        };
        // One write per record: a crash leaves at most one partial line.
        file.write_all(line.as_bytes())
            .map_err(|e| io(e.to_string()))?;
        if self.rebuilding {
            crate::crash_point::pass("rebuild-record");
        }
        crate::crash_point::pass("record");
        Ok(())
    }

    /// Records the session's start; the first line of a new file.
    pub fn start(&mut self, info: &SessionInfo) -> Result<(), SessionError> {
        let sealed = SessionInfo {
            seal: Some(info.compute_seal()),
            ..info.clone()
        };
        self.append(&Record::Start(sealed))
    }

    /// Records the prompt as typed, before the message that carries it.
    pub fn prompt(&mut self, text: &str) -> Result<(), SessionError> {
        self.write(&Record::Prompt {
            text: text.to_string(),
        })
    }

    /// Records the settings the session runs with from here on.
    pub fn settings(&mut self, settings: &SessionSettings) -> Result<(), SessionError> {
        self.write_or_wait(Record::Settings(settings.clone()))
    }

    /// Pushes `message` onto `chain` and records it.
    pub fn push(
        &mut self,
        chain: &mut ContextChain,
        message: Message,
    ) -> Result<ChainHash, SessionError> {
        // The bytes first: a record never names an image not kept.
        images::keep(&self.path, &message)?;
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
        self.rebuilding = true;
        self.write(&Record::Clear)
    }

    /// Records that a sub-agent began in session `session`.
    pub fn child(&mut self, session: &str, call_id: &str, agent: &str) -> Result<(), SessionError> {
        self.write_or_wait(Record::Child {
            session: session.to_string(),
            call_id: call_id.to_string(),
            agent: agent.to_string(),
        })
    }

    /// Records what this turn's calls changed in the workspace.
    pub fn checkpoint(&mut self, files: &[crate::ports::FileChange]) -> Result<(), SessionError> {
        self.write(&Record::Checkpoint {
            turn: self.heads + 1,
            files: files.to_vec(),
        })
    }

    /// Records that the conversation is rewound to the end of `turn`,
    /// ahead of the rebuild that does it.
    pub fn rewound(&mut self, turn: usize) -> Result<(), SessionError> {
        self.write(&Record::Rewound { turn })
    }

    /// Records the todo list, whole, after a change.
    pub fn todos(&mut self, todos: &[crate::engine::todo::Todo]) -> Result<(), SessionError> {
        self.write_or_wait(Record::Todos {
            todos: todos.to_vec(),
        })
    }

    /// Records what a hook did; resume reads past it.
    pub fn hook(&mut self, outcome: &crate::hooks::HookOutcome) -> Result<(), SessionError> {
        self.write_or_wait(Record::Hook(outcome.clone()))
    }

    /// Ends a turn: writes the head record and fsyncs.
    pub fn end_turn(&mut self, chain: &ContextChain) -> Result<(), SessionError> {
        self.end_turn_with(chain, None, None)
    }

    /// Ends a turn with the session's token totals so far, which a resume
    /// carries on.
    pub fn end_turn_with(
        &mut self,
        chain: &ContextChain,
        usage: Option<Usage>,
        cost_usd: Option<f64>,
    ) -> Result<(), SessionError> {
        self.write(&Record::Head {
            hash: hex(&chain.head()),
            len: chain.len(),
            usage,
            cost_usd,
        })?;
        self.heads += 1;
        self.rebuilding = false;
        let Some(file) = self.file.as_ref() else {
            return Ok(());
        };
        file.sync_all().map_err(|e| SessionError::Io {
            path: self.path.clone(),
            reason: e.to_string(),
        })
    }
}

/// `path` opened to append, made (with its folder) if missing, readable
/// by its owner only: a session holds the user's code and words.
fn open_for_append(path: &Path) -> Result<File, SessionError> {
    let io = io_error(path);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(&io)?;
    }
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path).map_err(&io)
}

fn ends_with_newline(path: &Path) -> Result<bool, SessionError> {
    let bytes = std::fs::read(path).map_err(io_error(path))?;
    Ok(bytes.last() == Some(&b'\n'))
}

/// Replays a session file, verifying every link.
pub fn resume(path: &Path) -> Result<Resumed, SessionError> {
    resume_to(path, None)
}

/// [`resume`], stopping at the head of turn `until` when given: the
/// session as it stood then (a fork's prefix, a rewind's target). Every
/// record up to there is verified as a resume verifies it.
pub fn resume_to(path: &Path, until: Option<usize>) -> Result<Resumed, SessionError> {
    let io = io_error(path);
    let mut bytes = Vec::new();
    File::open(path)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(&io)?;
    let tampered = |line: usize, reason: String| SessionError::Tampered {
        path: path.to_path_buf(),
        line,
        reason,
    };
    let mut chain = ContextChain::new();
    let mut info = None;
    let mut settings = None;
    let mut todos = Vec::new();
    let mut children = Vec::new();
    let mut cost = Some(0.0);
    let mut heads = Vec::new();
    let mut checkpoints = Vec::new();
    // A prompt as typed, and its line, until its message is read.
    let mut prompt: Option<(String, usize)> = None;
    let mut usage = Usage::default();
    let mut warnings = Vec::new();
    let mut turns = 0;
    let mut valid_len = 0u64;
    let mut after_head = true;
    // A compaction's rebuild is a `clear`, the new context's messages and
    // a closing `head`: one unit. Until its head is read, what the chain
    // was before the `clear` is kept here, with where the file was whole.
    let mut rebuild: Option<(ContextChain, u64, bool)> = None;
    let lines: Vec<&[u8]> = bytes.split_inclusive(|b| *b == b'\n').collect();
    for (i, raw) in lines.iter().enumerate() {
        let number = i + 1;
        let last = number == lines.len();
        let text = String::from_utf8_lossy(raw);
        if text.trim().is_empty() {
            valid_len += raw.len() as u64;
            continue;
        }
        let record_start = valid_len;
        let record: Record = match serde_json::from_str(&text) {
            Ok(record) => record,
            Err(_) if last => {
                warnings.push(format!(
                    "{}:{number}: dropped a half-written last line (the run was interrupted)",
                    path.display()
                ));
                break;
            }
            Err(e) => return Err(tampered(number, format!("not a session record ({e})"))),
        };
        valid_len += raw.len() as u64;
        // A hook's outcome, a prompt as typed and the settings are not
        // part of the chain or of any turn.
        match record {
            Record::Checkpoint { files, .. } => {
                checkpoints.extend(files);
                continue;
            }
            Record::Hook(_) | Record::Rewound { .. } => continue,
            Record::Child {
                session,
                call_id,
                agent,
            } => {
                children.push((session, call_id, agent));
                continue;
            }
            Record::Todos { todos: recorded } => {
                todos = recorded;
                continue;
            }
            // A prompt is checked against the message that carries it.
            Record::Prompt { text } => {
                prompt = Some((text, number));
                continue;
            }
            Record::Settings(recorded) => {
                settings = Some(recorded);
                continue;
            }
            Record::Message { ref message, .. } if message.role == Role::User => {
                if let Some((typed, at)) = prompt.take() {
                    if !message.texts().any(|t| t == typed) {
                        return Err(tampered(
                            at,
                            "the prompt does not match the message that carries it".into(),
                        ));
                    }
                }
            }
            _ => {}
        }
        let was_after_head = std::mem::replace(&mut after_head, false);
        match record {
            Record::Start(start) => {
                match &start.seal {
                    Some(seal) if *seal != start.compute_seal() => {
                        return Err(tampered(
                            number,
                            "the start record (workspace, provider or model) was changed after it was sealed".into(),
                        ))
                    }
                    Some(_) => {}
                    None => warnings.push(format!(
                        "{}:{number}: the start record is not sealed (written by an older amber)",
                        path.display()
                    )),
                }
                info = Some(start)
            }
            Record::Message { hash, mut message } => {
                let expected = link(&chain.head(), &message);
                if hex(&expected) != hash {
                    return Err(tampered(
                        number,
                        "the message does not match its chain hash".into(),
                    ));
                }
                images::load(path, &mut message, &mut warnings);
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
            Record::Clear => {
                if rebuild.is_none() {
                    rebuild = Some((chain.clone(), record_start, was_after_head));
                }
                chain.clear();
            }
            // Read past above.
            Record::Hook(_)
            | Record::Prompt { .. }
            | Record::Settings(_)
            | Record::Child { .. }
            | Record::Todos { .. }
            | Record::Checkpoint { .. }
            | Record::Rewound { .. } => {}
            Record::Head {
                hash,
                len,
                usage: totals,
                cost_usd,
            } => {
                if let Some(totals) = totals {
                    usage = totals;
                    cost = cost_usd;
                }
                heads.push((usage, cost));
                if hex(&chain.head()) != hash || chain.len() != len {
                    return Err(tampered(
                        number,
                        "the turn's head does not match the messages before it".into(),
                    ));
                }
                turns += 1;
                after_head = true;
                rebuild = None;
                if until == Some(turns) {
                    break;
                }
            }
        }
    }
    if let Some((before, at, whole)) = rebuild {
        // Killed mid-rebuild: the old context stands, and what the rebuild
        // wrote is cut off before anything more is appended.
        chain = before;
        valid_len = at;
        after_head = whole;
        warnings.push(format!(
            "{}: an unfinished compaction was discarded (the run was interrupted while it rebuilt the context); the context before it is kept",
            path.display()
        ));
    }
    if !after_head {
        warnings.push(format!(
            "{}: the last turn did not finish (the run was interrupted)",
            path.display()
        ));
    }
    let interrupted = unanswered_calls(&chain);
    Ok(Resumed {
        chain,
        info,
        warnings,
        interrupted,
        turns,
        valid_len,
        settings,
        usage,
        todos,
        children,
        cost_usd: cost,
        heads,
        checkpoints,
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
        // Appending after a resume cuts the partial line off first.
        let mut chain = resumed.chain.clone();
        let mut w =
            SessionWriter::reopen(&path, &resumed, SessionLock::acquire(&path).unwrap()).unwrap();
        w.push(&mut chain, text(Role::User, "again")).unwrap();
        w.end_turn(&chain).unwrap();
        let again = resume(&path).unwrap();
        assert!(again.warnings.is_empty(), "{:?}", again.warnings);
        assert_eq!(again.chain.head(), chain.head());
    }

    #[test]
    fn a_rebuild_counts_only_once_its_head_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let before = write_turns(&path);
        let whole = std::fs::metadata(&path).unwrap().len();
        // Killed after each record of a rebuild: the old context stands.
        for written in 1..=3 {
            let resumed = resume(&path).unwrap();
            let mut chain = resumed.chain.clone();
            let lock = SessionLock::acquire(&path).unwrap();
            let mut w = SessionWriter::reopen(&path, &resumed, lock).unwrap();
            w.clear(&mut chain).unwrap();
            for message in [text(Role::System, "sys"), text(Role::User, "summary")]
                .into_iter()
                .take(written - 1)
            {
                w.push(&mut chain, message).unwrap();
            }
            drop(w);
            let resumed = resume(&path).unwrap();
            assert_eq!(resumed.chain.get_all(), before.get_all(), "after {written}");
            assert!(
                resumed
                    .warnings
                    .iter()
                    .any(|w| w.contains("an unfinished compaction was discarded")),
                "{:?}",
                resumed.warnings
            );
            assert_eq!(resumed.valid_len, whole);
            assert!(resumed.interrupted.is_empty());
        }
        // With its head, the rebuild is the context.
        let resumed = resume(&path).unwrap();
        let mut chain = resumed.chain.clone();
        let lock = SessionLock::acquire(&path).unwrap();
        let mut w = SessionWriter::reopen(&path, &resumed, lock).unwrap();
        w.clear(&mut chain).unwrap();
        w.push(&mut chain, text(Role::System, "sys")).unwrap();
        w.push(&mut chain, text(Role::User, "summary")).unwrap();
        w.end_turn(&chain).unwrap();
        drop(w);
        let resumed = resume(&path).unwrap();
        assert_eq!(resumed.chain.get_all(), chain.get_all());
        assert!(resumed.warnings.is_empty(), "{:?}", resumed.warnings);
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
        drop(w);
        let resumed = resume(&path).unwrap();
        assert_eq!(resumed.interrupted, ["b"]);
        assert!(resumed.warnings[0].contains("the last turn did not finish"));
        let mut chain = resumed.chain.clone();
        let mut w =
            SessionWriter::reopen(&path, &resumed, SessionLock::acquire(&path).unwrap()).unwrap();
        for message in interrupted_results(&resumed.interrupted) {
            w.push(&mut chain, message).unwrap();
        }
        w.end_turn(&chain).unwrap();
        let again = resume(&path).unwrap();
        assert!(again.interrupted.is_empty() && again.warnings.is_empty());
        assert_eq!(again.chain.head(), chain.head());
        let last = again.chain.get_all().last().unwrap().clone();
        assert_eq!(last.role, Role::Tool);
        assert!(
            matches!(&last.parts[0], Part::ToolResult(r) if r.call_id == "b" && r.is_error && r.content == INTERRUPTED)
        );
    }

    #[test]
    fn a_second_writer_of_a_session_is_refused_naming_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s1.jsonl");
        let first = SessionWriter::open(&path).unwrap();
        let err = SessionLock::acquire(&path).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "session s1 is in use by PID {}; wait for it to finish, or stop it",
                std::process::id()
            )
        );
        drop(first);
        assert!(SessionLock::acquire(&path).is_ok());
    }

    #[test]
    fn a_prompt_record_edited_apart_from_its_message_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut chain = ContextChain::new();
        let mut w = SessionWriter::open(&path).unwrap();
        w.prompt("fix it").unwrap();
        w.push(&mut chain, text(Role::User, "fix it")).unwrap();
        w.end_turn(&chain).unwrap();
        drop(w);
        assert!(resume(&path).is_ok());
        let edited = std::fs::read_to_string(&path)
            .unwrap()
            .replacen("fix it", "delete it", 1);
        std::fs::write(&path, edited).unwrap();
        let err = resume(&path).unwrap_err().to_string();
        assert!(
            err.contains(":1: the prompt does not match the message that carries it"),
            "{err}"
        );
    }

    #[test]
    fn an_edited_start_record_is_refused_on_resume() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        let (info, mut writer) = store.create("/work/a", "openai", "gpt").unwrap();
        // The file, with its start record, comes with the first message.
        assert!(store.path(&info.id).is_err());
        let mut chain = ContextChain::new();
        writer.push(&mut chain, text(Role::User, "hi")).unwrap();
        writer.end_turn(&chain).unwrap();
        drop(writer);
        let path = store.path(&info.id).unwrap();
        let warnings = resume(&path).unwrap().warnings;
        assert!(
            !warnings.iter().any(|w| w.contains("not sealed")),
            "{warnings:?}"
        );
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("/work/a", "/work/b")).unwrap();
        let err = resume(&path).unwrap_err().to_string();
        assert!(err.contains(":1: the start record"), "{err}");
    }
}
