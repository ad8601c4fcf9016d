//! What the fake server checks in each request: the tools it declares and
//! the previous turn's tool results, in order.

use serde_json::Value;

use super::script::Turn;
use super::sse::Format;

fn names(list: Option<&Value>, pick: impl Fn(&Value) -> Option<&str>) -> Vec<String> {
    list.and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|t| pick(t).map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// Declared tool names.
pub fn tools(format: Format, body: &Value) -> Vec<String> {
    match format {
        Format::Chat => names(body.get("tools"), |t| t["function"]["name"].as_str()),
        Format::Responses | Format::Messages => names(body.get("tools"), |t| t["name"].as_str()),
    }
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
pub fn problems(format: Format, body: &Value, turn: &Turn) -> Vec<String> {
    let mut out = Vec::new();
    let declared = tools(format, body);
    for tool in &turn.expect_tools {
        if !declared.contains(tool) {
            out.push(format!(
                "tool `{tool}` is not declared (declared: {declared:?})"
            ));
        }
    }
    if let Some(expected) = &turn.expect_tool_results {
        let results = tool_results(format, body);
        if &results != expected {
            out.push(format!(
                "expected tool results {expected:?} in order, got {results:?}"
            ));
        }
    }
    out
}
