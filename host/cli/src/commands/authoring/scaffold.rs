//! `amber plugin new NAME --lang L --kind K`: a plugin folder that builds
//! and passes `amber plugin test` as it is, offline and anywhere: its
//! descriptor, one working example of the kind, a README and `tests.toml`.
//! A Rust plugin's SDK dependency points at the SDK the installed amber
//! carries (sdk.rs), so no repository is fetched.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::{check_id, sdk, Kind, Lang, DESCRIPTOR, EXAMPLES};

/// Writes the plugin `id` into `parent/id`; returns the folder.
pub fn create(parent: &Path, id: &str, lang: Lang, kind: Kind) -> Result<PathBuf> {
    check_id(id)?;
    let files = files(id, lang, kind)?;
    let dir = parent.join(id);
    if dir.exists()
        && std::fs::read_dir(&dir)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        bail!("{} already exists and is not empty", dir.display());
    }
    for (path, text) in files {
        let file = dir.join(path);
        if let Some(folder) = file.parent() {
            std::fs::create_dir_all(folder)
                .with_context(|| format!("cannot make {}", folder.display()))?;
        }
        std::fs::write(&file, text).with_context(|| format!("cannot write {}", file.display()))?;
    }
    Ok(dir)
}

/// `word-count` → `word_count` (a tool name) and `WordCount` (a class).
fn names(id: &str) -> (String, String) {
    let snake = id.replace('-', "_");
    let camel = id
        .split(['-', '_'])
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect::<String>();
    let camel = if camel.starts_with(|c: char| c.is_ascii_digit()) {
        format!("P{camel}")
    } else {
        camel
    };
    (snake, camel)
}

fn fill(template: &str, id: &str) -> String {
    let (snake, camel) = names(id);
    template
        .replace("{{id}}", id)
        .replace("{{snake}}", &snake)
        .replace("{{Camel}}", &camel)
}

fn files(id: &str, lang: Lang, kind: Kind) -> Result<Vec<(&'static str, String)>> {
    let descriptor = format!(
        "# What `amber plugin build` and `amber plugin test` read.\n[plugin]\nid = \"{id}\"\nlang = \"{}\"\nkind = \"{}\"\n{}",
        lang.name(),
        kind.name(),
        match lang {
            Lang::Python => "entry = \"app\"\n",
            Lang::Js => "entry = \"plugin.js\"\n",
            Lang::Rust | Lang::C => "",
        }
    );
    let mut out = vec![
        (DESCRIPTOR, descriptor),
        ("README.md", fill(&readme(lang, kind), id)),
    ];
    // One source from the table of languages and kinds, the kind's
    // examples, and what the language's project needs beside them.
    let template = match (lang, kind) {
        (Lang::C, _) => bail!(
            "there is no C scaffold: start from sdk/examples/c, whose README says how it is built"
        ),
        (Lang::Rust, Kind::Tool) => RUST_TOOL,
        (Lang::Rust, Kind::Command) => RUST_COMMAND,
        (Lang::Rust, Kind::Prompt) => RUST_PROMPT,
        (Lang::Rust, Kind::Hook) => RUST_HOOK,
        (Lang::Rust, Kind::Provider) => RUST_PROVIDER,
        (Lang::Rust, Kind::Parser) => RUST_PARSER,
        (Lang::Python, Kind::Tool) => PYTHON_TOOL,
        (Lang::Python, Kind::Command) => PYTHON_COMMAND,
        (Lang::Python, Kind::Prompt) => PYTHON_PROMPT,
        (Lang::Python, Kind::Hook) => PYTHON_HOOK,
        (Lang::Python, Kind::Provider) => PYTHON_PROVIDER,
        (Lang::Python, Kind::Parser) => PYTHON_PARSER,
        (Lang::Js, Kind::Tool) => JS_TOOL,
        (Lang::Js, Kind::Command) => JS_COMMAND,
        (Lang::Js, Kind::Prompt) => JS_PROMPT,
        (Lang::Js, Kind::Hook) => JS_HOOK,
        (Lang::Js, Kind::Provider) => JS_PROVIDER,
        (Lang::Js, Kind::Parser) => JS_PARSER,
    };
    let examples = match kind {
        Kind::Tool => TOOL_EXAMPLES,
        Kind::Command => COMMAND_EXAMPLES,
        Kind::Prompt => PROMPT_EXAMPLES,
        Kind::Hook => HOOK_EXAMPLES,
        Kind::Provider => PROVIDER_EXAMPLES,
        Kind::Parser => PARSER_EXAMPLES,
    };
    let source = match lang {
        Lang::Python => "app.py",
        Lang::Js => "plugin.js",
        Lang::Rust | Lang::C => "src/lib.rs",
    };
    out.push((source, fill(template, id)));
    out.push((EXAMPLES, fill(examples, id)));
    match lang {
        Lang::Rust => out.extend(rust_project(id)?),
        Lang::Js => {
            out.extend(js_sdk_files()?);
            out.push((".gitignore", "/dist\n".into()));
        }
        Lang::Python => out.push((".gitignore", "/dist\n__pycache__/\n".into())),
        Lang::C => {}
    }
    Ok(out)
}

