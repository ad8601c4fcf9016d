//! What the fake server checks in each request, always: the tool results
//! answer the tool calls it sent in the reply before (one per call, in
//! order, with the same ids), every tool the script's reply calls and
//! every tool the script expects is declared, and every declared tool's
//! schema is a valid JSON Schema of an object.

use serde_json::Value;

use super::script::Turn;
use super::sse::Format;

/// Each declared tool's name (when it has one) and input schema.
fn declared(format: Format, body: &Value) -> Vec<(Option<&str>, &Value)> {
    let Some(tools) = body["tools"].as_array() else {
        return Vec::new();
    };
    match format {
        Format::Chat => tools
            .iter()
            .map(|t| (t["function"]["name"].as_str(), &t["function"]["parameters"]))
            .collect(),
        Format::Responses => {
            let mut out = Vec::new();
            responses_functions(tools, &mut out);
            out
        }
        Format::Messages => tools
            .iter()
            .map(|t| (t["name"].as_str(), &t["input_schema"]))
            .collect(),
    }
}

/// The Responses API's tool types that carry no JSON schema: hosted
/// tools and a freeform `custom` tool with a grammar. A peer agent such
/// as Codex declares some of these beside its functions.
const SCHEMALESS_TOOL_TYPES: &[&str] = &[
    "web_search",
    "web_search_preview",
    "file_search",
    "code_interpreter",
    "computer_use_preview",
    "image_generation",
    "local_shell",
    "mcp",
    "custom",
];

/// The function tools of a Responses request, with those grouped in a
/// `namespace` tool; the schema-less types are skipped.
fn responses_functions<'a>(tools: &'a [Value], out: &mut Vec<(Option<&'a str>, &'a Value)>) {
    for tool in tools {
        match tool["type"].as_str() {
            Some("function") => out.push((tool["name"].as_str(), &tool["parameters"])),
            Some("namespace") => {
                if let Some(inner) = tool["tools"].as_array() {
                    responses_functions(inner, out);
                }
            }
            _ => {}
        }
    }
}

/// Tools of a Responses request whose `type` the API does not have (or
/// that have none): a client that left `"type": "function"` out.
fn unknown_tool_types(tools: &[Value], out: &mut Vec<String>) {
    for tool in tools {
        match tool["type"].as_str() {
            Some("function") => {}
            Some("namespace") => {
                if let Some(inner) = tool["tools"].as_array() {
                    unknown_tool_types(inner, out);
                }
            }
            Some(kind) if SCHEMALESS_TOOL_TYPES.contains(&kind) => {}
            kind => out.push(format!(
                "tool `{}` has type {kind:?}, which the Responses API does not have",
                tool["name"].as_str().unwrap_or("?")
            )),
        }
    }
}

/// Why `schema` is not a tool's input schema, if it is not one.
fn schema_problem(schema: &Value) -> Option<String> {
    if let Err(e) = jsonschema::meta::validate(schema) {
        return Some(format!("is not a valid JSON Schema: {e}"));
    }
    if schema["type"] != "object" {
        return Some(format!("is not an object schema: {schema}"));
    }
    None
}

/// The tool-call ids in a served SSE body (a recorded one, whose calls
/// the script does not list), in order.
pub fn call_ids_in(format: Format, events: &[String]) -> Vec<String> {
    let mut ids = Vec::new();
    for event in events {
        for line in event.lines() {
            let Some(data) = line.strip_prefix("data:") else {
                continue;
            };
            let Ok(data) = serde_json::from_str::<Value>(data.trim()) else {
                continue;
            };
            match format {
                Format::Chat => {
                    let choices = data["choices"].as_array().cloned().unwrap_or_default();
                    for choice in choices {
                        let calls = choice["delta"]["tool_calls"]
                            .as_array()
                            .cloned()
                            .unwrap_or_default();
                        ids.extend(
                            calls
                                .iter()
                                .filter_map(|c| c["id"].as_str())
                                .filter(|id| !id.is_empty())
                                .map(String::from),
                        );
                    }
                }
                Format::Responses => {
                    if data["type"] == "response.output_item.added"
                        && data["item"]["type"] == "function_call"
                    {
                        ids.extend(data["item"]["call_id"].as_str().map(String::from));
                    }
                }
                Format::Messages => {
                    if data["type"] == "content_block_start"
                        && data["content_block"]["type"] == "tool_use"
                    {
                        ids.extend(data["content_block"]["id"].as_str().map(String::from));
                    }
                }
            }
        }
    }
    ids
}

