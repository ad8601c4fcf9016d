//! `amber skills list|show|promote`: the skills amber finds for this
//! workspace, one in full, and a compression candidate made a person's
//! (docs/skills.md).

use amber_app::host::Host;
use amber_app::render::skills::{data, listing, shown};
use amber_app::skills;
use amber_core::project::ProjectRoot;
use anyhow::{anyhow, Result};
use clap::Subcommand;

use super::print_json;

#[derive(Subcommand)]
pub enum SkillsCommand {
    /// Every skill found, with where it comes from (later folders shadow
    /// earlier ones by name), and every folder skipped with the reason.
    List {
        /// JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// One skill: its source, folder, files, the tools it allows and its
    /// instructions.
    Show {
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(super::completers::skill_names))]
        name: String,
        /// JSON for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Move a candidate skill (written by compression) into the
    /// workspace's .amber/skills/, where it is yours: compression never
    /// writes over it again.
    Promote {
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(super::completers::skill_names))]
        name: String,
        /// JSON for scripts: `{"promoted": NAME, "path": ...}`.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(host: &Host, command: SkillsCommand, project: &ProjectRoot) -> Result<()> {
    let config = host.config()?;
    let catalog = skills::catalog(&host.dirs, &project.root, &config.skills);
    // The text list names them itself.
    if !matches!(command, SkillsCommand::List { json: false }) {
        super::report_skipped(&catalog.skipped);
    }
    match command {
        SkillsCommand::List { json: true } => print_json(&data(&catalog)),
        SkillsCommand::List { json: false } => {
            outln!("{}", listing(&catalog));
            Ok(())
        }
        SkillsCommand::Show { name, json } => {
            let skill = catalog
                .get(&name)
                .ok_or_else(|| anyhow!("no skill `{name}` (see `amber skills list`)"))?;
            if json {
                let mut value = serde_json::to_value(skill)?;
                value["instructions"] = skill.instructions.clone().into();
                value["files"] = skill.files().into();
                print_json(&value)
            } else {
                outln!("{}", shown(skill));
                Ok(())
            }
        }
        SkillsCommand::Promote { name, json } => {
            let path = skills::promote(&catalog, &name, &project.root).map_err(|e| anyhow!(e))?;
            if json {
                print_json(&serde_json::json!({ "promoted": name, "path": path }))
            } else {
                outln!("promoted `{name}` to {}", path.display());
                Ok(())
            }
        }
    }
}
