//! The compiler's four explicit inputs (seed 004, "Context Compiler"):
//! required state, session-local items, the governed task-memory report
//! and repository facts. The compiler queries nothing; whatever is not
//! passed in here cannot reach the context.

use serde::{Deserialize, Serialize};

use crate::model::RecordType;

/// The authority a repository fact must declare: derived, rebuildable
/// knowledge of the repository, never durable memory.
pub const DERIVED_REPOSITORY: &str = "derived_repository";

/// The task-memory sections, in the order they are compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Section {
    Procedure,
    Concept,
    Belief,
    Domain,
    Support,
    /// Records that contradict or supersede a selected record.
    Corrective,
}

impl Section {
    pub const ORDER: [Section; 6] = [
        Section::Procedure,
        Section::Concept,
        Section::Belief,
        Section::Domain,
        Section::Support,
        Section::Corrective,
    ];

    /// The section a record of type `t` lands in when nothing corrects.
    pub fn for_type(t: RecordType) -> Section {
        match t {
            RecordType::Procedure => Section::Procedure,
            RecordType::Concept => Section::Concept,
            RecordType::Belief => Section::Belief,
            RecordType::DomainNote => Section::Domain,
            RecordType::Decision | RecordType::Gotcha | RecordType::Summary => Section::Support,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Section::Procedure => "procedure",
            Section::Concept => "concept",
            Section::Belief => "belief",
            Section::Domain => "domain",
            Section::Support => "support",
            Section::Corrective => "corrective",
        }
    }

    pub(crate) fn heading(self) -> &'static str {
        match self {
            Section::Procedure => "\n## Procedures\n",
            Section::Concept => "\n## Concepts\n",
            Section::Belief => "\n## Beliefs (unverified)\n",
            Section::Domain => "\n## Domain notes\n",
            Section::Support => "\n## Decisions and gotchas\n",
            Section::Corrective => "\n## Corrections (these override the notes above)\n",
        }
    }
}

/// A Dynamic State read snapshot the task cannot go without. Required
/// items fail the compile closed when they do not fit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateItem {
    pub key: String,
    pub version: i64,
    /// The database epoch the snapshot was read in.
    pub epoch: String,
    pub value: String,
}

/// Explicit in-process material for this compilation only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionItem {
    pub id: String,
    pub text: String,
}

/// One governed memory, already judged eligible and placed in a section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryItem {
    pub record: i64,
    pub revision: i64,
    pub section: Section,
    pub title: String,
    pub content: String,
    /// Tokens of `memory_text(title, content)` counted at write time;
    /// used as is when sanitising changed nothing.
    pub tokens: Option<usize>,
}

impl MemoryItem {
    pub fn reference(&self) -> String {
        memory_reference(self.record, self.revision)
    }
}

/// The reference of revision `revision` of record `record`.
pub fn memory_reference(record: i64, revision: i64) -> String {
    format!("memory:{record}@r{revision}")
}

/// A record the governed assembly held back, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GovernedSuppression {
    pub reference: String,
    pub reason: String,
}

/// The governed task-memory report: eligible items by section and the
/// suppression facts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskMemory {
    pub items: Vec<MemoryItem>,
    pub suppressed: Vec<GovernedSuppression>,
}

/// A bounded fact about the repository, with its provenance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RepositoryFact {
    /// Where it comes from, e.g. a path.
    pub source: String,
    /// A deterministic fingerprint of the source, e.g. its blake3.
    pub fingerprint: String,
    /// Must be [`DERIVED_REPOSITORY`].
    pub authority: String,
    pub text: String,
}

/// Everything one compilation uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompileInput {
    /// The task text; only its digest reaches the manifest.
    pub task: String,
    pub budget: usize,
    pub required: Vec<StateItem>,
    pub session: Vec<SessionItem>,
    pub memory: TaskMemory,
    pub repository: Vec<RepositoryFact>,
}

/// The budget when none is given.
pub const DEFAULT_BUDGET: usize = 2048;

impl CompileInput {
    pub fn new(task: &str) -> Self {
        CompileInput {
            task: task.to_string(),
            budget: DEFAULT_BUDGET,
            required: Vec::new(),
            session: Vec::new(),
            memory: TaskMemory::default(),
            repository: Vec::new(),
        }
    }
}
