//! Semantic recall from the command line: which model (if any) recall
//! uses, and keeping its embedding view up to date (docs/memory.md).

use std::path::PathBuf;

use amber_memory::semantic::minilm::MiniLm;
use amber_runtime::AmberDirs;
use anyhow::Result;

use amber_app::host::load_config;

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
    amber_app::memory::model(dirs)
}

/// Says on stderr where a recall went by words only though a model is
/// configured.
pub fn explain_recall(
    dirs: &AmberDirs,
    namespace: &str,
    recall: &amber_memory::Recall,
) -> Result<()> {
    if configured_dir(dirs)?.is_some() {
        explain(namespace, recall.unembedded);
    }
    Ok(())
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
