//! What a server says goes to the model only once cleaned: a tool's
//! description, a resource's or a prompt's. A server can hide
//! instructions in characters a person never sees (zero-width spaces,
//! bidirectional overrides, Unicode tag characters, variation selectors)
//! or in control characters, and can make a description as long as it
//! likes. Those characters are taken out and the length is capped; what
//! was taken out is said at the end, so the person reading the pin diff
//! knows.

use amber_core::printable::is_invisible;

/// The longest description a model is shown, in characters.
pub const MAX_DESCRIPTION: usize = 2000;

/// `text` without control characters (but newlines and tabs) and
/// invisible characters, at most `cap` characters long.
pub fn clean(text: &str, cap: usize) -> String {
    let mut out = String::with_capacity(text.len().min(cap * 4));
    let mut removed = 0usize;
    let mut kept = 0usize;
    let mut cut = 0usize;
    for c in text.chars() {
        if (c.is_control() && c != '\n' && c != '\t') || is_invisible(c) {
            removed += 1;
            continue;
        }
        if kept == cap {
            cut += 1;
            continue;
        }
        out.push(c);
        kept += 1;
    }
    let mut notes = Vec::new();
    if cut > 0 {
        notes.push(format!("{cut} more characters cut"));
    }
    if removed > 0 {
        notes.push(format!("{removed} hidden or control characters removed"));
    }
    if !notes.is_empty() {
        out.push_str(&format!(" [amber: {}]", notes.join("; ")));
    }
    out
}

/// A tool's description, cleaned and capped at [`MAX_DESCRIPTION`].
pub fn description(text: &str) -> String {
    clean(text, MAX_DESCRIPTION)
}

/// The longest `description` or `title` inside a schema, in characters:
/// one argument's words, shorter than a tool's.
pub const MAX_SCHEMA_TEXT: usize = 500;

/// A tool's input schema with every `description` and `title` in it (an
/// argument's, a nested one's) cleaned and capped as a description is: a
/// model reads them as much as the tool's own description, so a server
/// could hide instructions there as well.
pub fn schema(value: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, v)| {
                    let v = match (key.as_str(), v) {
                        ("description" | "title", Value::String(text)) => {
                            Value::String(clean(text, MAX_SCHEMA_TEXT))
                        }
                        _ => schema(v),
                    };
                    (key.clone(), v)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(schema).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_inside_a_schema_are_cleaned_at_any_depth() {
        let poisoned = serde_json::json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "A path.\u{200B}\u{E0041}"},
                "opts": {"type": "object", "properties": {
                    "mode": {"title": "x".repeat(MAX_SCHEMA_TEXT + 3), "enum": ["description"]}
                }}
            }
        });
        let clean = schema(&poisoned);
        assert_eq!(
            clean["properties"]["path"]["description"],
            "A path. [amber: 2 hidden or control characters removed]"
        );
        let title = clean["properties"]["opts"]["properties"]["mode"]["title"]
            .as_str()
            .unwrap();
        assert!(title.ends_with("[amber: 3 more characters cut]"), "{title}");
        // A property named `description` is a property, not text.
        assert_eq!(
            clean["properties"]["opts"]["properties"]["mode"]["enum"],
            serde_json::json!(["description"])
        );
        // A schema with nothing to clean is unchanged, so its pin holds.
        let plain = serde_json::json!({"type": "object", "properties": {"q": {"type": "string", "description": "Query."}}});
        assert_eq!(schema(&plain), plain);
    }

    #[test]
    fn hidden_characters_are_removed_and_counted() {
        let poisoned = "Reads a file.\u{200B}\u{E0049}\u{E0067}\u{202E}\u{1b}[2K ok";
        let clean = description(poisoned);
        assert_eq!(
            clean,
            "Reads a file.[2K ok [amber: 5 hidden or control characters removed]"
        );
    }

    #[test]
    fn newlines_and_tabs_stay_and_plain_text_is_untouched() {
        assert_eq!(description("a\n\tb"), "a\n\tb");
        assert_eq!(description("Ünïcödé 漢字"), "Ünïcödé 漢字");
    }

    #[test]
    fn an_oversized_description_is_capped_saying_so() {
        let long = "x".repeat(MAX_DESCRIPTION + 500);
        let clean = description(&long);
        assert!(clean.starts_with(&"x".repeat(MAX_DESCRIPTION)));
        assert!(
            clean.ends_with("[amber: 500 more characters cut]"),
            "{}",
            &clean[clean.len() - 40..]
        );
    }
}