/// A Rust plugin's Cargo.toml, its `amber-sdk` a path into the SDK the
/// installed amber carries, and its .gitignore.
fn rust_project(id: &str) -> Result<Vec<(&'static str, String)>> {
    let sdk = sdk::dir()?.join("rust");
    let sdk = sdk.canonicalize().unwrap_or(sdk);
    let manifest = fill(RUST_CARGO, id).replace("{{sdk}}", &sdk.display().to_string());
    Ok(vec![
        ("Cargo.toml", manifest),
        (".gitignore", "/target\n/dist\n".into()),
    ])
}

/// The SDK module and the WIT's declarations a JavaScript plugin keeps
/// beside its source.
fn js_sdk_files() -> Result<Vec<(&'static str, String)>> {
    let js = sdk::dir()?.join("js");
    [super::build::JS_SDK, super::build::JS_TYPES]
        .into_iter()
        .map(|name| {
            let path = js.join(name);
            std::fs::read_to_string(&path)
                .map(|text| (name, text))
                .with_context(|| format!("cannot read the JavaScript SDK's {}", path.display()))
        })
        .collect()
}

fn readme(lang: Lang, kind: Kind) -> String {
    format!(
        "# {{{{id}}}}\n\nAn amber {} plugin in {}.\n\n```sh\namber plugin build        # -> dist/{{{{id}}}}.wasm, checked\namber plugin test         # runs the examples of {EXAMPLES} through amber's runtime\namber plugin add dist/{{{{id}}}}.wasm\n```\n\nEach `[[tool]]` of {EXAMPLES} calls a tool with `args` and expects its\n`output` (or `contains`, or an `error`). See docs/plugin-authoring.md.\n",
        kind.name(),
        match lang {
            Lang::Rust => "Rust",
            Lang::Python => "Python",
            Lang::Js => "JavaScript",
            Lang::C => "C",
        }
    )
}

const TOOL_EXAMPLES: &str = r#"# Example calls and what they return: `amber plugin test` runs each.
[[tool]]
name = "{{snake}}"
args = { text = "one two three" }
output = "3 words"

[[tool]]
name = "{{snake}}"
args = { text = "" }
output = "0 words"
"#;

const PYTHON_TOOL: &str = r#""""{{id}}: an amber tool plugin in Python (docs/sdk-python.md)."""

from amber_sdk import Manifest
from amber_sdk.tool import InvalidArgs, ToolPlugin, ToolSpec


class {{Camel}}(ToolPlugin):
    manifest = Manifest(
        id="{{id}}",
        version="0.1.0",
        description="Counts the words of a text.",
    )
    tools = [
        ToolSpec(
            "{{snake}}",
            "Count the words of a text.",
            {
                "type": "object",
                "properties": {"text": {"type": "string", "description": "The text to count."}},
                "required": ["text"],
            },
            read_only=True,
        )
    ]

    def call(self, name, args):
        text = args.get("text")
        if not isinstance(text, str):
            raise InvalidArgs("`text` must be a string")
        return f"{len(text.split())} words"