/// The items after the last one that `ends_turn` matches (all of them when
/// none does).
fn after_last(items: &[Value], ends_turn: impl Fn(&Value) -> bool) -> &[Value] {
    let start = items.iter().rposition(ends_turn).map_or(0, |i| i + 1);
    &items[start..]
}

/// The tool-result ids after the last assistant turn, in order.
pub fn tool_results(format: Format, body: &Value) -> Vec<String> {
    let empty = Vec::new();
    match format {
        Format::Chat => {
            let messages = body["messages"].as_array().unwrap_or(&empty);
            after_last(messages, |m| m["role"] == "assistant")
                .iter()
                .filter(|m| m["role"] == "tool")
                .filter_map(|m| m["tool_call_id"].as_str().map(String::from))
                .collect()
        }
        Format::Responses => {
            let items = body["input"].as_array().unwrap_or(&empty);
            after_last(items, |i| {
                i["type"] == "function_call" || i["role"] == "assistant"
            })
            .iter()
            .filter(|i| i["type"] == "function_call_output")
            .filter_map(|i| i["call_id"].as_str().map(String::from))
            .collect()
        }
        Format::Messages => {
            let messages = body["messages"].as_array().unwrap_or(&empty);
            after_last(messages, |m| m["role"] == "assistant")
                .iter()
                .filter_map(|m| m["content"].as_array())
                .flatten()
                .filter(|b| b["type"] == "tool_result")
                .filter_map(|b| b["tool_use_id"].as_str().map(String::from))
                .collect()
        }
    }
}

/// Problems with a request for `turn`; empty when it is as scripted.
/// `sent` holds the ids of the tool calls of the reply served before it.
pub fn problems(format: Format, body: &Value, turn: &Turn, sent: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let tools = declared(format, body);
    let declared: Vec<&str> = tools.iter().filter_map(|(name, _)| *name).collect();
    let called = turn
        .reply
        .tool_calls
        .iter()
        .filter(|c| !c.undeclared)
        .map(|c| &c.name);
    for tool in turn.expect_tools.iter().chain(called) {
        if !declared.contains(&tool.as_str()) {
            out.push(format!(
                "tool `{tool}` is not declared (declared: {declared:?})"
            ));
        }
    }
    if format == Format::Responses {
        if let Some(all) = body["tools"].as_array() {
            unknown_tool_types(all, &mut out);
        }
    }
    for (name, schema) in &tools {
        if let Some(problem) = schema_problem(schema) {
            let name = name.unwrap_or("?");
            out.push(format!("the schema of tool `{name}` {problem}"));
        }
    }
    let expected = match &turn.expect_tool_results {
        Some(ids) => Some(ids.as_slice()),
        None if turn.check_tool_results => Some(sent),
        None => None,
    };
    if let Some(expected) = expected {
        let results = tool_results(format, body);
        if results != expected {
            out.push(result_problem(expected, &results));
        }
    }
    out
}

/// Names what is wrong with the tool results: a missing one, an extra
/// one, the order, or an id the server never sent.
fn result_problem(expected: &[String], got: &[String]) -> String {
    let missing: Vec<&String> = expected.iter().filter(|id| !got.contains(id)).collect();
    let unknown: Vec<&String> = got.iter().filter(|id| !expected.contains(id)).collect();
    let what = if !unknown.is_empty() {
        format!("unknown tool result id(s) {unknown:?}")
    } else if !missing.is_empty() {
        format!("missing tool result(s) for {missing:?}")
    } else if got.len() != expected.len() {
        "a tool result sent more than once".to_string()
    } else {
        "tool results out of order".to_string()
    };
    format!("{what}: expected tool results {expected:?} in order, got {got:?}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_responses_request_is_checked_by_tool_type() {
        let body = json!({"tools": [
            {"type": "function", "name": "read", "parameters": {"type": "object"}},
            {"type": "namespace", "name": "agents", "tools": [
                {"type": "function", "name": "spawn", "parameters": {"type": "object"}}
            ]},
            {"type": "web_search", "external_web_access": false},
            {"name": "untyped", "parameters": {"type": "object"}},
        ]});
        let turn = Turn::default();
        let problems = problems(Format::Responses, &body, &turn, &[]);
        assert_eq!(
            problems,
            ["tool `untyped` has type None, which the Responses API does not have"]
        );
        let names: Vec<_> = declared(Format::Responses, &body)
            .into_iter()
            .filter_map(|(name, _)| name)
            .collect();
        assert_eq!(names, ["read", "spawn"]);
    }
}
