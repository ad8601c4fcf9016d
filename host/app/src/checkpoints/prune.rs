//! Pruning the checkpoint store with the sessions: a content is kept
//! while a session's `checkpoint` record or a turn's journal names it.
//! Once the sessions that named it are deleted (`amber sessions delete`,
//! `amber sessions prune`), it goes. A content younger than
//! [`GRACE`] stays whatever names it: a turn in flight keeps its files
//! before it writes its journal.

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, SystemTime};

use amber_core::session::Record;
use serde::Serialize;

/// How long an unnamed content stays.
pub const GRACE: Duration = Duration::from_secs(3600);

/// What a prune removed.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize)]
pub struct Pruned {
    pub objects: usize,
    pub bytes: u64,
    /// Contents still named by a session or a journal.
    pub kept: usize,
}

/// The contents the sessions in `sessions` and the journals in `pending`
/// name.
fn named(sessions: &Path, pending: &Path) -> std::io::Result<HashSet<String>> {
    let mut names = HashSet::new();
    each_record(sessions, "\"checkpoint\"", |record| {
        if let Record::Checkpoint { files, .. } = record {
            for file in files {
                names.extend(file.before);
                names.extend(file.after);
            }
        }
    })?;
    if let Ok(entries) = std::fs::read_dir(pending) {
        for entry in entries.flatten() {
            // The journal of a session that is gone names nothing.
            let session = entry
                .path()
                .file_stem()
                .map(|id| sessions.join(format!("{}.jsonl", id.to_string_lossy())));
            if session.is_none_or(|s| !s.exists()) {
                continue;
            }
            // A journal's hashes are 64 hex digits in quotes: read as text,
            // whatever its shape.
            let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
            names.extend(
                text.split('"')
                    .filter(|w| w.len() == 64 && w.chars().all(|c| c.is_ascii_hexdigit()))
                    .map(str::to_string),
            );
        }
    }
    Ok(names)
}

/// Removes from the store at `store` every content no session in
/// `sessions` names, unless younger than [`GRACE`]; and what a clone
/// killed mid-way left.
pub fn prune(store: &Path, sessions: &Path) -> std::io::Result<Pruned> {
    let names = named(sessions, &store.join("pending"))?;
    let now = SystemTime::now();
    let mut pruned = Pruned::default();
    amber_core::atomic::remove_stale_temps(store);
    let Ok(folders) = std::fs::read_dir(store) else {
        return Ok(pruned);
    };
    for folder in folders.flatten() {
        let prefix = folder.file_name().to_string_lossy().into_owned();
        if prefix.len() != 2 || !folder.path().is_dir() {
            continue;
        }
        amber_core::atomic::remove_stale_temps(&folder.path());
        for object in std::fs::read_dir(folder.path())?.flatten() {
            let hash = format!("{prefix}{}", object.file_name().to_string_lossy());
            if names.contains(&hash) {
                pruned.kept += 1;
                continue;
            }
            remove_if_old(&object, now, &mut pruned)?;
        }
        // An emptied folder goes too (an error: it is not empty).
        let _ = std::fs::remove_dir(folder.path());
    }
    Ok(pruned)
}

/// Removes from `sessions/images` every image no session there names,
/// unless younger than [`GRACE`] (a turn may be writing the record that
/// names it): a session's images go with the last session that showed
/// them (docs/images.md).
pub fn prune_images(sessions: &Path) -> std::io::Result<Pruned> {
    let mut names = HashSet::new();
    let mut pruned = Pruned::default();
    each_record(sessions, "\"image\"", |record| {
        if let Record::Message { message, .. } = record {
            names.extend(amber_core::session::images::named_in(&message).map(str::to_string));
        }
    })?;
    let folder = amber_core::session::images::folder(&sessions.join("any.jsonl"));
    let Ok(images) = std::fs::read_dir(&folder) else {
        return Ok(pruned);
    };
    amber_core::atomic::remove_stale_temps(&folder);
    let now = SystemTime::now();
    for image in images.flatten() {
        if names.contains(image.file_name().to_string_lossy().as_ref()) {
            pruned.kept += 1;
            continue;
        }
        remove_if_old(&image, now, &mut pruned)?;
    }
    Ok(pruned)
}

