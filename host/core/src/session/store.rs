//! The folder of sessions: naming new ones, finding one by id, and listing
//! them cheaply (a scan of the records without re-hashing; `show` and
//! `--resume` verify).

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;

use super::{io_error, Record, SessionError, SessionInfo, SessionLock, SessionWriter};
use crate::ports::dialect::{Part, Role};

/// How a session's file ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionState {
    /// The last record is a turn's head.
    Complete,
    /// The run stopped mid-turn (killed, or a crash).
    Interrupted,
    /// A line is not a session record; `show` names it.
    Unreadable,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionSummary {
    pub id: String,
    pub path: PathBuf,
    pub created: u64,
    /// Seconds since the Unix epoch of the file's last change.
    pub updated: u64,
    pub workspace: String,
    pub provider: String,
    pub model: String,
    /// The first user message, shortened.
    pub title: String,
    pub messages: usize,
    pub turns: usize,
    /// The context's size in tokens, estimated (a quarter of its bytes as
    /// recorded), for listings that show how big a session is.
    #[serde(default)]
    pub approx_tokens: u64,
    pub state: SessionState,
    /// A sub-agent's session: its parent's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// The sub-agents' sessions it started, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<String>,
    /// A fork: where it was taken from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fork: Option<super::links::ForkLink>,
}

pub struct SessionStore {
    dir: PathBuf,
}

const TITLE_CHARS: usize = 72;

impl SessionStore {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        SessionStore { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of session `id`, which must exist.
    pub fn path(&self, id: &str) -> Result<PathBuf, SessionError> {
        let not_found = || SessionError::NotFound {
            id: id.to_string(),
            dir: self.dir.clone(),
        };
        // Ids are ours: a name with a separator or dot is no id of ours.
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Err(not_found());
        }
        let path = self.dir.join(format!("{id}.jsonl"));
        if path.is_file() {
            Ok(path)
        } else {
            Err(not_found())
        }
    }

    /// Names a new session; its file, with its start record, is made with
    /// its first message ([`SessionWriter::deferred`]).
    pub fn create(
        &self,
        workspace: &str,
        provider: &str,
        model: &str,
    ) -> Result<(SessionInfo, SessionWriter), SessionError> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let mut attempt = 0u32;
        loop {
            let id = new_id(now.as_secs(), now.subsec_nanos(), attempt);
            let path = self.dir.join(format!("{id}.jsonl"));
            if path.exists() {
                attempt += 1;
                continue;
            }
            let info = SessionInfo {
                id,
                created: now.as_secs(),
                workspace: workspace.to_string(),
                provider: provider.to_string(),
                model: model.to_string(),
                git_head: None,
                parent: None,
                fork: None,
                seal: None,
            };
            // The file is made with the first message.
            let writer = SessionWriter::deferred(&path, info.clone());
            return Ok((info, writer));
        }
    }

    /// A new sub-agent's session under `parent`, with the parent's
    /// workspace, named for both (`<parent>-task-1`): sub-agents started
    /// side by side get names that cannot collide, and the name says
    /// whose it is. Like [`Self::create`], its file is made with its first
    /// message; a name already taken gets a numbered one.
    pub fn create_child(
        &self,
        workspace: &str,
        provider: &str,
        model: &str,
        parent: super::ParentLink,
    ) -> Result<(SessionInfo, SessionWriter), SessionError> {
        let (mut info, _) = self.create(workspace, provider, model)?;
        let base = format!("{}-{}", parent.session, parent.agent);
        let is_id = |id: &String| id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        let free = (1..100u32)
            .map(|n| match n {
                1 => base.clone(),
                n => format!("{base}-{n}"),
            })
            .find(|id| is_id(id) && !self.dir.join(format!("{id}.jsonl")).exists());
        if let Some(id) = free {
            info.id = id;
        }
        info.parent = Some(parent);
        let path = self.dir.join(format!("{}.jsonl", info.id));
        Ok((info.clone(), SessionWriter::deferred(&path, info)))
    }

    /// Deletes session `id` and its sub-agents' sessions (`<id>-task-…`),
    /// each under its lock, so one a run has open is refused and left
    /// whole. Returns the ids deleted. Its lock files are removed after
    /// the file, while held: a run that opens it then finds no session.
    pub fn delete(&self, id: &str) -> Result<Vec<String>, SessionError> {
        let path = self.path(id)?;
        let mut doomed = vec![(id.to_string(), path)];
        let children = format!("{id}-");
        if let Ok(entries) = std::fs::read_dir(&self.dir) {
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let Some(child) = name.strip_suffix(".jsonl") else {
                    continue;
                };
                if child.starts_with(&children) && child[children.len()..].starts_with("task") {
                    doomed.push((child.to_string(), entry.path()));
                }
            }
        }
        // Every lock first: an open child keeps its parent too.
        let mut locks = Vec::new();
        for (_, path) in &doomed {
            locks.push(SessionLock::acquire(path)?);
        }
        let mut deleted = Vec::new();
        for (id, path) in doomed {
            std::fs::remove_file(&path).map_err(io_error(&path))?;
            let _ = std::fs::remove_file(path.with_extension("lock"));
            deleted.push(id);
        }
        drop(locks);
        Ok(deleted)
    }

    /// Every session, newest first. A missing folder means none yet.
    pub fn list(&self) -> Result<Vec<SessionSummary>, SessionError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io_error(&self.dir)(e)),
        };
        let mut sessions = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "jsonl") {
                // Sorted by the exact time of the last write: two sessions
                // written in the same second still come in order (`-c`
                // continues the one written last).
                let exact = std::fs::metadata(&path)
                    .and_then(|m| m.modified())
                    .unwrap_or(UNIX_EPOCH);
                sessions.push((exact, summarise(&path)?));
            }
        }
        sessions.sort_by(|(a_at, a), (b_at, b)| (b_at, &b.id).cmp(&(a_at, &a.id)));
        Ok(sessions.into_iter().map(|(_, s)| s).collect())
    }
}

