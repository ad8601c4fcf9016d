//! What the fake server checks in each request, always: the tool results
//! answer the tool calls it sent in the reply before (one per call, in
//! order, with the same ids), every tool the script's reply calls and
//! every tool the script expects is declared, every declared tool's
//! schema is a valid JSON Schema of an object, and every image is in the
//! vendor's shape (images.rs), as many as the script expects.

use serde_json::Value;

use super::script::Turn;
use super::sse::Format;
use super::wire::{Item, Request, StreamData, Tool};

/// The JSON Schema keyword of a schema's type.
const TYPE: &str = "type";

/// Each declared tool's name (when it has one) and input schema.
fn declared(format: Format, request: &Request) -> Vec<(Option<&str>, &Value)> {
    let tools = &request.tools;
    match format {
        Format::Chat => tools
            .iter()
            .filter_map(|t| t.function.as_ref())
            .map(|f| (f.name.as_deref(), &f.parameters))
            .collect(),
        Format::Responses => {
            let mut out = Vec::new();
            responses_functions(tools, &mut out);
            out
        }
        Format::Messages => tools
            .iter()
            .map(|t| (t.name.as_deref(), &t.input_schema))
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
fn responses_functions<'a>(tools: &'a [Tool], out: &mut Vec<(Option<&'a str>, &'a Value)>) {
    for tool in tools {
        match tool.kind.as_deref() {
            Some("function") => out.push((tool.name.as_deref(), &tool.parameters)),
            Some("namespace") => responses_functions(&tool.tools, out),
            _ => {}
        }
    }
}

/// Tools of a Responses request whose `type` the API does not have (or
/// that have none): a client that left `"type": "function"` out.
fn unknown_tool_types(tools: &[Tool], out: &mut Vec<String>) {
    for tool in tools {
        match tool.kind.as_deref() {
            Some("function") => {}
            Some("namespace") => unknown_tool_types(&tool.tools, out),
            Some(kind) if SCHEMALESS_TOOL_TYPES.contains(&kind) => {}
            kind => out.push(format!(
                "tool `{}` has type {kind:?}, which the Responses API does not have",
                tool.name.as_deref().unwrap_or("?")
            )),
        }
    }
}

/// Why `schema` is not a tool's input schema, if it is not one.
fn schema_problem(schema: &Value) -> Option<String> {
    if let Err(e) = jsonschema::meta::validate(schema) {
        return Some(format!("is not a valid JSON Schema: {e}"));
    }
    if schema.get(TYPE).and_then(Value::as_str) != Some("object") {
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
            let Ok(data) = serde_json::from_str::<StreamData>(data.trim()) else {
                continue;
            };
            match format {
                Format::Chat => ids.extend(
                    data.choices
                        .into_iter()
                        .flat_map(|c| c.delta.tool_calls)
                        .filter_map(|c| c.id)
                        .filter(|id| !id.is_empty()),
                ),
                Format::Responses => {
                    if data.kind.as_deref() == Some("response.output_item.added") {
                        ids.extend(
                            data.item
                                .filter(|i| i.is("function_call"))
                                .and_then(|i| i.call_id),
                        );
                    }
                }
                Format::Messages => {
                    if data.kind.as_deref() == Some("content_block_start") {
                        ids.extend(
                            data.content_block
                                .filter(|b| b.is("tool_use"))
                                .and_then(|b| b.id),
                        );
                    }
                }
            }
        }
    }
    ids
}

/// The items after the last one that `ends_turn` matches (all of them when
/// none does).
fn after_last(items: &[Item], ends_turn: impl Fn(&Item) -> bool) -> &[Item] {
    let start = items.iter().rposition(ends_turn).map_or(0, |i| i + 1);
    &items[start..]
}

/// The tool-result ids after the last assistant turn, in order.
fn tool_results(format: Format, request: &Request) -> Vec<String> {
    match format {
        Format::Chat => after_last(&request.messages, |m| m.from("assistant"))
            .iter()
            .filter(|m| m.from("tool"))
            .filter_map(|m| m.tool_call_id.clone())
            .collect(),
        Format::Responses => after_last(&request.input, |i| {
            i.is("function_call") || i.from("assistant")
        })
        .iter()
        .filter(|i| i.is("function_call_output"))
        .filter_map(|i| i.call_id.clone())
        .collect(),
        Format::Messages => after_last(&request.messages, |m| m.from("assistant"))
            .iter()
            .flat_map(|m| &m.content)
            .filter(|b| b.is("tool_result"))
            .filter_map(|b| b.tool_use_id.clone())
            .collect(),
    }
}

/// Problems with a request for `turn`; empty when it is as scripted.
/// `sent` holds the ids of the tool calls of the reply served before it.
pub fn problems(format: Format, body: &Value, turn: &Turn, sent: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let request = Request::read(body);
    let tools = declared(format, &request);
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
        unknown_tool_types(&request.tools, &mut out);
    }
    for (name, schema) in &tools {
        if let Some(problem) = schema_problem(schema) {
            let name = name.unwrap_or("?");
            out.push(format!("the schema of tool `{name}` {problem}"));
        }
    }
    let (images, image_problems) = super::images::images_in(format, body);
    out.extend(image_problems);
    if let Some(n) = turn.expect_images {
        if images != n {
            out.push(format!(
                "expected {n} image(s) in the vendor's shape, found {images}"
            ));
        }
    }
    let expected = match &turn.expect_tool_results {
        Some(ids) => Some(ids.as_slice()),
        None if turn.check_tool_results => Some(sent),
        None => None,
    };
    if let Some(expected) = expected {
        let results = tool_results(format, &request);
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
        let request = Request::read(&body);
        let names: Vec<_> = declared(Format::Responses, &request)
            .into_iter()
            .filter_map(|(name, _)| name)
            .collect();
        assert_eq!(names, ["read", "spawn"]);
    }
}