# componentize-py looks for these two classes in this module.
Plugin, Tool = {{Camel}}.export()
"#;

const JS_TOOL: &str = r#"// {{id}}: an amber tool plugin in JavaScript (docs/sdk-js.md).
import { defineTool, InvalidArgs } from "./amber-sdk.js";

// componentize-js looks for these two exports: `plugin` and `tool`.
export const { plugin, tool } = defineTool({
  manifest: {
    id: "{{id}}",
    version: "0.1.0",
    description: "Counts the words of a text.",
  },
  tools: [
    {
      name: "{{snake}}",
      description: "Count the words of a text.",
      schema: {
        type: "object",
        properties: { text: { type: "string", description: "The text to count." } },
        required: ["text"],
      },
      readOnly: true,
    },
  ],
  call(name, args) {
    if (typeof args.text !== "string") {
      throw new InvalidArgs("`text` must be a string");
    }
    const words = args.text.split(/\s+/).filter(Boolean).length;
    return `${words} words`;
  },
});
"#;

const COMMAND_EXAMPLES: &str = r#"# Example commands and what they print: `amber plugin test` runs each.
# `/{{id}} count one two three` is path ["count"] and arg "one two three".
[[command]]
path = ["count"]
arg = "one two three"
output = "3 words"

[[command]]
path = ["count"]
arg = ""
output = "0 words"
"#;

const PROMPT_EXAMPLES: &str = r#"# Example renders and what they give: `amber plugin test` runs each.
[[prompt]]
block = "{{snake}}"
request = "Why does the build fail?"
output = "Keep answers short: the user asked 5 words."

[[prompt]]
block = "{{snake}}"
request = ""
output = ""
"#;

const HOOK_EXAMPLES: &str = r#"# Example events and the hook's decisions: `amber plugin test` runs each.
[[hook]]
event = "pre-tool"
tool = "shell"
args = { command = "rm -rf build" }
output = "deny: {{id}} refuses rm -rf"

[[hook]]
event = "pre-tool"
tool = "shell"
args = { command = "ls" }
output = "pass"
"#;

const PYTHON_COMMAND: &str = r#""""{{id}}: an amber slash command in Python: `/{{id}} count TEXT`."""

from amber_sdk import Manifest
from amber_sdk.command import CommandPlugin, Node


class {{Camel}}(CommandPlugin):
    manifest = Manifest(id="{{id}}", version="0.1.0", description="Counts words.")
    root = "{{id}}"
    help = "Count things."
    nodes = [Node("count", "Count the words after the command.")]

    def run(self, path, arg):
        if path == ["count"]:
            return f"{len(arg.split())} words"
        raise ValueError(f"no command {' '.join(path)}")


# componentize-py looks for these two classes in this module.
Plugin, Command = {{Camel}}.export()
"#;

const PYTHON_PROMPT: &str = r#""""{{id}}: an amber prompt block in Python."""

from amber_sdk import Manifest
from amber_sdk.prompt import Block, PromptPlugin


class {{Camel}}(PromptPlugin):
    manifest = Manifest(id="{{id}}", version="0.1.0", description="Asks for short answers.")
    blocks = [Block("{{snake}}", position="head", priority=50)]

    def render(self, block, request, model, workspace):
        if not request:
            return ""  # an empty block is left out
        return f"Keep answers short: the user asked {len(request.split())} words."


# componentize-py looks for these two classes in this module.
Plugin, Prompt = {{Camel}}.export()
"#;

const PYTHON_HOOK: &str = r#""""{{id}}: an amber hook in Python: refuses `rm -rf` in shell calls."""

import json

from amber_sdk import Manifest
from amber_sdk.hook import HookPlugin, On, allow_tool, deny


class {{Camel}}(HookPlugin):
    manifest = Manifest(id="{{id}}", version="0.1.0", description="Refuses rm -rf.")
    hooks = [On("pre-tool", matcher="shell")]

    def pre_tool(self, ctx, call):
        command = json.loads(call.args_json).get("command", "")
        if "rm -rf" in command:
            return deny("{{id}} refuses rm -rf")
        return allow_tool()


