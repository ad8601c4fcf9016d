//! `tests.toml`: the plugin's example calls and what each must return,
//! run through the real runtime (check.rs). Each is passed, or failed
//! with a diff of what was expected and what came.
//!
//! ```toml
//! [[tool]]
//! name = "word_count"
//! args = { text = "one two three" }
//! output = "3 words"            # the whole output, or:
//! # contains = ["3"]            # pieces of it, or:
//! # error = "must be a string"  # the call fails, saying this
//!
//! [[command]]
//! path = ["count"]              # below the root
//! arg = "one two"
//! output = "2 words"
//!
//! [[prompt]]
//! block = "style"
//! request = "hello"
//! output = "Keep answers short."
//!
//! [[hook]]                      # pre-tool or user-prompt-submit
//! event = "pre-tool"
//! tool = "shell"
//! args = { command = "rm -rf /" }
//! output = "deny: no rm -rf"    # pass, context: …, deny: …, ask: …, rewrite: {…}
//!
//! [[http]]                      # a recorded response: requests are
//! url = "https://api.example.com/v1/items?q=one"   # answered from these,
//! body = '{"items": [1]}'       # never sent (method GET, status 200 unless said)
//! headers = { content-type = "application/json" }
//! ```

use amber_core::engine::Mode;
use amber_core::hooks::{Decision, HookContext, HookEvent, Payload};
use amber_core::ports::dialect::{ChatRequest, Message, Part, Role, SseEvent, StreamChunk};
use amber_core::ports::prompt::RenderContext;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::check::Loaded;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Examples {
    #[serde(default)]
    pub tool: Vec<ToolExample>,
    #[serde(default)]
    pub command: Vec<CommandExample>,
    #[serde(default)]
    pub prompt: Vec<PromptExample>,
    #[serde(default)]
    pub hook: Vec<HookExample>,
    #[serde(default)]
    pub parser: Vec<ParserExample>,
    #[serde(default)]
    pub provider: Vec<ProviderExample>,
    /// Recorded responses for the plugin's `http` requests: `amber
    /// plugin test` serves these and sends nothing (docs/permissions.md).
    #[serde(default)]
    pub http: Vec<amber_runtime::imports::http::fixtures::HttpFixture>,
}

/// A request built from one user message (`prompt`), shown as `METHOD
/// PATH` and its body; or a stream (`stream`, SSE text) decoded, one chunk
/// a line.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderExample {
    pub flavor: String,
    #[serde(default)]
    pub prompt: Option<String>,
    #[serde(default)]
    pub stream: Option<String>,
    #[serde(default = "example_model")]
    pub model: String,
    #[serde(flatten)]
    pub expect: Expect,
}

/// A source and its outline: one line per symbol, `KIND NAME FIRST-LAST`,
/// indented two spaces per level under its parent.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParserExample {
    pub language: String,
    pub source: String,
    #[serde(flatten)]
    pub expect: Expect,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptExample {
    pub block: String,
    #[serde(default)]
    pub request: String,
    #[serde(default = "example_model")]
    pub model: String,
    #[serde(flatten)]
    pub expect: Expect,
}

