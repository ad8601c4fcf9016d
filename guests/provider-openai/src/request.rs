//! What both request shapes share: the HTTP envelope, tool schemas, text
//! joining and temperature encoding.

use amber_sdk::{json, HttpRequest, Image, Part, ToolDecl, Value};

/// A streaming JSON POST to `path`. No auth header: the host adds it, and
/// the key never enters the component.
pub fn post(path: &str, body: &Value) -> HttpRequest {
    HttpRequest {
        method: "POST".to_string(),
        path: path.to_string(),
        headers: vec![
            ("content-type".to_string(), "application/json".to_string()),
            ("accept".to_string(), "text/event-stream".to_string()),
        ],
        body: body.to_string(),
    }
}

/// The tool's JSON Schema as a value; the error names the tool.
pub fn parameters(tool: &ToolDecl) -> Result<Value, String> {
    serde_json::from_str(&tool.input_schema)
        .map_err(|e| format!("the input schema of tool `{}` is not JSON: {e}", tool.name))
}

/// The text parts of a message, joined by blank lines.
pub fn text(parts: &[Part]) -> String {
    let texts: Vec<&str> = parts
        .iter()
        .filter_map(|p| match p {
            Part::Text(t) if !t.is_empty() => Some(t.as_str()),
            _ => None,
        })
        .collect();
    texts.join("\n\n")
}

/// A temperature as the user wrote it: widening `0.2f32` directly would
/// send `0.20000000298023224`.
pub fn temperature(t: f32) -> Value {
    match t.to_string().parse::<f64>() {
        Ok(v) if v.is_finite() => json!(v),
        _ => Value::Null,
    }
}

/// Tool-call arguments as they go back on the wire: a call that took no
/// arguments still needs a JSON object.
pub fn arguments(text: &str) -> String {
    if text.trim().is_empty() {
        "{}".to_string()
    } else {
        text.to_string()
    }
}

/// The images of a message, in order.
pub fn images(parts: &[Part]) -> Vec<&Image> {
    parts
        .iter()
        .filter_map(|p| match p {
            Part::Image(image) => Some(image),
            _ => None,
        })
        .collect()
}

/// An image as both APIs take it inline: a `data:` URL.
pub fn data_url(image: &Image) -> String {
    format!(
        "data:{};base64,{}",
        image.media_type,
        amber_sdk::base64(&image.data)
    )
}
