//! `amber memory compile`: recall, governed assembly and the context
//! compiler, with required state and session notes from the command line.

use amber_memory::compiler::input::{SessionItem, StateItem};
use amber_memory::RecallQuery;
use amber_runtime::AmberDirs;
use anyhow::{bail, Result};
use serde_json::json;

use crate::commands::print_json;

/// `KEY=VALUE` as required state, read now from the command line.
fn state_item(arg: &str) -> Result<StateItem> {
    let Some((key, value)) = arg.split_once('=') else {
        bail!("--state `{arg}` is not KEY=VALUE");
    };
    Ok(StateItem {
        key: key.trim().to_string(),
        version: 1,
        epoch: "cli".into(),
        value: value.to_string(),
    })
}

pub fn compile_task(
    dirs: &AmberDirs,
    query: &RecallQuery,
    budget: usize,
    state: &[String],
    notes: &[String],
    manifest: bool,
    json: bool,
) -> Result<()> {
    let required = state.iter().map(|s| state_item(s)).collect::<Result<_>>()?;
    let session = notes
        .iter()
        .enumerate()
        .map(|(i, text)| SessionItem {
            id: format!("note-{}", i + 1),
            text: text.clone(),
        })
        .collect();
    let (recall, compiled) =
        amber_app::memory::compile_context(dirs, query, budget, required, session)?;
    super::semantic::explain_recall(dirs, &query.namespace, &recall)?;
    if json {
        return print_json(&json!({
            "receipt": recall.receipt,
            "rendered": compiled.rendered,
            "manifest": compiled.manifest,
        }));
    }
    if manifest {
        return print_json(&compiled.manifest);
    }
    print!("{}", compiled.rendered);
    Ok(())
}
