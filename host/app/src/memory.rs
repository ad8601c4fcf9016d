//! Governed memory asked from outside a run: recall ranked with the
//! configured sentence encoder, and the context compiler over what it
//! recalls. `amber memory` and `amber mcp serve` both answer with these.

use amber_memory::compiler::input::{CompileInput, SessionItem, StateItem};
use amber_memory::compiler::{compile, CompileError, Compiled};
use amber_memory::semantic::minilm::MiniLm;
use amber_memory::{Recall, RecallQuery, Semantic, Store};
use amber_runtime::AmberDirs;
use anyhow::{anyhow, Result};

use crate::host::load_config;
use crate::recall::resolved_dir;

/// Records a recall embeds first: enough for what was added since the
/// last one, few enough (about a second) not to stall it.
pub const EMBEDS_PER_RECALL: usize = 32;

/// The user's memory database.
pub fn open(dirs: &AmberDirs) -> Result<Store> {
    Ok(Store::open_in(&dirs.data)?)
}

/// The configured encoder, loaded; `None` when none is configured. One
/// configured that cannot be loaded is an error naming its file.
pub fn model(dirs: &AmberDirs) -> Result<Option<MiniLm>> {
    let config = load_config(dirs)?;
    resolved_dir(dirs, &config.memory)
        .map(|dir| MiniLm::load(&dir).map_err(|e| anyhow!(e)))
        .transpose()
}

/// Recalls with the configured encoder, if any, after embedding a few
/// new records. [`Recall::unembedded`] says how far the encoder took part.
pub fn recall(dirs: &AmberDirs, store: &mut Store, query: &RecallQuery) -> Result<Recall> {
    recall_using(store, query, model(dirs)?.as_ref())
}

/// [`recall`] with an encoder already loaded (a server keeps one).
pub fn recall_using(
    store: &mut Store,
    query: &RecallQuery,
    model: Option<&MiniLm>,
) -> Result<Recall> {
    Ok(store.recall_with(
        query,
        model.map(|model| Semantic {
            model,
            embed_first: EMBEDS_PER_RECALL,
        }),
    )?)
}

/// Recall, governed assembly and the context compiler for `query`,
/// within `budget` tokens, with `required` state and `session` notes.
/// A compile that cannot hold what is required fails closed.
pub fn compile_context(
    dirs: &AmberDirs,
    query: &RecallQuery,
    budget: usize,
    required: Vec<StateItem>,
    session: Vec<SessionItem>,
) -> Result<(Recall, Compiled)> {
    let model = model(dirs)?;
    compile_using(dirs, model.as_ref(), query, budget, required, session)
}

/// [`compile_context`] with an encoder already loaded.
pub fn compile_using(
    dirs: &AmberDirs,
    model: Option<&MiniLm>,
    query: &RecallQuery,
    budget: usize,
    required: Vec<StateItem>,
    session: Vec<SessionItem>,
) -> Result<(Recall, Compiled)> {
    let mut store = open(dirs)?;
    let recall = recall_using(&mut store, query, model)?;
    let mut input = CompileInput::new(&query.text);
    input.budget = budget;
    input.memory = store.task_memory(query, &recall)?;
    input.required = required;
    input.session = session;
    let compiled = compile(&input).map_err(|e| match e {
        CompileError::RequiredDoesNotFit { .. } | CompileError::RequiredUnusable { .. } => {
            anyhow!("the compile failed closed: {e}")
        }
        CompileError::Tokens(e) => anyhow::Error::from(e),
    })?;
    Ok((recall, compiled))
}
