//! What the agent does with images before the model sees them
//! (docs/images.md): a prompt's images to a model without images are
//! refused, and a tool's are made ready to send, or described to such a
//! model in words.

use super::AgentConfig;
use crate::ports::{Image, ImagePrep};

/// Images one tool result may carry: more is a tool gone wrong, and each
/// costs the window about as much as a page of text.
pub const MAX_PER_RESULT: usize = 8;

/// Why a prompt with `count` attached images is not sent.
pub fn refusal(config: &AgentConfig, count: usize) -> String {
    format!(
        "not sent: the prompt has {count} image(s), and preset `{}` says its model `{}` does not take images. Send it without them, switch to a model that does (/model, --provider), or set `images = true` under [providers.{}] if it does (docs/images.md)",
        config.preset, config.model, config.preset
    )
}

/// A tool's `images` as the model is to get them: each made ready by
/// `prep` (when the host has one) and kept, or, for a model without
/// images and for one that cannot be made ready, a line added to
/// `output` instead. Every image kept is named in `output` too, so the
/// person reading the result sees it was there.
pub fn for_the_model(
    images: Vec<Image>,
    config: &AgentConfig,
    prep: Option<&dyn ImagePrep>,
    output: &mut String,
) -> Vec<Image> {
    let mut kept = Vec::new();
    let mut lines = Vec::new();
    let total = images.len();
    for (i, image) in images.into_iter().enumerate() {
        if i == MAX_PER_RESULT {
            lines.push(format!(
                "[{} more image(s) left out: a result carries {MAX_PER_RESULT} at most]",
                total - MAX_PER_RESULT
            ));
            break;
        }
        let ready = match (prep, image.data()) {
            (Some(prep), Some(bytes)) => prep.prepare(bytes),
            (None, Some(_))
                if crate::ports::image::MEDIA_TYPES.contains(&image.media_type.as_str()) =>
            {
                Ok(image)
            }
            (None, Some(_)) => Err(format!(
                "`{}` is not an image type a model takes",
                image.media_type
            )),
            (_, None) => Err("it has no bytes".to_string()),
        };
        match ready {
            Ok(image) if config.images => {
                lines.push(format!("[image: {}]", image.describe()));
                kept.push(image);
            }
            Ok(image) => lines.push(format!(
                "[the tool returned an image ({}); not shown: preset `{}` says model `{}` does not take images]",
                image.describe(),
                config.preset,
                config.model
            )),
            Err(reason) => lines.push(format!("[an image the tool returned was left out: {reason}]")),
        }
    }
    if !lines.is_empty() {
        if !output.is_empty() {
            output.push('\n');
        }
        output.push_str(&lines.join("\n"));
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(images: bool) -> AgentConfig {
        AgentConfig {
            model: "m".into(),
            flavor: "openai-chat".into(),
            context_window: 0,
            max_tool_iterations: 1,
            confirm: None,
            max_tokens: None,
            temperature: None,
            system_prompt: String::new(),
            workspace: None,
            price: None,
            max_budget_usd: None,
            images,
            preset: "local".into(),
        }
    }

    /// Passes PNGs through as they are, tagged 2×1; refuses the rest.
    struct PngOnly;

    impl ImagePrep for PngOnly {
        fn prepare(&self, bytes: &[u8]) -> Result<Image, String> {
            if bytes.starts_with(b"\x89PNG") {
                Ok(Image::new("image/png", bytes.to_vec(), 2, 1))
            } else {
                Err("not a PNG, JPEG, GIF or WebP".into())
            }
        }
    }

    fn png() -> Image {
        Image::new("image/png", b"\x89PNG....".to_vec(), 0, 0)
    }

    #[test]
    fn a_model_with_images_gets_them_prepared_and_named() {
        let mut output = "shot taken".to_string();
        let kept = for_the_model(vec![png()], &config(true), Some(&PngOnly), &mut output);
        assert_eq!(kept.len(), 1);
        assert_eq!((kept[0].width, kept[0].height), (2, 1));
        assert_eq!(output, "shot taken\n[image: PNG 2×1, 1 KB]");
    }

    #[test]
    fn a_model_without_images_is_told_what_they_were_and_naming_the_preset() {
        let mut output = String::new();
        let kept = for_the_model(vec![png()], &config(false), Some(&PngOnly), &mut output);
        assert!(kept.is_empty());
        assert!(output.contains("an image (PNG 2×1, 1 KB)"), "{output}");
        assert!(output.contains("preset `local`"), "{output}");
    }

    #[test]
    fn what_is_no_image_is_left_out_with_the_reason_and_the_rest_are_capped() {
        let mut output = String::new();
        let mut images = vec![Image::new("image/png", b"GIF89a".to_vec(), 0, 0)];
        images.extend((0..MAX_PER_RESULT + 2).map(|_| png()));
        let kept = for_the_model(images, &config(true), Some(&PngOnly), &mut output);
        assert_eq!(kept.len(), MAX_PER_RESULT - 1);
        assert!(output.contains("left out: not a PNG"), "{output}");
        assert!(output.contains("[3 more image(s) left out"), "{output}");
    }

    #[test]
    fn the_refusal_names_the_preset_the_model_and_the_way_out() {
        let text = refusal(&config(false), 2);
        assert!(text.contains("2 image(s)"), "{text}");
        assert!(
            text.contains("preset `local`") && text.contains("model `m`"),
            "{text}"
        );
        assert!(text.contains("images = true"), "{text}");
    }
}
