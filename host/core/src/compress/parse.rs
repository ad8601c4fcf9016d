//! Reading the model's JSON replies, tolerantly: whatever the dialect
//! (plain text, no response format), a model may fence its JSON, put prose
//! around it, leave a trailing comma or stop mid-object. The JSON is taken
//! from a fenced block, else from the first `{` to the last `}`; if it does
//! not parse, one repair pass (trailing commas, comments, raw newlines in
//! strings, unclosed strings and brackets) gets one more try. What parses
//! is validated against the prompt's schema, then read into its type.

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;

use super::headroom::Label;
use super::prompts::Prompt;
use crate::engine::dispatch::schema_problems;
use crate::ports::compression::{CompressionError, Stage};
use crate::ports::learner::{MemoryOp, SkillOp};
use crate::text::one_line;

/// The classify reply: segment ids by label, and a summary of what is not
/// core.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Classification {
    #[serde(default)]
    pub core: Vec<u64>,
    #[serde(default)]
    pub context: Vec<u64>,
    #[serde(default)]
    pub prune: Vec<u64>,
    #[serde(default)]
    pub summary: Option<String>,
}

impl Classification {
    /// The label of each id the reply names. An id named twice gets the
    /// label that keeps more: core, then context.
    pub fn labels(&self) -> HashMap<u64, Label> {
        let mut labels = HashMap::new();
        for (ids, label) in [
            (&self.prune, Label::Prune),
            (&self.context, Label::Context),
            (&self.core, Label::Core),
        ] {
            for id in ids {
                labels.insert(*id, label);
            }
        }
        labels
    }
}

/// The extract reply: what to learn.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Extraction {
    #[serde(default)]
    pub memories: Vec<MemoryOp>,
    #[serde(default)]
    pub skills: Vec<SkillOp>,
}

pub fn classification(reply: &str, prompt: &Prompt) -> Result<Classification, CompressionError> {
    typed(Stage::Classify, reply, prompt)
}

pub fn extraction(reply: &str, prompt: &Prompt) -> Result<Extraction, CompressionError> {
    typed(Stage::Extract, reply, prompt)
}

fn typed<T: serde::de::DeserializeOwned>(
    stage: Stage,
    reply: &str,
    prompt: &Prompt,
) -> Result<T, CompressionError> {
    let value = tolerant_json(reply).map_err(|reason| CompressionError::Parse {
        stage,
        reason: format!("{reason} (the reply began: {})", one_line(reply, 80)),
    })?;
    let problems = schema_problems(&prompt.validator, &value);
    if !problems.is_empty() {
        return Err(CompressionError::Schema {
            stage,
            reason: problems.join("; "),
        });
    }
    serde_json::from_value(value).map_err(|e| CompressionError::Schema {
        stage,
        reason: e.to_string(),
    })
}

/// The JSON value in a model's reply, repaired once if need be; the error
/// is the reply's own, before the repair.
pub fn tolerant_json(reply: &str) -> Result<Value, serde_json::Error> {
    let candidate = candidate(reply);
    match serde_json::from_str(candidate) {
        Ok(value) => Ok(value),
        Err(first) => serde_json::from_str(&repair(candidate)).map_err(|_| first),
    }
}

/// Where the JSON probably is: the first fenced block that holds an object
/// or array, else from the first `{` to the last `}` (or the end, when the
/// reply stopped early), else the whole reply.
fn candidate(reply: &str) -> &str {
    let reply = reply.trim_start_matches('\u{feff}').trim();
    let mut rest = reply;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        // The info string ("json") runs to the end of the line.
        let body_start = after.find('\n').map_or(after.len(), |n| n + 1);
        let body = &after[body_start..];
        let (inner, next) = match body.find("```") {
            Some(close) => (&body[..close], &body[close + 3..]),
            None => (body, ""),
        };
        let inner = inner.trim();
        if inner.starts_with('{') || inner.starts_with('[') {
            return inner;
        }
        rest = next;
    }
    match (reply.find('{'), reply.rfind('}')) {
        (Some(start), Some(end)) if end > start => &reply[start..=end],
        (Some(start), _) => &reply[start..],
        _ => reply,
    }
}

