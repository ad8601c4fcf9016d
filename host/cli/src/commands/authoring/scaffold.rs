//! `amber plugin new NAME --lang L --kind K`: a plugin folder that builds
//! and passes `amber plugin test` as it is, offline and anywhere: its
//! descriptor, one working example of the kind, a README and `tests.toml`.
//! A Rust plugin's SDK dependency points at the SDK the installed amber
//! carries (sdk.rs), so no repository is fetched.
//!
//! The files' text lives in `templates/`, built in with `include_str!`:
//! `common/` (descriptor, README), `rust/`, `python/` and `js/` (a source
//! per kind; Rust's `Cargo.toml`) and `examples/` (a `tests.toml` per
//! kind). Each `{{name}}` below is replaced; every other brace is literal.
//! - `{{id}}`: the plugin id (`word-count`), in every template;
//! - `{{snake}}`: the id as a tool name (`word_count`);
//! - `{{Camel}}`: the id as a type or class name (`WordCount`);
//! - `{{lang}}`, `{{kind}}`: the descriptor's values (`rust`, `tool`);
//! - `{{language}}`, `{{kind}}`, `{{examples}}`: the README's language
//!   (`Rust`), kind and examples file (`tests.toml`);
//! - `{{sdk}}`: the Rust SDK's folder, in `rust/Cargo.toml`.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::{check_id, sdk, Kind, Lang, DESCRIPTOR, EXAMPLES};

/// Writes the plugin `id` into `parent/id`; returns the folder. `http`:
/// a tool that calls a web API through the `http` permission, with
/// recorded responses in its tests, in any language but C.
pub fn create(parent: &Path, id: &str, lang: Lang, kind: Kind, http: bool) -> Result<PathBuf> {
    check_id(id)?;
    if http && kind != Kind::Tool {
        bail!(
            "--http makes a tool (`--kind tool`); a plugin of another kind declares `http` in its \
             manifest and says `http = true` in {DESCRIPTOR} (docs/permissions.md)"
        );
    }
    let mut files = files(id, lang, kind)?;
    if http {
        http_tool(&mut files, id, lang);
    }
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

/// Turns the word-count tool of `files` into the web API example: its
/// source, its examples with `[[http]]` responses, the descriptor's
/// `http = true` (Python and JavaScript build with wasi:http by it) and
/// the Rust SDK's `http` feature.
fn http_tool(files: &mut [(&'static str, String)], id: &str, lang: Lang) {
    let source = match lang {
        Lang::Rust => RUST_TOOL_HTTP,
        Lang::Python => PYTHON_TOOL_HTTP,
        Lang::Js => JS_TOOL_HTTP,
        Lang::C => return,
    };
    for (path, text) in files.iter_mut() {
        match *path {
            "src/lib.rs" | "app.py" | "plugin.js" => *text = fill(source, id),
            EXAMPLES => *text = fill(TOOL_HTTP_EXAMPLES, id),
            DESCRIPTOR => text.push_str("http = true\n"),
            "Cargo.toml" => {
                *text = text
                    .replace(
                        "\"Counts the words of a text.\"",
                        "\"Reads a GitHub repository's star count.\"",
                    )
                    .replace(
                        "amber-sdk = { path = ",
                        "amber-sdk = { features = [\"http\"], path = ",
                    )
            }
            _ => {}
        }
    }
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
    let mut descriptor = fill(DESCRIPTOR_TEMPLATE, id)
        .replace("{{lang}}", lang.name())
        .replace("{{kind}}", kind.name());
    // Rust's entry is its Cargo.toml's; C has no scaffold.
    descriptor.push_str(match lang {
        Lang::Python => "entry = \"app\"\n",
        Lang::Js => "entry = \"plugin.js\"\n",
        Lang::Rust | Lang::C => "",
    });
    let mut out = vec![
        (DESCRIPTOR, descriptor),
        ("README.md", readme(id, lang, kind)),
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

fn readme(id: &str, lang: Lang, kind: Kind) -> String {
    let language = match lang {
        Lang::Rust => "Rust",
        Lang::Python => "Python",
        Lang::Js => "JavaScript",
        Lang::C => "C",
    };
    fill(README_TEMPLATE, id)
        .replace("{{kind}}", kind.name())
        .replace("{{language}}", language)
        .replace("{{examples}}", EXAMPLES)
}

const DESCRIPTOR_TEMPLATE: &str = include_str!("templates/common/amber-plugin.toml");
const README_TEMPLATE: &str = include_str!("templates/common/README.md");

const TOOL_EXAMPLES: &str = include_str!("templates/examples/tool.toml");
const COMMAND_EXAMPLES: &str = include_str!("templates/examples/command.toml");
const PROMPT_EXAMPLES: &str = include_str!("templates/examples/prompt.toml");
const HOOK_EXAMPLES: &str = include_str!("templates/examples/hook.toml");
const PROVIDER_EXAMPLES: &str = include_str!("templates/examples/provider.toml");
const PARSER_EXAMPLES: &str = include_str!("templates/examples/parser.toml");

const RUST_CARGO: &str = include_str!("templates/rust/Cargo.toml");
const RUST_TOOL: &str = include_str!("templates/rust/tool.rs");
const RUST_TOOL_HTTP: &str = include_str!("templates/rust/tool_http.rs");
const TOOL_HTTP_EXAMPLES: &str = include_str!("templates/examples/tool_http.toml");
const RUST_COMMAND: &str = include_str!("templates/rust/command.rs");
const RUST_PROMPT: &str = include_str!("templates/rust/prompt.rs");
const RUST_HOOK: &str = include_str!("templates/rust/hook.rs");
const RUST_PROVIDER: &str = include_str!("templates/rust/provider.rs");
const RUST_PARSER: &str = include_str!("templates/rust/parser.rs");

const PYTHON_TOOL: &str = include_str!("templates/python/tool.py");
const PYTHON_TOOL_HTTP: &str = include_str!("templates/python/tool_http.py");
const PYTHON_COMMAND: &str = include_str!("templates/python/command.py");
const PYTHON_PROMPT: &str = include_str!("templates/python/prompt.py");
const PYTHON_HOOK: &str = include_str!("templates/python/hook.py");
const PYTHON_PROVIDER: &str = include_str!("templates/python/provider.py");
const PYTHON_PARSER: &str = include_str!("templates/python/parser.py");

const JS_TOOL: &str = include_str!("templates/js/tool.js");
const JS_TOOL_HTTP: &str = include_str!("templates/js/tool_http.js");
const JS_COMMAND: &str = include_str!("templates/js/command.js");
const JS_PROMPT: &str = include_str!("templates/js/prompt.js");
const JS_HOOK: &str = include_str!("templates/js/hook.js");
const JS_PROVIDER: &str = include_str!("templates/js/provider.js");
const JS_PARSER: &str = include_str!("templates/js/parser.js");

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
