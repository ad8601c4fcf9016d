//! Images in the conversation (docs/images.md), and the ImagePrep port that
//! makes one ready to send.
//!
//! A message names an image by the hash of its bytes; the bytes ride along
//! in memory but are never part of a record or a chain link. The session
//! writer keeps them once, under that hash, beside the sessions, and a
//! resume reads them back: a screenshot sent ten turns running is stored
//! once, and a session file stays text.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// The media types every dialect can send.
pub const MEDIA_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// An image a model is shown: what the user attached, or what a tool
/// returned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Image {
    /// One of [`MEDIA_TYPES`].
    pub media_type: String,
    /// The bytes' blake3 hash, hex: the name they are kept under.
    pub hash: String,
    /// Its size in pixels, when known (0 when not): what a model without
    /// images is told instead, and what the token estimate uses.
    #[serde(default)]
    pub width: u32,
    #[serde(default)]
    pub height: u32,
    /// The encoded image. Not recorded: see the module's comment.
    #[serde(skip)]
    pub bytes: ImageBytes,
}

impl Image {
    /// An image of `bytes` as they are (their hash computed here).
    pub fn new(media_type: impl Into<String>, bytes: Vec<u8>, width: u32, height: u32) -> Image {
        Image {
            media_type: media_type.into(),
            hash: blake3::hash(&bytes).to_hex().to_string(),
            width,
            height,
            bytes: ImageBytes(Some(bytes.into())),
        }
    }

    /// The encoded bytes, when they are at hand (a resumed session whose
    /// stored image is gone has none).
    pub fn data(&self) -> Option<&[u8]> {
        self.bytes.0.as_deref()
    }

    /// `"PNG 640×480, 12 KB"`: the image as a person or a model without
    /// images is told of it.
    pub fn describe(&self) -> String {
        let kind = self
            .media_type
            .strip_prefix("image/")
            .unwrap_or(&self.media_type)
            .to_uppercase();
        let size = self
            .data()
            .map(|b| format!(", {} KB", b.len().div_ceil(1024)))
            .unwrap_or_default();
        if self.width > 0 && self.height > 0 {
            format!("{kind} {}×{}{size}", self.width, self.height)
        } else {
            format!("{kind}{size}")
        }
    }

    /// The tokens a vendor counts for it, roughly: Anthropic documents
    /// width × height / 750, and OpenAI's tiles come out close. An image
    /// of unknown size counts as the largest a dialect sends.
    pub fn approx_tokens(&self) -> u64 {
        let (w, h) = match (self.width, self.height) {
            (0, _) | (_, 0) => (2000, 2000),
            (w, h) => (w, h),
        };
        (u64::from(w) * u64::from(h)).div_ceil(750)
    }
}

/// An image's bytes in memory, shared by every copy of the message.
/// Equality ignores them: two images are the same when their hashes are.
#[derive(Clone, Default)]
pub struct ImageBytes(pub Option<Arc<[u8]>>);

impl PartialEq for ImageBytes {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for ImageBytes {}

impl fmt::Debug for ImageBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(bytes) => write!(f, "{} bytes", bytes.len()),
            None => f.write_str("not loaded"),
        }
    }
}

/// Makes an image ready to send: checks what it is by its bytes (a PNG,
/// JPEG, GIF or WebP), and shrinks one too big for any vendor to fit all
/// of them (docs/images.md has the limits). The host's is native
/// (amber-app, with the `image` crate); the core only calls it.
pub trait ImagePrep: Send + Sync {
    /// `bytes` as an image to send, or why they cannot be one, fit to be
    /// shown after "not attached: ".
    fn prepare(&self, bytes: &[u8]) -> Result<Image, String>;
}
