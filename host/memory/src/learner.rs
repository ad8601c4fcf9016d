//! What compression learns, kept (seed 000, "Memory extraction":
//! `apply_compression_result`). The core's [`Learner`] port, implemented
//! over the store and the workspace's skill folders:
//!
//! - `memory_ops` are upserts: each becomes a candidate record with the
//!   cycle's session and model as provenance (actor [`LEARNER_ACTOR`]). A
//!   new record starts at the promote threshold, the evidence count at
//!   which a candidate is offered to a person for promotion; the same
//!   content again only raises its evidence by one (dedup by content
//!   hash, as every store write does).
//! - `skill_ops` upsert or deprecate skill folders ([`crate::skills`]).
//!
//! Every op is checked before anything is written, and one invalid op
//! refuses the cycle's learning whole, naming the op: a reply that breaks
//! the extract schema is suspect as a whole. The memories are then stored
//! in one transaction, all or none, and the skills written one by one
//! afterwards; a skill that fails to write says how much was kept.

use std::path::{Path, PathBuf};

use amber_core::ports::{LearnOps, LearnReport, Learner, MemoryKind, MemoryOp, PortError};
use amber_core::text::{count, one_line};

use crate::model::{Draft, Provenance, RecordType};
use crate::namespace;
use crate::skills::{self, Outcome, SkillFolders, Stamp};
use crate::store::{self, Store, DATABASE_FILE};
use crate::validate;

/// The actor recorded on what compression learns.
pub const LEARNER_ACTOR: &str = "compression";

/// amber-memory's [`Learner`]: records in one namespace of the database,
/// skills in one workspace's skill folders.
pub struct MemoryLearner {
    database: PathBuf,
    namespace: String,
    promote_threshold: u32,
    skills: SkillFolders,
}

impl MemoryLearner {
    /// A learner for `workspace`: records go to the database at `database`
    /// (created, with its folder, on the first memory) in the workspace's
    /// namespace, starting at `promote_threshold` evidence (1 or more);
    /// skills go to `skills_dir`, normally [`skills::skills_dir`].
    pub fn new(
        database: PathBuf,
        workspace: &Path,
        promote_threshold: u32,
        skills_dir: PathBuf,
    ) -> Self {
        MemoryLearner {
            database,
            namespace: namespace::for_workspace(workspace),
            promote_threshold,
            skills: SkillFolders::new(skills_dir, workspace),
        }
    }

    /// [`MemoryLearner::new`] with the database and skill folders where
    /// amber keeps them in `data_dir`.
    pub fn in_data_dir(data_dir: &Path, workspace: &Path, promote_threshold: u32) -> Self {
        MemoryLearner::new(
            data_dir.join(DATABASE_FILE),
            workspace,
            promote_threshold,
            skills::skills_dir(data_dir, workspace),
        )
    }

    /// Stores `drafts` in one transaction; how many were created or
    /// gained evidence.
    fn store(&self, drafts: Vec<Draft>) -> Result<usize, String> {
        if drafts.is_empty() {
            return Ok(0);
        }
        if let Some(folder) = self.database.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(folder).map_err(|e| {
                format!(
                    "cannot create the folder {} for the memory database: {e}",
                    folder.display()
                )
            })?;
        }
        // Opened per cycle, so the learner holds no connection between
        // cycles; a write of another amber is waited out up to the store's
        // busy timeout.
        let mut store = Store::open(&self.database).map_err(|e| e.to_string())?;
        let added = store
            .add_many_with_evidence(&self.namespace, drafts, self.promote_threshold)
            .map_err(|e| e.to_string())?;
        Ok(added.len())
    }
}

/// The cycle's memories as checked drafts; the first invalid one refuses
/// them all, named by its place and title.
fn drafts(ops: &LearnOps, provenance: &Provenance) -> Result<Vec<Draft>, String> {
    let total = ops.memory_ops.len();
    ops.memory_ops
        .iter()
        .enumerate()
        .map(|(i, op)| {
            validate::draft(draft(op, provenance)).map_err(|e| {
                format!(
                    "memory {} of {total} (\"{}\"): {e}",
                    i + 1,
                    one_line(&op.title, 60)
                )
            })
        })
        .collect()
}

/// "1 memory", "2 memories".
fn memories(n: usize) -> String {
    if n == 1 {
        "1 memory".to_string()
    } else {
        format!("{n} memories")
    }
}

/// The draft of one memory op: a candidate, as the seed asks, until a
/// person promotes it.
fn draft(op: &MemoryOp, provenance: &Provenance) -> Draft {
    let mut draft = Draft::new(record_type(op.kind), &op.title, &op.content);
    draft.tags = op.tags.clone();
    draft.provenance = provenance.clone();
    draft
}

/// The record type of a memory kind: the same word.
fn record_type(kind: MemoryKind) -> RecordType {
    match kind {
        MemoryKind::Decision => RecordType::Decision,
        MemoryKind::Gotcha => RecordType::Gotcha,
        MemoryKind::Procedure => RecordType::Procedure,
        MemoryKind::Concept => RecordType::Concept,
        MemoryKind::Belief => RecordType::Belief,
        MemoryKind::DomainNote => RecordType::DomainNote,
        MemoryKind::Summary => RecordType::Summary,
    }
}

impl Learner for MemoryLearner {
    fn apply(&self, ops: &LearnOps) -> Result<LearnReport, PortError> {
        let refuse = |e: String| PortError(format!("learner: {e}; nothing was learned"));
        let session = ops.session_id.clone().filter(|s| !s.is_empty());
        let model = Some(ops.model.clone()).filter(|m| !m.is_empty());
        let provenance = Provenance {
            actor: Some(LEARNER_ACTOR.to_string()),
            session: session.clone(),
            model: model.clone(),
        };
        let drafts = drafts(ops, &provenance).map_err(refuse)?;
        for op in &ops.skill_ops {
            skills::check_op(op).map_err(|e| refuse(e.to_string()))?;
        }
        let memories_written = self.store(drafts).map_err(refuse)?;
        let stamp = Stamp {
            session,
            model,
            at: store::now(),
        };
        let mut skills_written = 0;
        for op in &ops.skill_ops {
            match self.skills.apply(op, &stamp) {
                Ok(Outcome::Written(_)) => skills_written += 1,
                Ok(Outcome::Unknown | Outcome::PersonOwned(_)) => {}
                Err(e) => {
                    return Err(PortError(format!(
                        "learner: {e}; kept {} and {}",
                        memories(memories_written),
                        count(skills_written, "skill")
                    )))
                }
            }
        }
        Ok(LearnReport {
            memories_written,
            skills_written,
        })
    }
}

#[cfg(test)]
mod tests;