/// `YYYYMMDD-HHMMSS-xxxx`: sortable by time, readable, and unique enough
/// with the nanoseconds and pid hashed into the suffix.
fn new_id(secs: u64, nanos: u32, attempt: u32) -> String {
    let (y, m, d) = civil_date(secs / 86_400);
    let t = secs % 86_400;
    let mut hasher = blake3::Hasher::new();
    hasher.update(&nanos.to_le_bytes());
    hasher.update(&std::process::id().to_le_bytes());
    hasher.update(&attempt.to_le_bytes());
    let suffix = &hasher.finalize().to_hex()[..4];
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}-{suffix}",
        t / 3600,
        t / 60 % 60,
        t % 60
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01
/// (Howard Hinnant's days-to-civil algorithm).
pub fn civil_date(days: u64) -> (i64, u32, u32) {
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Reads a session's records without verifying links.
fn summarise(path: &Path) -> Result<SessionSummary, SessionError> {
    // Lossy: a run killed mid-character must not hide the other sessions.
    let bytes = std::fs::read(path).map_err(io_error(path))?;
    let text = String::from_utf8_lossy(&bytes);
    let updated = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs());
    let id = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut summary = SessionSummary {
        id,
        path: path.to_path_buf(),
        created: 0,
        updated,
        workspace: String::new(),
        provider: String::new(),
        model: String::new(),
        title: String::new(),
        messages: 0,
        parent: None,
        children: Vec::new(),
        fork: None,
        turns: 0,
        approx_tokens: 0,
        state: SessionState::Complete,
    };
    let mut ended = true;
    // The recorded size of each message in the context, for the estimate.
    let mut sizes: Vec<usize> = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(record) = serde_json::from_str::<Record>(line) else {
            summary.state = SessionState::Unreadable;
            continue;
        };
        match record {
            Record::Hook(_) | Record::Todos { .. } | Record::Checkpoint { .. } | Record::Rewound { .. } => continue,
            Record::Child { session, .. } => {
                summary.children.push(session);
                continue;
            }
            // The prompt as typed names the session better than the
            // message around it (notes, hook context).
            Record::Prompt { text } => {
                if summary.title.is_empty() {
                    summary.title = crate::text::one_line(&text, TITLE_CHARS);
                }
                continue;
            }
            Record::Settings(settings) => {
                summary.provider = settings.provider;
                summary.model = settings.model;
                continue;
            }
            _ => {}
        }
        ended = false;
        match record {
            Record::Start(info) => {
                summary.created = info.created;
                summary.workspace = info.workspace;
                summary.provider = info.provider;
                summary.model = info.model;
                summary.parent = info.parent.map(|p| p.session);
                summary.fork = info.fork;
            }
            Record::Message { message, .. } => {
                summary.messages += 1;
                sizes.push(line.len());
                if summary.title.is_empty() && message.role == Role::User {
                    summary.title = title(&message.parts);
                }
            }
            Record::Pop { .. } => {
                summary.messages = summary.messages.saturating_sub(1);
                sizes.pop();
            }
            Record::Clear => {
                summary.messages = 0;
                sizes.clear();
            }
            Record::Hook(_)
            | Record::Prompt { .. }
            | Record::Settings(_)
            | Record::Child { .. }
            | Record::Todos { .. }
            | Record::Checkpoint { .. }
            | Record::Rewound { .. } => {}
            Record::Head { .. } => {
                summary.turns += 1;
                ended = true;
            }
        }
    }
    summary.approx_tokens = (sizes.iter().sum::<usize>() / 4) as u64;
    if !ended && summary.state == SessionState::Complete {
        summary.state = SessionState::Interrupted;
    }
    Ok(summary)
}

fn title(parts: &[Part]) -> String {
    let text = parts
        .iter()
        .find_map(|p| match p {
            Part::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .unwrap_or("");
    crate::text::one_line(text, TITLE_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::ContextChain;
    use crate::ports::dialect::Message;

    #[test]
    fn civil_dates_match_known_days() {
        assert_eq!(civil_date(0), (1970, 1, 1));
        assert_eq!(civil_date(11_016), (2000, 2, 29));
        // 2026-11-30
        assert_eq!(civil_date(20_787), (2026, 11, 30));
    }

    #[test]
    fn created_sessions_are_listed_newest_first_with_a_title() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        assert!(store.list().unwrap().is_empty());
        let (info, mut w) = store.create("/w", "openai", "gpt").unwrap();
        let mut chain = ContextChain::new();
        let msg = Message {
            role: Role::User,
            parts: vec![Part::Text {
                text: "fix\nthe   bug".into(),
            }],
        };
        w.push(&mut chain, msg).unwrap();
        let listed = store.list().unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].id, info.id);
        assert_eq!(listed[0].title, "fix the bug");
        assert_eq!(listed[0].state, SessionState::Interrupted);
        w.end_turn(&chain).unwrap();
        let listed = store.list().unwrap();
        assert_eq!(
            (listed[0].state, listed[0].turns),
            (SessionState::Complete, 1)
        );
        assert_eq!(store.path(&info.id).unwrap(), listed[0].path);
        assert!(store.path("../etc/passwd").is_err());
        assert!(store.path("nope").is_err());
    }
}
