//! `amber config path|show`.

use anyhow::Result;
use clap::Subcommand;

use amber_app::host;

#[derive(Subcommand)]
pub enum ConfigCommand {
    /// Print the config file's path (it need not exist).
    Path,
    /// Print the effective config: the file with every default filled in.
    Show {
        /// Print JSON instead of TOML.
        #[arg(long)]
        json: bool,
    },
}

pub fn run(host: &amber_app::host::Host, cmd: ConfigCommand) -> Result<()> {
    let dirs = &host.dirs;
    match cmd {
        ConfigCommand::Path => println!("{}", host::config_path(dirs).display()),
        ConfigCommand::Show { json } => {
            let config = host::load_config(dirs)?;
            if json {
                super::print_json(&config)?;
            } else {
                print!("{}", config.to_toml());
            }
        }
    }
    Ok(())
}
