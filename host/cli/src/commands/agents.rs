//! `amber agents list|show`: the custom agents amber finds for this
//! workspace, and one in full with its file and prompt (docs/agents.md).

use amber_app::agents;
use amber_app::host::Host;
use amber_app::render::agents::{agent_data, data, listing, shown};
use amber_core::project::ProjectRoot;
use anyhow::{anyhow, Result};
use clap::Subcommand;

use super::print_json;

#[derive(Subcommand)]
pub enum AgentsCommand {
    /// Every custom agent found, with where it comes from and what it
    /// narrows (tools, mode, model, cap), and every file skipped with the
    /// reason.
    List {
        /// JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// One custom agent: its source, file, tools, mode, model, cap and
    /// system prompt.
    Show {
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(super::completers::agent_names))]
        name: String,
        /// JSON for scripts: the list's fields and `prompt`.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(host: &Host, command: AgentsCommand, project: &ProjectRoot) -> Result<()> {
    let catalog = agents::catalog(&host.dirs, &project.root);
    // The text list names them itself.
    if !matches!(command, AgentsCommand::List { json: false }) {
        super::report_skipped(&catalog.skipped);
    }
    match command {
        AgentsCommand::List { json: true } => print_json(&data(&catalog)),
        AgentsCommand::List { json: false } => {
            outln!("{}", listing(&catalog));
            Ok(())
        }
        AgentsCommand::Show { name, json } => {
            let agent = catalog
                .get(&name)
                .ok_or_else(|| anyhow!("no agent `{name}` (see `amber agents list`)"))?;
            if json {
                let mut value = agent_data(agent);
                value["prompt"] = agent.prompt.clone().into();
                print_json(&value)
            } else {
                outln!("{}", shown(agent));
                Ok(())
            }
        }
    }
}
