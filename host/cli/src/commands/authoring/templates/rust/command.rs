//! {{id}}: an amber slash command in Rust: `/{{id}} count TEXT`.
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
