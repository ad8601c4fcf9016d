//! The Learner port. Seed: "Memory extraction": a compression cycle's
//! `memory_ops` and `skill_ops` go to `apply_compression_result`, which
//! upserts memories (a repeat only bumps evidence) and upserts or
//! deprecates skills by name. Learning happens only there, driven by the
//! model's judgement; nothing else writes memory automatically.
//!
//! Core defines the ops and the port and stays free of storage:
//! amber-memory implements `Learner`. The ops map one to one onto its
//! record model (`Draft`: type, title, content, tags).

use serde::{Deserialize, Serialize};

use super::PortError;

/// What kind of knowledge a memory holds. The spellings are amber-memory's
/// `RecordType` words, so a learner maps them one to one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MemoryKind {
    Decision,
    Gotcha,
    Procedure,
    Concept,
    Belief,
    DomainNote,
    Summary,
}

impl MemoryKind {
    pub fn as_str(self) -> &'static str {
        match self {
            MemoryKind::Decision => "decision",
            MemoryKind::Gotcha => "gotcha",
            MemoryKind::Procedure => "procedure",
            MemoryKind::Concept => "concept",
            MemoryKind::Belief => "belief",
            MemoryKind::DomainNote => "domain-note",
            MemoryKind::Summary => "summary",
        }
    }
}

/// An upsert of one memory, as the extract request's JSON gives it. The
/// learner dedups by content hash: the same content again only raises its
/// evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryOp {
    #[serde(rename = "type")]
    pub kind: MemoryKind,
    pub title: String,
    pub content: String,
    #[serde(default)]
    pub tags: Vec<String>,
}

/// A change to one skill, by name. A name is a folder name: lowercase
/// letters, digits and `-`, at most 64 (the extract schema enforces it; a
/// learner writing folders must still refuse anything else).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum SkillOp {
    /// Creates the skill, or replaces its description, trigger and body.
    Upsert {
        name: String,
        description: String,
        /// The phrase that should bring the skill to mind, e.g. "adding a
        /// provider dialect".
        trigger: String,
        /// The skill's instructions, markdown.
        body: String,
    },
    /// Marks the skill as no longer to be used.
    Deprecate {
        name: String,
        #[serde(default)]
        reason: Option<String>,
    },
}

impl SkillOp {
    pub fn name(&self) -> &str {
        match self {
            SkillOp::Upsert { name, .. } | SkillOp::Deprecate { name, .. } => name,
        }
    }
}

/// What one compression cycle learned, with where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LearnOps {
    pub memory_ops: Vec<MemoryOp>,
    pub skill_ops: Vec<SkillOp>,
    /// The session the cycle ran in, when it is recorded.
    pub session_id: Option<String>,
    /// The model whose judgement this is.
    pub model: String,
}

impl LearnOps {
    pub fn is_empty(&self) -> bool {
        self.memory_ops.is_empty() && self.skill_ops.is_empty()
    }
}

/// What a learner wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct LearnReport {
    /// Memories created or whose evidence was raised.
    pub memories_written: usize,
    /// Skills written or deprecated.
    pub skills_written: usize,
}

/// Applies what a compression cycle learned (seed: `apply_compression_result`).
///
/// Synchronous: it writes to storage, so the engine calls it on a blocking
/// thread.
pub trait Learner: Send + Sync {
    fn apply(&self, ops: &LearnOps) -> Result<LearnReport, PortError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_read_the_extract_json_spellings() {
        let memory: MemoryOp = serde_json::from_value(serde_json::json!({
            "type": "domain-note", "title": "t", "content": "c"
        }))
        .unwrap();
        assert_eq!(memory.kind, MemoryKind::DomainNote);
        assert_eq!(memory.kind.as_str(), "domain-note");
        assert!(memory.tags.is_empty());
        let skill: SkillOp = serde_json::from_value(serde_json::json!({
            "op": "deprecate", "name": "old-way"
        }))
        .unwrap();
        assert_eq!(skill.name(), "old-way");
        assert_eq!(
            skill,
            SkillOp::Deprecate {
                name: "old-way".into(),
                reason: None
            }
        );
    }

    #[test]
    fn memory_kinds_serialise_as_their_as_str_spellings() {
        use MemoryKind::*;
        for kind in [
            Decision, Gotcha, Procedure, Concept, Belief, DomainNote, Summary,
        ] {
            let json = serde_json::to_value(kind).unwrap();
            assert_eq!(json, kind.as_str());
            assert_eq!(serde_json::from_value::<MemoryKind>(json).unwrap(), kind);
        }
    }
}
