//! Images into the conversation (docs/images.md): files a person attaches
//! (`@shot.png`, a pasted path, `amber exec --image`) read and prepared
//! here, once, for whichever front end attached them; and the host's
//! [`ImagePrep`] the agent uses for the images tools return.

pub mod limits;
mod prepare;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use amber_core::ports::{Image, ImagePrep};

pub use prepare::NativeImagePrep;

/// The extensions read as images.
const EXTENSIONS: [&str; 5] = ["png", "jpg", "jpeg", "gif", "webp"];

/// The host's image preparation, fit for every vendor.
pub fn prep() -> Arc<dyn ImagePrep> {
    Arc::new(NativeImagePrep::default())
}

/// Whether `path` names an image by its extension (its bytes decide
/// later whether it is one).
pub fn is_image_path(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
}

/// The image in file `path`, ready to send, or why not, naming the file.
pub fn from_file(path: &Path, prep: &dyn ImagePrep) -> Result<Image, String> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| format!("{shown}: {e}"))?;
    if meta.len() > limits::MAX_INPUT_BYTES as u64 {
        return Err(format!(
            "{shown}: it is {} MB; an image is read up to {} MB",
            meta.len() / 1_000_000,
            limits::MAX_INPUT_BYTES / 1_000_000
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{shown}: {e}"))?;
    prep.prepare(&bytes).map_err(|e| format!("{shown}: {e}"))
}

/// The images in `paths`, each ready to send, with a line for the person
/// per image: what was attached (and its size as sent), or why it was not.
pub fn attach(paths: &[PathBuf], prep: &dyn ImagePrep) -> (Vec<Image>, Vec<String>) {
    let mut images = Vec::new();
    let mut notes = Vec::new();
    for path in paths {
        match from_file(path, prep) {
            Ok(image) => {
                notes.push(format!(
                    "attached image {} ({})",
                    path.display(),
                    image.describe()
                ));
                images.push(image);
            }
            Err(e) => notes.push(format!("image not attached: {e}")),
        }
    }
    (images, notes)
}

/// A pasted text that is one image file's path (as a terminal pastes a
/// dragged file: maybe quoted, maybe a `file://` URL, maybe with escaped
/// spaces), when it names an image file that exists.
pub fn pasted_image_path(pasted: &str) -> Option<PathBuf> {
    let text = pasted.trim();
    if text.is_empty() || text.contains('\n') {
        return None;
    }
    let unquoted = text
        .strip_prefix('\'')
        .and_then(|t| t.strip_suffix('\''))
        .or_else(|| text.strip_prefix('"').and_then(|t| t.strip_suffix('"')))
        .unwrap_or(text);
    let path = unquoted.strip_prefix("file://").unwrap_or(unquoted);
    let path = path.replace("\\ ", " ").replace("%20", " ");
    let path = PathBuf::from(path);
    (path.is_absolute() && is_image_path(&path) && path.is_file()).then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pasted_path_is_an_image_only_when_it_names_an_image_file() {
        let dir = tempfile::tempdir().unwrap();
        let shot = dir.path().join("Screen Shot.png");
        std::fs::write(&shot, b"x").unwrap();
        let text = shot.display().to_string();
        assert_eq!(pasted_image_path(&text), Some(shot.clone()));
        assert_eq!(
            pasted_image_path(&format!("'{text}'\n")),
            Some(shot.clone())
        );
        assert_eq!(
            pasted_image_path(&format!("file://{}", text.replace(' ', "%20"))),
            Some(shot.clone())
        );
        assert_eq!(pasted_image_path(&text.replace(' ', "\\ ")), Some(shot));
        assert_eq!(pasted_image_path("look at this.png"), None);
        assert_eq!(
            pasted_image_path(&dir.path().join("gone.png").display().to_string()),
            None
        );
        let notes = dir.path().join("notes.txt");
        std::fs::write(&notes, b"x").unwrap();
        assert_eq!(pasted_image_path(&notes.display().to_string()), None);
    }

    #[test]
    fn a_file_that_is_not_an_image_is_refused_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let fake = dir.path().join("fake.png");
        std::fs::write(&fake, b"not an image").unwrap();
        let (images, notes) = attach(&[fake], &NativeImagePrep::default());
        assert!(images.is_empty());
        assert!(
            notes[0].contains("fake.png") && notes[0].contains("not a PNG"),
            "{notes:?}"
        );
    }
}