/// Each record of each session in `sessions` on a line holding `needle`
/// (a cheap filter before parsing), given to `seen`. A session deleted
/// meanwhile names nothing; one that cannot be read otherwise stops the
/// prune: nothing is removed on the strength of a read that failed.
fn each_record(sessions: &Path, needle: &str, mut seen: impl FnMut(Record)) -> std::io::Result<()> {
    let entries = match std::fs::read_dir(sessions) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    for entry in entries.flatten() {
        if entry.path().extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let bytes = match std::fs::read(entry.path()) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        let text = String::from_utf8_lossy(&bytes);
        for line in text.lines().filter(|l| l.contains(needle)) {
            if let Ok(record) = serde_json::from_str::<Record>(line) {
                seen(record);
            }
        }
    }
    Ok(())
}

/// Removes `entry`, a file no one names, unless younger than [`GRACE`],
/// counting it in `pruned`.
fn remove_if_old(
    entry: &std::fs::DirEntry,
    now: SystemTime,
    pruned: &mut Pruned,
) -> std::io::Result<()> {
    let Ok(meta) = entry.metadata() else {
        return Ok(());
    };
    let young = meta
        .modified()
        .ok()
        .and_then(|m| now.duration_since(m).ok())
        .is_none_or(|age| age < GRACE);
    if young || !meta.is_file() {
        return Ok(());
    }
    std::fs::remove_file(entry.path())?;
    pruned.objects += 1;
    pruned.bytes += meta.len();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::store::ObjectStore;
    use super::*;
    use amber_core::ports::FileChange;

    fn age(path: &Path, by: Duration) {
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(SystemTime::now() - by).unwrap();
    }

    #[test]
    fn a_content_goes_when_no_session_names_it_and_it_is_old_enough() {
        let tmp = tempfile::tempdir().unwrap();
        let store = ObjectStore::new(tmp.path().join("store"));
        let sessions = tmp.path().join("sessions");
        std::fs::create_dir_all(&sessions).unwrap();
        let (named, _) = store.put(b"named").unwrap();
        let (old, _) = store.put(b"old and unnamed").unwrap();
        let (young, _) = store.put(b"young and unnamed").unwrap();
        let record = Record::Checkpoint {
            turn: 1,
            files: vec![FileChange {
                path: "a".into(),
                before: Some(named.clone()),
                after: None,
                not_restorable: false,
                outside: false,
            }],
        };
        std::fs::write(
            sessions.join("s.jsonl"),
            format!("{}\n", serde_json::to_string(&record).unwrap()),
        )
        .unwrap();
        let object = |hash: &str| store.dir().join(&hash[..2]).join(&hash[2..]);
        age(&object(&named), GRACE * 2);
        age(&object(&old), GRACE * 2);
        let pruned = prune(store.dir(), &sessions).unwrap();
        assert_eq!(pruned.objects, 1);
        assert_eq!(pruned.bytes, 15);
        assert!(store.has(&named) && store.has(&young) && !store.has(&old));
        // The session deleted, its content goes at the next prune.
        std::fs::remove_file(sessions.join("s.jsonl")).unwrap();
        prune(store.dir(), &sessions).unwrap();
        assert!(!store.has(&named));
    }

    #[test]
    fn an_image_goes_with_the_last_session_that_names_it() {
        use amber_core::ports::dialect::{Message, Part, Role};
        use amber_core::ports::Image;
        let tmp = tempfile::tempdir().unwrap();
        let sessions = tmp.path().join("sessions");
        let session = sessions.join("s.jsonl");
        let named = Message {
            role: Role::User,
            parts: vec![Part::Image(Image::new(
                "image/png",
                b"shown".to_vec(),
                1,
                1,
            ))],
        };
        let unnamed = Message {
            role: Role::User,
            parts: vec![Part::Image(Image::new("image/png", b"gone".to_vec(), 1, 1))],
        };
        amber_core::session::images::keep(&session, &named).unwrap();
        amber_core::session::images::keep(&session, &unnamed).unwrap();
        let record = Record::Message {
            hash: "h".into(),
            message: named.clone(),
        };
        std::fs::write(
            &session,
            format!("{}\n", serde_json::to_string(&record).unwrap()),
        )
        .unwrap();
        let folder = amber_core::session::images::folder(&session);
        for file in std::fs::read_dir(&folder).unwrap().flatten() {
            age(&file.path(), GRACE * 2);
        }
        let pruned = prune_images(&sessions).unwrap();
        assert_eq!((pruned.objects, pruned.kept), (1, 1));
        std::fs::remove_file(&session).unwrap();
        assert_eq!(prune_images(&sessions).unwrap().objects, 1);
        assert_eq!(std::fs::read_dir(&folder).unwrap().count(), 0);
    }
}