/// One repair pass over almost-JSON: drops `//` and `/* */` comments and
/// commas before a closing bracket, escapes raw control characters inside
/// strings, and closes an unclosed string and every unclosed bracket.
pub fn repair(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut open: Vec<char> = Vec::new();
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    let mut escaped = false;
    while let Some(c) = chars.next() {
        if in_string {
            match c {
                _ if escaped => {
                    escaped = false;
                    out.push(c);
                }
                '\\' => {
                    escaped = true;
                    out.push(c);
                }
                '"' => {
                    in_string = false;
                    out.push(c);
                }
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
            }
            '{' => {
                open.push('}');
                out.push(c);
            }
            '[' => {
                open.push(']');
                out.push(c);
            }
            '}' | ']' => {
                drop_trailing_comma(&mut out);
                if open.last() == Some(&c) {
                    open.pop();
                }
                out.push(c);
            }
            c => out.push(c),
        }
    }
    if in_string {
        if escaped {
            out.pop();
        }
        out.push('"');
    }
    while let Some(close) = open.pop() {
        drop_trailing_comma(&mut out);
        // A key left without its value: `{"a": 1, "b":` → `{"a": 1}`.
        if out.trim_end().ends_with(':') {
            drop_dangling_key(&mut out);
        }
        out.push(close);
    }
    out
}

fn drop_trailing_comma(out: &mut String) {
    let kept = out.trim_end().len();
    if out[..kept].ends_with(',') {
        out.truncate(kept - 1);
    }
}