# componentize-py looks for these two classes in this module.
Plugin, Hook = {{Camel}}.export()
"#;

const JS_COMMAND: &str = r#"// {{id}}: an amber slash command in JavaScript: `/{{id}} count TEXT`.
import { defineCommand } from "./amber-sdk.js";

// componentize-js looks for these two exports: `plugin` and `command`.
export const { plugin, command } = defineCommand({
  manifest: { id: "{{id}}", version: "0.1.0", description: "Counts words." },
  root: "{{id}}",
  help: "Count things.",
  nodes: [{ name: "count", help: "Count the words after the command." }],
  run(path, arg) {
    if (path.join(" ") === "count") {
      return `${arg.split(/\s+/).filter(Boolean).length} words`;
    }
    throw new Error(`no command ${path.join(" ")}`);
  },
});
"#;

const JS_PROMPT: &str = r#"// {{id}}: an amber prompt block in JavaScript.
import { definePrompt } from "./amber-sdk.js";

// componentize-js looks for these two exports: `plugin` and `prompt`.
export const { plugin, prompt } = definePrompt({
  manifest: { id: "{{id}}", version: "0.1.0", description: "Asks for short answers." },
  blocks: [{ name: "{{snake}}", position: "head", priority: 50 }],
  render(block, ctx) {
    if (!ctx.request) return ""; // an empty block is left out
    const words = ctx.request.split(/\s+/).filter(Boolean).length;
    return `Keep answers short: the user asked ${words} words.`;
  },
});
"#;

const JS_HOOK: &str = r#"// {{id}}: an amber hook in JavaScript: refuses `rm -rf` in shell calls.
import { defineHook } from "./amber-sdk.js";

// componentize-js looks for these two exports: `plugin` and `hook`.
export const { plugin, hook } = defineHook({
  manifest: { id: "{{id}}", version: "0.1.0", description: "Refuses rm -rf." },
  hooks: [{ event: "pre-tool", matcher: "shell" }],
  preTool(ctx, call) {
    const command = JSON.parse(call.argsJson).command || "";
    if (command.includes("rm -rf")) {
      return { tag: "deny", val: "{{id}} refuses rm -rf" };
    }
    return { tag: "allow" };
  },
});
"#;

const RUST_COMMAND: &str = r#"//! {{id}}: an amber slash command in Rust: `/{{id}} count TEXT`.
use amber_sdk::prelude::*;
use amber_sdk::CommandSpec;

#[derive(Default)]
struct {{Camel}};

fn tree() -> CommandSpec {
    CommandSpec::new("{{id}}", "Count things.")
        .child(CommandSpec::new("count", "Count the words after the command.").with_handler())
}

impl Plugin for {{Camel}} {
    fn manifest() -> Manifest {
        amber_sdk::manifest!(id: "{{id}}")
    }
}

impl CommandPlugin for {{Camel}} {
    fn roots(&self) -> Vec<CommandRoot> {
        vec![tree().root()]
    }

    fn spec(&mut self, _root: &str) -> Vec<CommandNode> {
        tree().nodes()
    }

    fn run(&mut self, path: Vec<String>, arg: &str) -> Result<String, String> {
        // The path starts at the root: ["{{id}}", "count"].
        match path.get(1).map(String::as_str) {
            Some("count") => Ok(format!("{} words", arg.split_whitespace().count())),
            _ => Err(format!("no command {}", path.join(" "))),
        }
    }
}

amber_sdk::export!({{Camel}}: command);
"#;

const RUST_PROMPT: &str = r#"//! {{id}}: an amber prompt block in Rust.
use amber_sdk::prelude::*;
use amber_sdk::{BlockPosition, BlockSpec, RenderContext};

#[derive(Default)]
struct {{Camel}};

impl Plugin for {{Camel}} {
    fn manifest() -> Manifest {
        amber_sdk::manifest!(id: "{{id}}")
    }
}

impl PromptPlugin for {{Camel}} {
    fn blocks(&self) -> Vec<BlockSpec> {
        vec![BlockSpec {
            name: "{{snake}}".into(),
            position: BlockPosition::Head,
            priority: 50,
        }]
    }