fn example_model() -> String {
    "example-model".into()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookExample {
    /// `pre-tool` or `user-prompt-submit`.
    pub event: String,
    #[serde(default)]
    pub tool: String,
    #[serde(default = "empty_object")]
    pub args: Value,
    #[serde(default)]
    pub prompt: String,
    #[serde(flatten)]
    pub expect: Expect,
}

/// What a call must give back.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    #[serde(default)]
    pub output: Option<String>,
    #[serde(default)]
    pub contains: Vec<String>,
    /// The call must fail, its message containing this.
    #[serde(default)]
    pub error: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolExample {
    pub name: String,
    #[serde(default = "empty_object")]
    pub args: Value,
    #[serde(flatten)]
    pub expect: Expect,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandExample {
    #[serde(default)]
    pub path: Vec<String>,
    #[serde(default)]
    pub arg: String,
    #[serde(flatten)]
    pub expect: Expect,
}

fn empty_object() -> Value {
    Value::Object(Default::default())
}

/// One example's outcome.
#[derive(Debug, Serialize)]
pub struct Outcome {
    pub example: String,
    pub passed: bool,
    /// Why it failed: a diff of expected (`-`) and got (`+`), or the error.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub diff: String,
}

/// Runs every example against the loaded plugin.
pub fn run(examples: &Examples, loaded: &Loaded) -> Vec<Outcome> {
    let ledger = loaded.manager.runtime().ledger();
    let mut out = Vec::new();
    for example in &examples.tool {
        let label = format!("tool {} {}", example.name, example.args);
        let (got, logged) = logged_during(&loaded.log, || match ledger.tool(&example.name) {
            Some(tool) => tool
                .call(&example.args)
                .map(|o| o.content)
                .map_err(|e| e.to_string()),
            None => Err(format!("the plugin has no tool `{}`", example.name)),
        });
        out.push(judge(label, &example.expect, got).with_log(logged));
    }
    for example in &examples.command {
        let label = format!("command {} {}", example.path.join(" "), example.arg);
        let (got, logged) = logged_during(&loaded.log, || {
            match ledger.owned_commands().into_iter().next() {
                Some((_, tree)) => {
                    let mut path = vec![tree.root().root.clone()];
                    path.extend(example.path.iter().cloned());
                    tree.run(&path, &example.arg).map_err(|e| e.to_string())
                }
                None => Err("the plugin has no command tree".into()),
            }
        });
        out.push(judge(label, &example.expect, got).with_log(logged));
    }
    for example in &examples.prompt {
        let label = format!("prompt {} {:?}", example.block, example.request);
        let block = ledger
            .prompt_blocks()
            .into_iter()
            .find(|b| b.spec().name == example.block);
        let got = match block {
            Some(block) => block
                .render(&RenderContext {
                    workspace: None,
                    request: example.request.clone(),
                    model: example.model.clone(),
                })
                .map_err(|e| e.to_string()),
            None => Err(format!(
                "the plugin has no prompt block `{}`",
                example.block
            )),
        };
        out.push(judge(label, &example.expect, got));
    }
    for example in &examples.provider {
        let (label, got) = provider_example(example, ledger);
        out.push(judge(label, &example.expect, got));
    }
    for example in &examples.parser {
        let label = format!(
            "parser {} ({} bytes)",
            example.language,
            example.source.len()
        );
        let got = match ledger.parser(&example.language) {
            Some(parser) => parser
                .outline(&example.source)
                .map(|symbols| outline_text(&symbols))
                .map_err(|e| e.to_string()),
            None => Err(format!(
                "the plugin parses no language `{}`",
                example.language
            )),
        };
        out.push(judge(label, &example.expect, got));
    }
    for example in &examples.hook {
        let (label, got) = hook_example(example, ledger);
        out.push(judge(label, &example.expect, got));
    }
    out
}

fn provider_example(
    example: &ProviderExample,
    ledger: &amber_core::Ledger,
) -> (String, Result<String, String>) {
    let Some(dialect) = ledger.provider(&example.flavor) else {
        return (
            format!("provider {}", example.flavor),
            Err(format!("the plugin serves no flavor `{}`", example.flavor)),
        );
    };
    if let Some(prompt) = &example.prompt {
        let request = ChatRequest {
            flavor: example.flavor.clone(),
            model: example.model.clone(),
            messages: vec![Message {
                role: Role::User,
                parts: vec![Part::Text {
                    text: prompt.clone(),
                }],
            }],
            tools: Vec::new(),
            max_tokens: None,
            temperature: None,
            cache_breakpoint: None,
        };
        let got = dialect
            .build_request(&request)
            .map(|r| format!("{} {}\n{}", r.method, r.path, r.body))
            .map_err(|e| e.to_string());
        return (
            format!("provider {} request {prompt:?}", example.flavor),
            got,
        );
    }
    let label = format!("provider {} stream", example.flavor);
    let Some(stream) = &example.stream else {
        return (
            label,
            Err("a [[provider]] example needs `prompt` or `stream`".into()),
        );
    };
    let events = sse_events(stream);
    let got = dialect
        .decoder()
        .and_then(|mut d| {
            let mut chunks = d.decode(&events)?;
            chunks.extend(d.finish()?);
            Ok(chunks)
        })
        .map(|chunks| chunks.iter().map(chunk_text).collect::<Vec<_>>().join("\n"))
        .map_err(|e| e.to_string());
    (label, got)
}

/// The events of SSE text: blank lines between them, `event:` and `data:`
/// fields (several data lines joined by newlines).
fn sse_events(text: &str) -> Vec<SseEvent> {
    text.split("\n\n")
        .filter_map(|block| {
            let mut event = None;
            let mut data: Vec<&str> = Vec::new();
            for line in block.lines() {
                if let Some(name) = line.strip_prefix("event:") {
                    event = Some(name.trim().to_string());
                } else if let Some(d) = line.strip_prefix("data:") {
                    data.push(d.strip_prefix(' ').unwrap_or(d));
                }
            }
            (!data.is_empty()).then(|| SseEvent {
                event,
                data: data.join("\n"),
            })
        })
        .collect()
}

fn chunk_text(chunk: &StreamChunk) -> String {
    match chunk {
        StreamChunk::TextDelta(t) => format!("text {t}"),
        StreamChunk::ReasoningDelta(r) => format!("reasoning {}", r.text),
        StreamChunk::ToolCallStart { index, id, name } => format!("call-start {index} {id} {name}"),
        StreamChunk::ToolCallDelta { index, arguments } => format!("call-args {index} {arguments}"),
        StreamChunk::ToolCallEnd(index) => format!("call-end {index}"),
        StreamChunk::Usage(u) => format!("usage {} {}", u.input_tokens, u.output_tokens),
        StreamChunk::Stop(reason) => {
            let name = serde_json::to_value(reason)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default();
            format!("stop {name}")
        }
        StreamChunk::Error { kind, message, .. } => format!("error {kind}: {message}"),
        StreamChunk::Restart { attempt, .. } => format!("restart {attempt}"),
    }
}

/// An outline as the examples write it.
fn outline_text(symbols: &[amber_core::ports::parser::Symbol]) -> String {
    let depth = |mut at: usize| {
        let mut d = 0;
        while let Some(parent) = symbols.get(at).and_then(|s| s.parent) {
            d += 1;
            at = parent as usize;
            if d > symbols.len() {
                break;
            }
        }
        d
    };
    symbols
        .iter()
        .enumerate()
        .map(|(i, s)| {
            format!(
                "{}{} {} {}-{}",
                "  ".repeat(depth(i)),
                s.kind,
                s.name,
                s.line_start,
                s.line_end
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// One hook example: the event's payload to every hook of the plugin
/// for it, and the decision as text.
fn hook_example(
    example: &HookExample,
    ledger: &amber_core::Ledger,
) -> (String, Result<String, String>) {
    let (event, payload, label) = match example.event.as_str() {
        "pre-tool" => (
            HookEvent::PreTool,
            Payload::PreTool {
                tool: example.tool.clone(),
                args: example.args.clone(),
            },
            format!("hook pre-tool {} {}", example.tool, example.args),
        ),
        "user-prompt-submit" => (
            HookEvent::UserPromptSubmit,
            Payload::UserPromptSubmit {
                prompt: example.prompt.clone(),
            },
            format!("hook user-prompt-submit {:?}", example.prompt),
        ),
        other => {
            return (
                format!("hook {other}"),
                Err(format!(
                "tests.toml runs `pre-tool` and `user-prompt-submit` hook examples, not `{other}`"
            )),
            )
        }
    };
    let ctx = HookContext {
        session_id: "plugin-test".into(),
        agent: "main".into(),
        mode: Mode::Write,
        workspace: None,
    };
    let Some(hook) = ledger.hooks(event).into_iter().next() else {
        return (
            label,
            Err(format!("the plugin handles no `{}` event", example.event)),
        );
    };
    let got = hook
        .handle(&ctx, &payload)
        .map(|d| match d {
            Decision::Pass => "pass".to_string(),
            Decision::Context(t) => format!("context: {t}"),
            Decision::Deny(t) => format!("deny: {t}"),
            Decision::Ask(t) => format!("ask: {t}"),
            Decision::Approve => "approve".to_string(),
            Decision::Rewrite(v) => format!("rewrite: {v}"),
            Decision::Flag(t) => format!("flag: {t}"),
            Decision::Focus(t) => format!("focus: {t}"),
            Decision::Skip(t) => format!("skip: {t}"),
            Decision::Continue(t) => format!("continue: {t}"),
        })
        .map_err(|e| e.to_string());
    (label, got)
}

/// The lines a failed example shows from the plugin's log at most.
const LOG_LINES: usize = 8;

/// `call`'s result and the lines the plugin's log gained during it: a
/// `fetch` that fails says only "NetworkError", while the log says "http
/// refused: no [[http]] fixture … answers GET …".
fn logged_during(
    log: &std::path::Path,
    call: impl FnOnce() -> Result<String, String>,
) -> (Result<String, String>, Vec<String>) {
    let before = std::fs::metadata(log).map(|m| m.len()).unwrap_or(0);
    let got = call();
    let lines = std::fs::read(log)
        .ok()
        .and_then(|bytes| bytes.get(before as usize..).map(<[u8]>::to_vec))
        .map(|new| {
            let text = String::from_utf8_lossy(&new).into_owned();
            let lines: Vec<String> = text.lines().map(str::to_string).collect();
            lines[lines.len().saturating_sub(LOG_LINES)..].to_vec()
        })
        .unwrap_or_default();
    (got, lines)
}

impl Outcome {
    /// A failure shows what the plugin logged meanwhile.
    fn with_log(mut self, lines: Vec<String>) -> Outcome {
        if !self.passed && !lines.is_empty() {
            self.diff.push_str("\nthe plugin's log meanwhile:");
            for line in lines {
                self.diff.push_str("\n  ");
                self.diff.push_str(&line);
            }
        }
        self
    }
}

fn judge(example: String, expect: &Expect, got: Result<String, String>) -> Outcome {
    let diff = match (&expect.error, &got) {
        (Some(want), Err(error)) if error.contains(want.as_str()) => String::new(),
        (Some(want), Err(error)) => diff(
            &format!("an error containing: {want}"),
            &format!("the error: {error}"),
        ),
        (Some(want), Ok(text)) => diff(&format!("an error containing: {want}"), text),
        (None, Err(error)) => format!("the call failed: {error}"),
        (None, Ok(text)) => {
            let mut why = String::new();
            if let Some(want) = &expect.output {
                if want != text {
                    why = diff(want, text);
                }
            }
            for piece in &expect.contains {
                if why.is_empty() && !text.contains(piece.as_str()) {
                    why = format!("the output lacks {piece:?}:\n{}", indent(text));
                }
            }
            why
        }
    };
    Outcome {
        example,
        passed: diff.is_empty(),
        diff,
    }
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("  {l}\n")).collect()
}

/// Expected and got, line by line: `-` only expected, `+` only got, ` `
/// both, in order; nothing when both are empty.
pub fn diff(expected: &str, got: &str) -> String {
    amber_core::text::line_diff(expected, got)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_diff_marks_what_was_expected_and_what_came() {
        assert_eq!(
            diff("3 words\nok", "4 words\nok"),
            "+ 4 words\n- 3 words\n  ok\n"
        );
        let want = Expect {
            output: Some("3 words".into()),
            ..Expect::default()
        };
        assert!(judge("x".into(), &want, Ok("3 words".into())).passed);
        let failed = judge("x".into(), &want, Err("boom".into()));
        assert_eq!(failed.diff, "the call failed: boom");
        let error = Expect {
            error: Some("must be".into()),
            ..Expect::default()
        };
        assert!(judge("x".into(), &error, Err("`text` must be a string".into())).passed);
        assert!(!judge("x".into(), &error, Ok("fine".into())).passed);
    }
}
