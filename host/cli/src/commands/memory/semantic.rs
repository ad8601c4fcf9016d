//! Semantic recall from the command line: which model (if any) recall
//! uses, and keeping its embedding view up to date (docs/memory.md).

use std::path::PathBuf;

use amber_memory::semantic::minilm::MiniLm;
use amber_runtime::AmberDirs;
use anyhow::{anyhow, Result};

use amber_app::host::load_config;

/// Records a command embeds before it recalls: enough for what was added
/// since the last one, few enough (about a second) not to stall it.
pub const EMBEDS_PER_COMMAND: usize = 32;

/// The configured model's directory: `AMBER_EMBEDDING_MODEL`, else
/// `[memory] embedding_model` (relative to the config file's folder).
pub fn configured_dir(dirs: &AmberDirs) -> Result<Option<PathBuf>> {
    let config = load_config(dirs)?;
    Ok(resolved_dir(dirs, &config.memory))
}

pub use amber_app::recall::resolved_dir;

/// The configured model, loaded; `None` when none is configured. A
/// configured model that cannot be loaded is an error naming its file.
pub fn configured(dirs: &AmberDirs) -> Result<Option<MiniLm>> {
    configured_dir(dirs)?
        .map(|dir| MiniLm::load(&dir).map_err(|e| anyhow!(e)))
        .transpose()
}

/// Says on stderr where a recall with a model went by words only:
/// `unembedded` is [`amber_memory::Recall::unembedded`].
pub fn explain(namespace: &str, unembedded: Option<usize>) {
    match unembedded {
        None => eprintln!(
            "amber: {namespace} has more than 2,000 records, so recall ranks it by words only"
        ),
        Some(0) => {}
        Some(left) => eprintln!(
            "amber: {left} records are not embedded yet and are recalled by their words only; \
             `amber memory embed` embeds them all"
        ),
    }
}