    fn render(&mut self, _block: &str, ctx: RenderContext) -> Result<String, String> {
        if ctx.request.is_empty() {
            return Ok(String::new()); // an empty block is left out
        }
        let words = ctx.request.split_whitespace().count();
        Ok(format!("Keep answers short: the user asked {words} words."))
    }
}

amber_sdk::export!({{Camel}}: prompt);
"#;

const RUST_HOOK: &str = r#"//! {{id}}: an amber hook in Rust: refuses `rm -rf` in shell calls.
use amber_sdk::prelude::*;

#[derive(Default)]
struct {{Camel}};

impl Plugin for {{Camel}} {
    fn manifest() -> Manifest {
        amber_sdk::manifest!(id: "{{id}}")
    }
}

impl HookPlugin for {{Camel}} {
    fn hooks(&self) -> Vec<HookSpec> {
        vec![HookSpec::on(HookEvent::PreTool).matching("shell")]
    }

    fn pre_tool(&mut self, _ctx: &HookContext, call: HookToolCall) -> Result<PreToolDecision, String> {
        let args: Value = amber_sdk::serde_json::from_str(&call.args_json).unwrap_or(Value::Null);
        let command = args["command"].as_str().unwrap_or_default();
        if command.contains("rm -rf") {
            return Ok(PreToolDecision::Deny("{{id}} refuses rm -rf".into()));
        }
        Ok(PreToolDecision::Allow)
    }
}

amber_sdk::export!({{Camel}}: hook);
"#;

const PROVIDER_EXAMPLES: &str = r#"# A request built, and a stream decoded: `amber plugin test` runs each.
# A request is shown as "METHOD PATH" and its body; a stream's chunks one
# a line: text …, stop …, usage IN OUT, call-start/call-args/call-end, error ….
[[provider]]
flavor = "{{id}}"
prompt = "Say hi."
output = """
POST /chat/completions
{"messages":[{"content":"Say hi.","role":"user"}],"model":"example-model","stream":true}"""

[[provider]]
flavor = "{{id}}"
stream = """
data: {"choices":[{"delta":{"content":"Hel"}}]}

data: {"choices":[{"delta":{"content":"lo"},"finish_reason":"stop"}]}

data: [DONE]

"""
output = """
text Hello
stop end_turn"""

# Text that is not ASCII, and an event that is not JSON.
[[provider]]
flavor = "{{id}}"
stream = """
data: {"choices":[{"delta":{"content":"Grüße, "}}]}

data: {"choices":[{"delta":{"content":"✓"},"finish_reason":"length"}]}

data: oops

"""
output = """
text Grüße, ✓
stop max_tokens
error decode: not JSON: oops"""
"#;

const RUST_PROVIDER: &str = r#"//! {{id}}: an amber provider plugin in Rust: a wire dialect for an
//! OpenAI-style chat API, text only (no tools, no reasoning). The host
//! owns HTTP, the base URL and the key; this shapes the request and
//! decodes the stream. guests/provider-openai is the whole of it.
use amber_sdk::prelude::*;
use amber_sdk::{
    push_text, AuthScheme, ChatRequest, Decoder, FlavorSpec, HttpRequest, Part, Role, SseEvent,
    StopReason, StreamChunk, StreamError,
};

#[derive(Default)]
struct {{Camel}};

impl Plugin for {{Camel}} {
    fn manifest() -> Manifest {
        amber_sdk::manifest!(id: "{{id}}")
    }
}