/// Removes a trailing `"key":` (and the comma before it).
fn drop_dangling_key(out: &mut String) {
    let colon = out.trim_end().len() - 1;
    let before = out[..colon].trim_end();
    if let Some(key_start) = before.strip_suffix('"').and_then(|inner| inner.rfind('"')) {
        out.truncate(key_start);
        drop_trailing_comma(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compress::prompts;
    use serde_json::json;

    #[test]
    fn plain_json_parses() {
        assert_eq!(
            tolerant_json("{\"core\": [1]}").unwrap(),
            json!({"core": [1]})
        );
    }

    #[test]
    fn a_fenced_block_is_found_among_prose() {
        let reply = "Here is the classification:\n\n```json\n{\"core\": [1, 2],\n \"prune\": [3]}\n```\n\nLet me know!";
        assert_eq!(
            tolerant_json(reply).unwrap(),
            json!({"core": [1, 2], "prune": [3]})
        );
        // A fence of something else first, then the JSON.
        let reply = "```text\nnot this\n```\n```\n{\"core\": []}\n```";
        assert_eq!(tolerant_json(reply).unwrap(), json!({"core": []}));
    }

    #[test]
    fn leading_and_trailing_prose_without_a_fence_is_cut() {
        let reply = "Sure! {\"core\": [1], \"summary\": \"a {b} c\"} Hope that helps.";
        assert_eq!(
            tolerant_json(reply).unwrap(),
            json!({"core": [1], "summary": "a {b} c"})
        );
    }

    #[test]
    fn trailing_commas_and_comments_are_repaired() {
        let reply = "{\n  \"core\": [1, 2,], // the request\n  /* noise */ \"prune\": [3],\n}";
        assert_eq!(
            tolerant_json(reply).unwrap(),
            json!({"core": [1, 2], "prune": [3]})
        );
    }

    #[test]
    fn a_reply_cut_short_is_closed() {
        let reply = "```json\n{\"core\": [1, 2], \"summary\": \"read the fi";
        assert_eq!(
            tolerant_json(reply).unwrap(),
            json!({"core": [1, 2], "summary": "read the fi"})
        );
        let reply = "{\"core\": [1], \"prune\": [2, 3";
        assert_eq!(
            tolerant_json(reply).unwrap(),
            json!({"core": [1], "prune": [2, 3]})
        );
        let reply = "{\"core\": [1], \"prune\":";
        assert_eq!(tolerant_json(reply).unwrap(), json!({"core": [1]}));
    }

    #[test]
    fn raw_newlines_inside_strings_are_escaped() {
        let reply = "{\"summary\": \"line one\nline two\"}";
        assert_eq!(
            tolerant_json(reply).unwrap(),
            json!({"summary": "line one\nline two"})
        );
    }

    #[test]
    fn json_broken_beyond_repair_is_a_parse_error_naming_the_stage() {
        for reply in [
            "I cannot classify this transcript.",
            "{\"core\": [1, 2] \"prune\": [3]}",
            "{\"core\": [1, }}}",
            "",
        ] {
            let err = classification(reply, prompts::classify().unwrap()).unwrap_err();
            assert!(
                matches!(
                    err,
                    CompressionError::Parse {
                        stage: Stage::Classify,
                        ..
                    }
                ),
                "{reply:?}: {err:?}"
            );
            assert!(err
                .to_string()
                .starts_with("the classify reply is not JSON, even after one repair: "));
        }
    }

    #[test]
    fn json_that_fails_the_schema_is_a_schema_error() {
        let prompt = prompts::classify().unwrap();
        let err = classification("{\"core\": [\"one\"]}", prompt).unwrap_err();
        assert!(
            matches!(&err, CompressionError::Schema { stage: Stage::Classify, reason } if reason.contains("/core/0")),
            "{err:?}"
        );
        // An object with no list at all is not an answer.
        assert!(matches!(
            classification("{\"verdict\": \"fine\"}", prompt),
            Err(CompressionError::Schema { .. })
        ));
        let prompt = prompts::extract().unwrap();
        let bad_name = "{\"memories\": [], \"skills\": [{\"op\": \"upsert\", \"name\": \"../../etc\", \"description\": \"d\", \"trigger\": \"t\", \"body\": \"b\"}]}";
        assert!(matches!(
            extraction(bad_name, prompt),
            Err(CompressionError::Schema {
                stage: Stage::Extract,
                ..
            })
        ));
        let no_body = "{\"memories\": [], \"skills\": [{\"op\": \"upsert\", \"name\": \"x\"}]}";
        assert!(matches!(
            extraction(no_body, prompt),
            Err(CompressionError::Schema { .. })
        ));
    }

    #[test]
    fn a_valid_extraction_reads_into_ops() {
        let reply = "```json\n{\"memories\": [{\"type\": \"gotcha\", \"title\": \"t\", \"content\": \"c\", \"tags\": [\"x\"]}],\
                     \"skills\": [{\"op\": \"deprecate\", \"name\": \"old\"}, {\"op\": \"upsert\", \"name\": \"new-way\", \"description\": \"d\", \"trigger\": \"when\", \"body\": \"do\"}]}\n```";
        let got = extraction(reply, prompts::extract().unwrap()).unwrap();
        assert_eq!(got.memories.len(), 1);
        assert_eq!(got.memories[0].tags, ["x"]);
        assert_eq!(got.skills[0].name(), "old");
        assert_eq!(
            got.skills[1],
            SkillOp::Upsert {
                name: "new-way".into(),
                description: "d".into(),
                trigger: "when".into(),
                body: "do".into()
            }
        );
    }

    #[test]
    fn an_id_in_two_lists_gets_the_label_that_keeps_more() {
        let got = classification(
            "{\"core\": [2], \"context\": [1, 2], \"prune\": [1, 3]}",
            prompts::classify().unwrap(),
        )
        .unwrap();
        let labels = got.labels();
        assert_eq!(labels[&1], Label::Context);
        assert_eq!(labels[&2], Label::Core);
        assert_eq!(labels[&3], Label::Prune);
    }
}
