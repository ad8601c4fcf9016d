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
    let dir = parent.join(id);
    if dir.exists()
        && std::fs::read_dir(&dir)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        bail!("{} already exists and is not empty", dir.display());
    }
    let files = files(id, lang, kind)?;
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
            Lang::Rust => "",
        }
    );
    let mut out = vec![
        (DESCRIPTOR, descriptor),
        ("README.md", fill(&readme(lang, kind), id)),
    ];
    match (lang, kind) {
        (Lang::Python, Kind::Tool) => {
            out.push(("app.py", fill(PYTHON_TOOL, id)));
            out.push((EXAMPLES, fill(TOOL_EXAMPLES, id)));
        }
        (Lang::Rust, Kind::Tool) => {
            let sdk = sdk::dir()?.join("rust");
            let sdk = sdk.canonicalize().unwrap_or(sdk);
            let manifest = fill(RUST_CARGO, id).replace("{{sdk}}", &sdk.display().to_string());
            out.push(("Cargo.toml", manifest));
            out.push(("src/lib.rs", fill(RUST_TOOL, id)));
            out.push((".gitignore", "/target\n/dist\n".into()));
            out.push((EXAMPLES, fill(TOOL_EXAMPLES, id)));
        }
        (Lang::Js, Kind::Tool) => {
            out.push(("plugin.js", fill(JS_TOOL, id)));
            let sdk = sdk::dir()?.join("js").join(super::build::JS_SDK);
            let text = std::fs::read_to_string(&sdk)
                .with_context(|| format!("cannot read the JavaScript SDK at {}", sdk.display()))?;
            out.push((super::build::JS_SDK, text));
            out.push((".gitignore", "/dist\n".into()));
            out.push((EXAMPLES, fill(TOOL_EXAMPLES, id)));
        }
        _ => bail!(
            "`amber plugin new --lang {} --kind {}` has no scaffold yet; this amber scaffolds tools in Rust, Python and JavaScript",
            lang.name(),
            kind.name()
        ),
    }
    if lang == Lang::Python {
        out.push((".gitignore", "/dist\n__pycache__/\n".into()));
    }
    Ok(out)
}

fn readme(lang: Lang, kind: Kind) -> String {
    format!(
        "# {{{{id}}}}\n\nAn amber {} plugin in {}.\n\n```sh\namber plugin build        # -> dist/{{{{id}}}}.wasm, checked\namber plugin test         # runs the examples of {EXAMPLES} through amber's runtime\namber plugin add dist/{{{{id}}}}.wasm\n```\n\nEach `[[tool]]` of {EXAMPLES} calls a tool with `args` and expects its\n`output` (or `contains`, or an `error`). See docs/plugin-authoring.md.\n",
        kind.name(),
        match lang {
            Lang::Rust => "Rust",
            Lang::Python => "Python",
            Lang::Js => "JavaScript",
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
