//! Forks: a new session from a verified prefix of another (`amber
//! sessions fork ID --at TURN`, `/fork`). The prefix is the chain as it
//! stood at the head of that turn, replayed record by record as a resume
//! replays it, so a compaction before the fork point is part of it. The
//! fork's first record names where it came from and that head's hash,
//! and the source's records up to that head follow as they were, so the
//! fork has the same turns; its file is written whole and renamed into
//! place under its own lock, so a crash leaves either no fork or a whole
//! one.

use std::path::PathBuf;

use serde::Serialize;

pub use super::links::ForkLink;

use super::{hex, io_error, resume_to, Record, SessionError, SessionLock, SessionStore};

/// What a fork made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Forked {
    pub id: String,
    pub path: PathBuf,
    pub from: ForkLink,
    pub messages: usize,
}

/// Forks session `id` at turn `at` (its last whole turn when `None`).
pub fn fork(store: &SessionStore, id: &str, at: Option<usize>) -> Result<Forked, SessionError> {
    let source = store.path(id)?;
    let whole = resume_to(&source, None)?;
    let turn = at.unwrap_or(whole.turns);
    if turn == 0 || turn > whole.turns {
        return Err(SessionError::Io {
            path: source,
            reason: format!(
                "there is no turn {turn} to fork at; the session has {} (1 to {})",
                whole.turns, whole.turns
            ),
        });
    }
    let prefix = resume_to(&source, Some(turn))?;
    let info = whole.info.clone().unwrap_or_default();
    let link = ForkLink {
        session: id.to_string(),
        turn,
        head: hex(&prefix.chain.head()),
    };
    let (mut forked, _) = store.create(&info.workspace, &info.provider, &info.model)?;
    forked.git_head = info.git_head.clone();
    forked.fork = Some(link.clone());
    forked.seal = Some(forked.compute_seal());
    let path = store.dir().join(format!("{}.jsonl", forked.id));
    let bytes = prefix_records(&source, &forked, turn)?;
    let _lock = SessionLock::acquire(&path)?;
    // What a fork killed before its rename left (sessions are appended,
    // so nothing else in the folder leaves one).
    crate::atomic::remove_stale_temps(store.dir());
    if path.exists() {
        return Err(SessionError::Io {
            path,
            reason: "another session took this file's name; fork again".into(),
        });
    }
    crate::atomic::write_atomic(&path, &bytes).map_err(io_error(&path))?;
    Ok(Forked {
        id: forked.id,
        path,
        from: link,
        messages: prefix.chain.len(),
    })
}

/// The fork's file: its own start record, then the source's records up to
/// and including the head of `turn`, byte for byte. A message's chain hash
/// does not depend on the start record, so the copied records verify as
/// they did, turn by turn and across a compaction's rebuild. The links to
/// the source's sub-agents stay the source's.
fn prefix_records(
    source: &std::path::Path,
    start: &super::SessionInfo,
    turn: usize,
) -> Result<Vec<u8>, SessionError> {
    let text = std::fs::read(source).map_err(io_error(source))?;
    let encode = |record: &Record| {
        serde_json::to_vec(record).map_err(|e| SessionError::Io {
            path: source.to_path_buf(),
            reason: format!("cannot encode a record: {e}"),
        })
    };
    let mut bytes = encode(&Record::Start(start.clone()))?;
    bytes.push(b'\n');
    let mut heads = 0;
    for line in text.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        // Verified whole up to here by `resume_to` just before.
        let Ok(record) = serde_json::from_slice::<Record>(line) else {
            break;
        };
        match record {
            Record::Start(_) | Record::Child { .. } => continue,
            Record::Head { .. } => heads += 1,
            _ => {}
        }
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
        if heads == turn {
            break;
        }
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::ContextChain;
    use crate::ports::dialect::{Message, Role};
    use crate::session::resume;

    fn two_turns(dir: &std::path::Path) -> (SessionStore, String) {
        let store = SessionStore::new(dir);
        let (info, mut writer) = store.create("/ws", "openai", "m").unwrap();
        let mut chain = ContextChain::new();
        for (role, text) in [
            (Role::System, "sys"),
            (Role::User, "one"),
            (Role::Assistant, "1"),
        ] {
            writer.push(&mut chain, Message::text(role, text)).unwrap();
        }
        writer.end_turn(&chain).unwrap();
        for (role, text) in [(Role::User, "two"), (Role::Assistant, "2")] {
            writer.push(&mut chain, Message::text(role, text)).unwrap();
        }
        writer.end_turn(&chain).unwrap();
        drop(writer);
        (store, info.id)
    }

    #[test]
    fn a_fork_holds_the_prefix_verifies_and_names_its_source() {
        let dir = tempfile::tempdir().unwrap();
        let (store, id) = two_turns(dir.path());
        let forked = fork(&store, &id, Some(1)).unwrap();
        assert_eq!(forked.messages, 3);
        let resumed = resume(&forked.path).unwrap();
        assert_eq!(resumed.turns, 1);
        let whole = fork(&store, &id, None).unwrap();
        assert_eq!(resume(&whole.path).unwrap().turns, 2);
        assert_eq!(resumed.chain.len(), 3);
        let link = resumed.info.unwrap().fork.unwrap();
        assert_eq!(link.session, id);
        assert_eq!(link.turn, 1);
        // The head it names is the source's at that turn, and the fork's.
        let source = resume_to(&store.path(&id).unwrap(), Some(1)).unwrap();
        assert_eq!(link.head, hex(&source.chain.head()));
        assert_eq!(link.head, hex(&resumed.chain.head()));
        // Past the last turn: refused with the range.
        let err = fork(&store, &id, Some(3)).unwrap_err().to_string();
        assert!(
            err.contains("no turn 3 to fork at; the session has 2"),
            "{err}"
        );
    }
}
