//! {{id}}: an amber tool plugin in Rust that calls a web API through the
//! `http` permission (docs/plugin-authoring.md, docs/permissions.md).
//! The host checks each request against the hosts granted, adds any
//! secret header config binds to the host, and logs the request;
//! `amber plugin test` answers it from the `[[http]]` entries of
//! tests.toml, so the tests need no network.
use amber_sdk::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Default)]
struct {{Camel}};

/// What the tool takes; the model sees the schema derived from it.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Args {
    /// A GitHub repository, `owner/name`.
    repo: String,
}

impl Plugin for {{Camel}} {
    fn manifest() -> Manifest {
        amber_sdk::manifest!(id: "{{id}}").http(&["api.github.com"], "to read a repository's star count")
    }
}

impl ToolPlugin for {{Camel}} {
    fn tools(&self) -> Vec<ToolSpec> {
        // Not read-only: a request's arguments can carry what the model
        // read, so read mode refuses it and write mode asks (docs/web.md).
        vec![ToolSpec::new("{{snake}}", "How many stars a GitHub repository has.")
            .args::<Args>()]
    }

    fn call(&mut self, _tool: &str, args: Value) -> Result<ToolOutput, ToolError> {
        let args: Args = parse_args(args)?;
        if args.repo.split('/').count() != 2 || args.repo.contains(['?', '#', ' ']) {
            return Err(ToolError::InvalidArgs(format!("`{}` is not owner/name", args.repo)));
        }
        let url = format!("https://api.github.com/repos/{}", args.repo);
        let response = amber_sdk::http::Request::get(&url)
            .header("accept", "application/vnd.github+json")
            .send()
            .map_err(|e| ToolError::Failed(e.to_string()))?;
        if !response.ok() {
            return Err(ToolError::Failed(format!("GitHub answered HTTP {}", response.status)));
        }
        let repo = response.json().map_err(|e| ToolError::Failed(e.to_string()))?;
        let stars = repo["stargazers_count"].as_u64().unwrap_or(0);
        Ok(ToolOutput::text(format!("{} has {stars} stars", args.repo)))
    }
}

amber_sdk::export!({{Camel}}: tool);
