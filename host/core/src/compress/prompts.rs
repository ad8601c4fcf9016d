//! The compression prompts. Each of `prompts/classify.md` and
//! `prompts/extract.md` holds its prompt and the JSON Schema of its reply
//! in one file: a leading `<!-- … -->` comment documents it for people and
//! is not sent; the rest is sent as it is, schema included, and the
//! schema's ```json block is what the reply is validated against.

use std::sync::LazyLock;

use serde_json::Value;

/// The compactor's system prompt, the first message of both requests.
pub const SYSTEM: &str = "You are the context compactor of amber, a coding agent. You read \
     the transcript of a session, split into numbered segments, and answer each question \
     about it with one JSON object, no prose.";

const CLASSIFY_FILE: &str = include_str!("prompts/classify.md");
const EXTRACT_FILE: &str = include_str!("prompts/extract.md");

/// A prompt ready to send, and its reply's schema compiled.
pub struct Prompt {
    pub text: &'static str,
    pub schema: Value,
    pub validator: jsonschema::Validator,
}

/// A built-in prompt file that does not hold what amber needs of it: a
/// bug of this build, which the unit tests catch.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BrokenPrompt(String);

static CLASSIFY: LazyLock<Result<Prompt, BrokenPrompt>> =
    LazyLock::new(|| Prompt::load("classify.md", CLASSIFY_FILE).map_err(BrokenPrompt));
static EXTRACT: LazyLock<Result<Prompt, BrokenPrompt>> =
    LazyLock::new(|| Prompt::load("extract.md", EXTRACT_FILE).map_err(BrokenPrompt));

/// The classify prompt; an error only if the built-in file is broken.
pub fn classify() -> Result<&'static Prompt, BrokenPrompt> {
    CLASSIFY.as_ref().map_err(Clone::clone)
}

/// The extract prompt; an error only if the built-in file is broken.
pub fn extract() -> Result<&'static Prompt, BrokenPrompt> {
    EXTRACT.as_ref().map_err(Clone::clone)
}

impl Prompt {
    fn load(name: &str, file: &'static str) -> Result<Prompt, String> {
        let text = strip_comment(file);
        let start = text
            .find("```json\n")
            .map(|at| at + "```json\n".len())
            .ok_or_else(|| format!("{name} has no ```json schema block"))?;
        let len = text[start..]
            .find("\n```")
            .ok_or_else(|| format!("{name}'s schema block is not closed"))?;
        let schema: Value = serde_json::from_str(&text[start..start + len])
            .map_err(|e| format!("{name}'s schema is not JSON: {e}"))?;
        let validator = jsonschema::validator_for(&schema)
            .map_err(|e| format!("{name}'s schema is not a valid JSON Schema: {e}"))?;
        Ok(Prompt {
            text,
            schema,
            validator,
        })
    }
}

/// The file without its leading `<!-- … -->` comment, trimmed.
fn strip_comment(file: &str) -> &str {
    let trimmed = file.trim_start();
    match trimmed
        .strip_prefix("<!--")
        .and_then(|rest| rest.find("-->").map(|end| &rest[end + 3..]))
    {
        Some(rest) => rest.trim(),
        None => trimmed.trim_end(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_prompts_load_with_their_schemas_and_without_their_comments() {
        for prompt in [classify().unwrap(), extract().unwrap()] {
            assert!(!prompt.text.contains("<!--"));
            assert!(prompt.text.contains("```json\n{"));
            assert!(prompt.text.ends_with('}') || prompt.text.ends_with(']'));
            assert_eq!(prompt.schema["type"], "object");
        }
        assert!(classify().unwrap().text.starts_with("The transcript above"));
        assert!(extract()
            .unwrap()
            .text
            .starts_with("That classification is done"));
    }

    #[test]
    fn the_schemas_accept_their_own_examples() {
        for prompt in [classify().unwrap(), extract().unwrap()] {
            let example = prompt
                .text
                .rsplit_once("For example: ")
                .map(|(_, json)| json)
                .unwrap();
            let value: Value = serde_json::from_str(example).unwrap();
            assert!(prompt.validator.is_valid(&value), "{example}");
        }
    }

    #[test]
    fn a_file_without_a_comment_or_schema_is_named_in_the_error() {
        assert_eq!(strip_comment("  plain  "), "plain");
        let err = Prompt::load("x.md", "<!-- doc -->\nno schema")
            .err()
            .unwrap();
        assert_eq!(err, "x.md has no ```json schema block");
    }
}
