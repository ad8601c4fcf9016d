//! The images of a request, checked against each vendor's documented
//! shape: chat completions takes `image_url` parts (a `data:` URL) in user
//! messages only; Responses takes `input_image` in a user message or in a
//! `function_call_output`'s list; Anthropic takes `image` blocks with a
//! base64 `source` in user content or inside a `tool_result`. An image in
//! another vendor's shape, in the wrong message, or whose bytes are not
//! the type it claims is a problem; the count is what `expect_images`
//! checks.

use base64::Engine;
use serde_json::Value;

use super::sse::Format;

/// The images a request carries in its vendor's shape, and what is wrong
/// with any image in it.
pub fn images_in(format: Format, body: &Value) -> (usize, Vec<String>) {
    let mut found = Found::default();
    match format {
        Format::Chat => chat(body, &mut found),
        Format::Responses => responses(body, &mut found),
        Format::Messages => anthropic(body, &mut found),
    }
    // Anything image-like in a shape the walk above did not take.
    let mut shaped = 0;
    count_image_objects(body, &mut shaped);
    if shaped > found.count + found.problems.len() {
        found.problems.push(format!(
            "{} image object(s) are not where {format:?} takes images",
            shaped - found.count - found.problems.len()
        ));
    }
    (found.count, found.problems)
}

#[derive(Default)]
struct Found {
    count: usize,
    problems: Vec<String>,
}

impl Found {
    fn check(&mut self, result: Result<(), String>) {
        match result {
            Ok(()) => self.count += 1,
            Err(e) => self.problems.push(e),
        }
    }
}

fn items<'a>(body: &'a Value, key: &str) -> impl Iterator<Item = &'a Value> {
    body[key].as_array().into_iter().flatten()
}

fn parts(content: &Value) -> impl Iterator<Item = &Value> {
    content.as_array().into_iter().flatten()
}

fn kind(v: &Value) -> &str {
    v["type"].as_str().unwrap_or_default()
}

fn chat(body: &Value, found: &mut Found) {
    for message in items(body, "messages") {
        let role = message["role"].as_str().unwrap_or_default();
        for part in parts(&message["content"]).filter(|p| kind(p) == "image_url") {
            found.check(if role == "user" {
                data_url(&part["image_url"]["url"])
            } else {
                Err(format!("an image_url part in a `{role}` message (chat takes images in user messages only)"))
            });
        }
    }
}

fn responses(body: &Value, found: &mut Found) {
    for item in items(body, "input") {
        let role = item["role"].as_str().unwrap_or_default();
        if kind(item) == "function_call_output" {
            for part in parts(&item["output"]).filter(|p| kind(p) == "input_image") {
                found.check(data_url(&part["image_url"]));
            }
            continue;
        }
        for part in parts(&item["content"]).filter(|p| kind(p) == "input_image") {
            found.check(if role == "user" {
                data_url(&part["image_url"])
            } else {
                Err(format!("an input_image in a `{role}` message"))
            });
        }
    }
}

fn anthropic(body: &Value, found: &mut Found) {
    for message in items(body, "messages") {
        let role = message["role"].as_str().unwrap_or_default();
        for block in parts(&message["content"]) {
            let nested: Vec<&Value> = if kind(block) == "tool_result" {
                parts(&block["content"]).collect()
            } else {
                vec![block]
            };
            for image in nested.into_iter().filter(|b| kind(b) == "image") {
                found.check(if role == "user" {
                    base64_source(&image["source"])
                } else {
                    Err(format!("an image block in a `{role}` message"))
                });
            }
        }
    }
}

/// `data:<media type>;base64,<bytes>` whose bytes are that type.
fn data_url(url: &Value) -> Result<(), String> {
    let url = url.as_str().ok_or("an image without a URL string")?;
    let rest = url
        .strip_prefix("data:")
        .ok_or_else(|| format!("an image URL that is not a data: URL ({})", head(url)))?;
    let (media, data) = rest
        .split_once(";base64,")
        .ok_or_else(|| format!("a data: URL without `;base64,` ({})", head(url)))?;
    bytes_are(media, data)
}

/// Anthropic's `{"type": "base64", "media_type", "data"}`.
fn base64_source(source: &Value) -> Result<(), String> {
    if source["type"] != "base64" {
        return Err(format!("an image source of type {}", source["type"]));
    }
    let media = source["media_type"].as_str().unwrap_or_default();
    bytes_are(media, source["data"].as_str().unwrap_or_default())
}

/// Base64 `data` decodes to an image of type `media`.
fn bytes_are(media: &str, data: &str) -> Result<(), String> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|e| format!("an image whose base64 does not decode ({e})"))?;
    let actual = if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        "image/png"
    } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        "image/jpeg"
    } else if bytes.starts_with(b"GIF8") {
        "image/gif"
    } else if bytes.len() >= 12 && &bytes[8..12] == b"WEBP" {
        "image/webp"
    } else {
        "no image type"
    };
    if actual == media {
        Ok(())
    } else {
        Err(format!(
            "an image said to be `{media}` whose bytes are {actual}"
        ))
    }
}

fn head(text: &str) -> &str {
    &text[..text.floor_char_boundary(40)]
}

/// Objects whose `type` names an image in any vendor's shape.
fn count_image_objects(value: &Value, n: &mut usize) {
    match value {
        Value::Object(map) => {
            if matches!(kind(value), "image_url" | "input_image" | "image") {
                *n += 1;
            }
            map.values().for_each(|v| count_image_objects(v, n));
        }
        Value::Array(items) => items.iter().for_each(|v| count_image_objects(v, n)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const PNG: &str = "iVBORw0KGgoAAAANSUhEUg==";

    #[test]
    fn each_vendor_shape_counts_in_its_own_format_only() {
        let chat = json!({"messages": [{"role": "user", "content": [
            {"type": "text", "text": "look"},
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PNG}")}}]}]});
        assert_eq!(images_in(Format::Chat, &chat), (1, vec![]));
        let (_, problems) = images_in(Format::Messages, &chat);
        assert!(!problems.is_empty());
        let anthropic = json!({"messages": [{"role": "user", "content": [{"type": "tool_result",
            "tool_use_id": "c1", "content": [{"type": "image", "source": {"type": "base64",
            "media_type": "image/png", "data": PNG}}]}]}]});
        assert_eq!(images_in(Format::Messages, &anthropic), (1, vec![]));
        let responses = json!({"input": [{"type": "function_call_output", "call_id": "c1",
            "output": [{"type": "input_image", "image_url": format!("data:image/png;base64,{PNG}")}]}]});
        assert_eq!(images_in(Format::Responses, &responses), (1, vec![]));
    }

    #[test]
    fn a_wrong_message_a_wrong_type_or_a_url_is_named() {
        let tool_image = json!({"messages": [{"role": "tool", "content": [
            {"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{PNG}")}}]}]});
        let (n, problems) = images_in(Format::Chat, &tool_image);
        assert_eq!(n, 0);
        assert!(problems[0].contains("`tool` message"), "{problems:?}");
        let lying = json!({"messages": [{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": format!("data:image/jpeg;base64,{PNG}")}}]}]});
        assert!(images_in(Format::Chat, &lying).1[0].contains("bytes are image/png"));
        let remote = json!({"messages": [{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}}]}]});
        assert!(images_in(Format::Chat, &remote).1[0].contains("not a data: URL"));
    }
}
