//! A session's images, kept once each, by hash, in `images/` beside the
//! session files (docs/images.md). A record names an image; its bytes are
//! written here before the record is, and read back on resume, checked
//! against the name they are kept under.

use std::path::{Path, PathBuf};

use super::SessionError;
use crate::ports::dialect::{Message, Part};

/// The folder of images for the sessions in `session`'s folder.
pub fn folder(session: &Path) -> PathBuf {
    session
        .parent()
        .unwrap_or_else(|| Path::new("."))
        .join("images")
}

/// Keeps the bytes of every image in `message` not kept yet. An image
/// already there (sent again, or in another session) is not written
/// again, but its time is renewed: a prune spares what is younger than
/// its grace, and this record is about to name it.
pub fn keep(session: &Path, message: &Message) -> Result<(), SessionError> {
    for part in &message.parts {
        let Part::Image(image) = part else { continue };
        let Some(bytes) = image.data() else { continue };
        if !is_hash(&image.hash) {
            continue;
        }
        let path = folder(session).join(&image.hash);
        if path.exists() {
            let _ = std::fs::File::options()
                .write(true)
                .open(&path)
                .and_then(|f| f.set_modified(std::time::SystemTime::now()));
            continue;
        }
        amber_state::atomic::write_private(&path, bytes).map_err(|e| SessionError::Io {
            path: path.clone(),
            reason: format!("cannot keep an image of the session: {e}"),
        })?;
    }
    Ok(())
}

/// Reads back the bytes of every image in `message` that has none. One
/// that is gone or does not match its hash stays without bytes (the
/// model is told it was there) and is warned of.
pub fn load(session: &Path, message: &mut Message, warnings: &mut Vec<String>) {
    for part in &mut message.parts {
        let Part::Image(image) = part else { continue };
        if image.data().is_some() {
            continue;
        }
        let path = folder(session).join(&image.hash);
        let read = if is_hash(&image.hash) {
            std::fs::read(&path).map_err(|e| e.to_string())
        } else {
            Err("its name is not a hash".to_string())
        };
        match read {
            Ok(bytes) if blake3::hash(&bytes).to_hex().as_str() == image.hash => {
                image.bytes.0 = Some(bytes.into());
            }
            Ok(_) => warnings.push(format!(
                "{}: the image does not match its hash (changed after it was kept); it is left out",
                path.display()
            )),
            Err(e) => warnings.push(format!(
                "{}: an image of the session cannot be read ({e}); it is left out",
                path.display()
            )),
        }
    }
}

/// Every image hash the session's records name: what `sessions prune`
/// keeps.
pub fn named_in(message: &Message) -> impl Iterator<Item = &str> {
    message.parts.iter().filter_map(|p| match p {
        Part::Image(image) => Some(image.hash.as_str()),
        _ => None,
    })
}

/// A blake3 hash in hex: the only names kept here, so a record cannot
/// name a path.
fn is_hash(name: &str) -> bool {
    name.len() == 64 && name.bytes().all(|b| b.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::dialect::Role;
    use crate::ports::Image;

    fn with_image(bytes: &[u8]) -> Message {
        Message {
            role: Role::User,
            parts: vec![Part::Image(Image::new("image/png", bytes.to_vec(), 1, 1))],
        }
    }

    fn unloaded(message: &Message) -> Message {
        let mut copy = message.clone();
        for part in &mut copy.parts {
            if let Part::Image(image) = part {
                image.bytes.0 = None;
            }
        }
        copy
    }

    #[test]
    fn an_image_is_kept_once_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let session = dir.path().join("s.jsonl");
        let message = with_image(b"png bytes");
        keep(&session, &message).unwrap();
        keep(&session, &message).unwrap();
        assert_eq!(std::fs::read_dir(folder(&session)).unwrap().count(), 1);
        let mut back = unloaded(&message);
        let mut warnings = Vec::new();
        load(&session, &mut back, &mut warnings);
        assert!(warnings.is_empty(), "{warnings:?}");
        let Part::Image(image) = &back.parts[0] else {
            panic!()
        };
        assert_eq!(image.data(), Some(b"png bytes".as_slice()));
    }

    #[test]
    fn a_changed_or_missing_image_is_left_out_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let session = dir.path().join("s.jsonl");
        let message = with_image(b"png bytes");
        keep(&session, &message).unwrap();
        let Part::Image(image) = &message.parts[0] else {
            panic!()
        };
        std::fs::write(folder(&session).join(&image.hash), b"other").unwrap();
        let mut back = unloaded(&message);
        let mut warnings = Vec::new();
        load(&session, &mut back, &mut warnings);
        assert!(
            warnings[0].contains("does not match its hash"),
            "{warnings:?}"
        );
        std::fs::remove_file(folder(&session).join(&image.hash)).unwrap();
        load(&session, &mut back, &mut warnings);
        assert!(warnings[1].contains("cannot be read"), "{warnings:?}");
        let Part::Image(image) = &back.parts[0] else {
            panic!()
        };
        assert!(image.data().is_none());
    }
}