fn role(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

/// Decodes `data: {"choices":[{"delta":{"content":…},"finish_reason":…}]}`.
#[derive(Default)]
struct Chat;

impl Decoder for Chat {
    fn event(&mut self, event: &SseEvent<'_>, out: &mut Vec<StreamChunk>) {
        if event.data == "[DONE]" {
            return;
        }
        let Ok(json) = amber_sdk::serde_json::from_str::<Value>(event.data) else {
            out.push(StreamChunk::Error(StreamError {
                kind: "decode".into(),
                message: format!("not JSON: {}", event.data),
                retryable: false,
            }));
            return;
        };
        let choice = &json["choices"][0];
        if let Some(text) = choice["delta"]["content"].as_str() {
            push_text(out, text);
        }
        match choice["finish_reason"].as_str() {
            Some("stop") => out.push(StreamChunk::Stop(StopReason::EndTurn)),
            Some("length") => out.push(StreamChunk::Stop(StopReason::MaxTokens)),
            Some(_) => out.push(StreamChunk::Stop(StopReason::Other)),
            None => {}
        }
    }
}

impl ProviderPlugin for {{Camel}} {
    fn flavors(&self) -> Vec<FlavorSpec> {
        vec![FlavorSpec {
            name: "{{id}}".into(),
            auth: AuthScheme::Bearer,
        }]
    }

    fn build_request(&mut self, req: ChatRequest) -> Result<HttpRequest, String> {
        let messages: Vec<Value> = req
            .messages
            .iter()
            .map(|m| {
                let text: String = m
                    .parts
                    .iter()
                    .filter_map(|p| match p {
                        Part::Text(t) => Some(t.as_str()),
                        _ => None,
                    })
                    .collect();
                json!({"role": role(m.role), "content": text})
            })
            .collect();
        let body = json!({"model": req.model, "messages": messages, "stream": true});
        Ok(HttpRequest {
            method: "POST".into(),
            path: "/chat/completions".into(),
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.to_string(),
        })
    }

    fn new_decoder(&mut self, _flavor: &str) -> Box<dyn Decoder> {
        Box::new(Chat)
    }
}

amber_sdk::export!({{Camel}}: provider);
"#;

const PYTHON_PROVIDER: &str = r#""""{{id}}: an amber provider plugin in Python: a wire dialect for an
OpenAI-style chat API, text only (no tools, no reasoning). amber owns HTTP,
the base URL and the key; this shapes the request and decodes the stream."""

import json

from amber_sdk import Manifest
from amber_sdk.provider import Decoder, Flavor, HttpRequest, ProviderPlugin, error, stop, text

_FINISH = {"stop": "end-turn", "length": "max-tokens"}


class Chat(Decoder):
    """Decodes `data: {"choices":[{"delta":{"content":…},"finish_reason":…}]}`."""

    def event(self, name, data):
        if data == "[DONE]":
            return []
        try:
            event = json.loads(data)
        except ValueError:
            return [error("decode", f"not JSON: {data}")]
        # A usage-only event has no choices.
        choice = (event.get("choices") or [{}])[0]
        out = [text((choice.get("delta") or {}).get("content") or "")]
        finish = choice.get("finish_reason")
        if finish:
            out.append(stop(_FINISH.get(finish, "other")))
        return out


class {{Camel}}(ProviderPlugin):
    manifest = Manifest(id="{{id}}", version="0.1.0", description="An OpenAI-style chat dialect.")
    flavors = [Flavor("{{id}}", auth="bearer")]
    decoder = Chat

    def build_request(self, req):
        messages = [{"content": m.text, "role": m.role} for m in req.messages]
        return HttpRequest(
            "POST",
            "/chat/completions",
            headers={"content-type": "application/json"},
            body={"messages": messages, "model": req.model, "stream": True},
        )


# componentize-py looks for these two classes in this module.
Plugin, Provider = {{Camel}}.export()
"#;

const JS_PROVIDER: &str = r#"// {{id}}: an amber provider plugin in JavaScript: a wire dialect for an
// OpenAI-style chat API, text only (no tools, no reasoning). amber owns
// HTTP, the base URL and the key; this shapes the request and decodes the
// stream.
import { defineProvider, chunk } from "./amber-sdk.js";

const FINISH = { stop: "end-turn", length: "max-tokens" };

// Decodes `data: {"choices":[{"delta":{"content":…},"finish_reason":…}]}`.
class Chat {
  event(name, data) {
    if (data === "[DONE]") return [];
    let event;
    try {
      event = JSON.parse(data);
    } catch (e) {
      return [chunk.error("decode", `not JSON: ${data}`)];
    }
    // A usage-only event has no choices.
    const choice = (event.choices && event.choices[0]) || {};
    const out = [chunk.text((choice.delta && choice.delta.content) || "")];
    if (choice.finish_reason) out.push(chunk.stop(FINISH[choice.finish_reason] || "other"));
    return out;
  }
}

// componentize-js looks for these two exports: `plugin` and `provider`.
export const { plugin, provider } = defineProvider({
  manifest: { id: "{{id}}", version: "0.1.0", description: "An OpenAI-style chat dialect." },
  flavors: [{ name: "{{id}}", auth: "bearer" }],
  decoder: Chat,
  buildRequest(req) {
    const messages = req.messages.map((m) => ({ content: m.text, role: m.role }));
    return {
      method: "POST",
      path: "/chat/completions",
      headers: { "content-type": "application/json" },
      body: { messages, model: req.model, stream: true },
    };
  },
});
"#;

const PYTHON_PARSER: &str = r#""""{{id}}: an amber parser in Python: outlines INI files, a `section`
per `[name]` and a `key` per `name = value` under it."""

from amber_sdk import Manifest
from amber_sdk.parser import Language, ParserPlugin, Symbol


class {{Camel}}(ParserPlugin):
    manifest = Manifest(id="{{id}}", version="0.1.0", description="Outlines INI files.")
    languages = [Language("ini", ["ini"])]

    def outline(self, language, source):
        symbols, section, offset = [], None, 0
        data = source.encode()
        for number, text in enumerate(data.splitlines(keepends=True), start=1):
            line = text.decode().strip()
            end = offset + len(text)
            if line.startswith("[") and line.endswith("]"):
                section = len(symbols)
                symbols.append(Symbol("section", line[1:-1].strip(), None, offset, end, number, number, end))
            elif "=" in line:
                key = line.split("=", 1)[0].strip()
                symbols.append(Symbol("key", key, section, offset, end, number, number, end))
                if section is not None:
                    # A section runs to its last key.
                    symbols[section].line_end = number
                    symbols[section].byte_end = end
            offset = end
        return symbols


# componentize-py looks for these two classes in this module.
Plugin, Parser = {{Camel}}.export()
"#;

const JS_PARSER: &str = r#"// {{id}}: an amber parser in JavaScript: outlines INI files, a `section`
// per `[name]` and a `key` per `name = value` under it.
import { defineParser } from "./amber-sdk.js";

// componentize-js looks for these two exports: `plugin` and `parser`.
export const { plugin, parser } = defineParser({
  manifest: { id: "{{id}}", version: "0.1.0", description: "Outlines INI files." },
  languages: [{ name: "ini", extensions: ["ini"] }],
  outline(language, source) {
    const symbols = [];
    let section;
    let offset = 0;
    const encoder = new TextEncoder();
    source.split(/(?<=\n)/).forEach((text, i) => {
      if (text === "") return;
      const line = i + 1;
      const end = offset + encoder.encode(text).length;
      const trimmed = text.trim();
      const symbol = (kind, name, parent) => ({
        kind, name, parent, byteStart: offset, byteEnd: end,
        lineStart: line, lineEnd: line, signatureEnd: end,
      });
      if (trimmed.startsWith("[") && trimmed.endsWith("]")) {
        section = symbols.length;
        symbols.push(symbol("section", trimmed.slice(1, -1).trim(), undefined));
      } else if (trimmed.includes("=")) {
        symbols.push(symbol("key", trimmed.split("=")[0].trim(), section));
        if (section !== undefined) {
          // A section runs to its last key.
          symbols[section].lineEnd = line;
          symbols[section].byteEnd = end;
        }
      }
      offset = end;
    });
    return symbols;
  },
});
"#;

const PARSER_EXAMPLES: &str = r#"# Example sources and their outlines: `amber plugin test` runs each.
# An outline is one line per symbol: KIND NAME FIRST-LAST (lines),
# indented under its parent.
[[parser]]
language = "ini"
source = "[server]\nport = 8080\nhost = local\n\n[log]\nlevel = warn\n"
output = """
section server 1-3
  key port 2-2
  key host 3-3
section log 5-6
  key level 6-6"""

[[parser]]
language = "ini"
source = ""
output = ""
"#;

const RUST_PARSER: &str = r#"//! {{id}}: an amber parser plugin in Rust: outlines INI files, a
//! `section` per `[name]` and a `key` per `name = value` under it.
use amber_sdk::prelude::*;
use amber_sdk::{LanguageSpec, Symbol};

#[derive(Default)]
struct {{Camel}};

impl Plugin for {{Camel}} {
    fn manifest() -> Manifest {
        amber_sdk::manifest!(id: "{{id}}")
    }
}

fn symbol(kind: &str, name: &str, parent: Option<u32>, start: u32, line: u32, text: &str) -> Symbol {
    Symbol {
        kind: kind.into(),
        name: name.into(),
        parent,
        byte_start: start,
        byte_end: start + text.len() as u32,
        line_start: line,
        line_end: line,
        signature_end: start + text.trim_end().len() as u32,
    }
}

impl ParserPlugin for {{Camel}} {
    fn languages(&self) -> Vec<LanguageSpec> {
        vec![LanguageSpec {
            name: "ini".into(),
            extensions: vec!["ini".into()],
        }]
    }

    fn outline(&mut self, _language: &str, source: &str) -> Result<Vec<Symbol>, String> {
        let mut symbols: Vec<Symbol> = Vec::new();
        let mut section: Option<usize> = None;
        let mut offset = 0u32;
        for (i, text) in source.split_inclusive('\n').enumerate() {
            let line = i as u32 + 1;
            let trimmed = text.trim();
            if let Some(name) = trimmed.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
                section = Some(symbols.len());
                symbols.push(symbol("section", name.trim(), None, offset, line, text));
            } else if let Some((key, _)) = trimmed.split_once('=') {
                let parent = section.map(|s| s as u32);
                symbols.push(symbol("key", key.trim(), parent, offset, line, text));
                if let Some(s) = section {
                    // A section runs to its last key.
                    symbols[s].line_end = line;
                    symbols[s].byte_end = offset + text.len() as u32;
                }
            }
            offset += text.len() as u32;
        }
        Ok(symbols)
    }
}

amber_sdk::export!({{Camel}}: parser);
"#;

const RUST_CARGO: &str = r#"[package]
name = "{{id}}"
description = "Counts the words of a text."
version = "0.1.0"
edition = "2021"
publish = false

[lib]
crate-type = ["cdylib"]

[dependencies]
# The SDK the installed amber carries: no repository is fetched.
amber-sdk = { path = "{{sdk}}" }
serde = { version = "1", features = ["derive"] }
schemars = "1"

[profile.release]
opt-level = "s"
lto = true
strip = true
codegen-units = 1

# A workspace of its own, wherever the folder is.
[workspace]
"#;

const RUST_TOOL: &str = r#"//! {{id}}: an amber tool plugin in Rust (docs/plugin-authoring.md).
use amber_sdk::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Default)]
struct {{Camel}};

/// What the tool takes; the model sees the schema derived from it.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Args {
    /// The text to count.
    text: String,
}

impl Plugin for {{Camel}} {
    fn manifest() -> Manifest {
        amber_sdk::manifest!(id: "{{id}}")
    }
}

impl ToolPlugin for {{Camel}} {
    fn tools(&self) -> Vec<ToolSpec> {
        vec![ToolSpec::new("{{snake}}", "Count the words of a text.")
            .args::<Args>()
            .read_only()]
    }

    fn call(&mut self, _tool: &str, args: Value) -> Result<ToolOutput, ToolError> {
        let args: Args = parse_args(args)?;
        let words = args.text.split_whitespace().count();
        Ok(ToolOutput::text(format!("{words} words")))
    }
}

amber_sdk::export!({{Camel}}: tool);
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_a_tool_name_and_a_class() {
        assert_eq!(
            names("word-count"),
            ("word_count".into(), "WordCount".into())
        );
        assert_eq!(names("2fa_codes"), ("2fa_codes".into(), "P2faCodes".into()));
    }
}
