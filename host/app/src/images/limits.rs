//! What each vendor documents it takes in an image, and the one fit that
//! suits them all. An image is prepared once, as it enters a session, to
//! the tightest of these: the session may switch model later, and the
//! stored copy must suit whichever it sends to.

/// One vendor's documented limits for an image in a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VendorLimits {
    pub flavors: &'static [&'static str],
    /// The longest edge in pixels sent as it is; a larger image is scaled
    /// down by the vendor (time and tokens for nothing) or refused.
    pub max_edge: u32,
    /// Bytes of one image, as encoded (before base64).
    pub max_bytes: usize,
}

/// The limits, from the vendors' pages (December 2026):
/// - Anthropic ("Vision"): images over 1568 px on the long edge are
///   scaled down before the model sees them; at most 5 MB an image
///   through the API, counted on the base64 text (so 3.75 MB of bytes);
///   8000 px a side at most (2000 px when a request holds more than 20).
/// - OpenAI ("Images and vision"): a high-detail image is fit into
///   2048×2048, then its short side to 768 px; at most 20 MB an image.
pub const VENDORS: &[VendorLimits] = &[
    VendorLimits {
        flavors: &["anthropic-messages"],
        max_edge: 1568,
        max_bytes: 5 * 1000 * 1000 * 3 / 4,
    },
    VendorLimits {
        flavors: &["openai-chat", "openai-responses"],
        max_edge: 2048,
        max_bytes: 20 * 1000 * 1000,
    },
];

/// The tightest of [`VENDORS`]: what every image is prepared to.
pub fn for_every_vendor() -> (u32, usize) {
    let edge = VENDORS.iter().map(|v| v.max_edge).min().unwrap_or(1568);
    let bytes = VENDORS
        .iter()
        .map(|v| v.max_bytes)
        .min()
        .unwrap_or(3_750_000);
    (edge, bytes)
}

/// The biggest file amber reads as an image at all: beyond this it is
/// not a screenshot or a photo a person means to show.
pub const MAX_INPUT_BYTES: usize = 64 * 1024 * 1024;

/// The biggest image decoded, a side in pixels: a decompression bomb
/// (a small file of a huge image) is refused before it is allocated.
pub const MAX_INPUT_EDGE: u32 = 20_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_image_fits_anthropic_which_is_the_tightest() {
        assert_eq!(for_every_vendor(), (1568, 3_750_000));
    }
}
