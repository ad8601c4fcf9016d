//! The recall block: a host-native head block through the core's
//! prompt-assembly port. Each turn it recalls the memories relevant to
//! the current request, assembles them under governance and compiles
//! them within its budget. The rendered text goes into this one prompt
//! copy and nowhere else; an empty store or no match renders nothing.

use std::path::PathBuf;

use amber_core::ports::{BlockPosition, BlockSpec, PortError, PromptBlock, RenderContext};

use crate::compiler::{compile, input::CompileInput};
use crate::recall::RecallQuery;
use crate::store::Store;

/// The block's name in the ledger.
pub const BLOCK_NAME: &str = "memory-recall";

/// The block's budget: a quarter of the compiler's default, so memory
/// never crowds out the conversation.
pub const DEFAULT_BLOCK_BUDGET: usize = 512;

pub struct RecallBlock {
    spec: BlockSpec,
    database: PathBuf,
    namespace: String,
    budget: usize,
}

impl RecallBlock {
    /// A block over the database at `database`, recalling from
    /// `namespace`. The database is opened per render and never created
    /// by the block.
    pub fn new(database: PathBuf, namespace: String, budget: usize) -> Self {
        RecallBlock {
            spec: BlockSpec {
                name: BLOCK_NAME.to_string(),
                position: BlockPosition::Head,
                // After the blocks that describe the workspace itself.
                priority: 50,
            },
            database,
            namespace,
            budget,
        }
    }

    fn compile(&self, request: &str) -> Result<String, String> {
        if request.trim().is_empty() || !self.database.exists() {
            return Ok(String::new());
        }
        let mut store = Store::open(&self.database).map_err(|e| e.to_string())?;
        let query = RecallQuery::new(&self.namespace, request);
        let recall = store.recall(&query).map_err(|e| e.to_string())?;
        if recall.hits.is_empty() {
            return Ok(String::new());
        }
        let mut input = CompileInput::new(request);
        input.budget = self.budget;
        input.memory = store
            .task_memory(&query, &recall)
            .map_err(|e| e.to_string())?;
        Ok(compile(&input).map_err(|e| e.to_string())?.rendered)
    }
}

impl PromptBlock for RecallBlock {
    fn spec(&self) -> &BlockSpec {
        &self.spec
    }

    fn render(&self, ctx: &RenderContext) -> Result<String, PortError> {
        self.compile(&ctx.request)
            .map_err(|e| PortError(format!("prompt block `{BLOCK_NAME}`: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Draft, RecordType};
    use crate::store::DATABASE_FILE;

    fn render(block: &RecallBlock, request: &str) -> String {
        let ctx = RenderContext {
            request: request.into(),
            ..RenderContext::default()
        };
        block.render(&ctx).unwrap()
    }

    #[test]
    fn the_block_compiles_relevant_memories_and_is_empty_otherwise() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join(DATABASE_FILE);
        let block = RecallBlock::new(db.clone(), "ns".into(), DEFAULT_BLOCK_BUDGET);
        assert_eq!(render(&block, "anything"), "");
        assert!(!db.exists(), "rendering must not create the database");
        let mut store = Store::open(&db).unwrap();
        store
            .add(
                "ns",
                Draft::new(
                    RecordType::Gotcha,
                    "flock cargo",
                    "Wrap every cargo command in flock; two builds at once thrash the target dir.",
                ),
            )
            .unwrap();
        let text = render(&block, "why does cargo need flock?");
        assert!(text.contains("Wrap every cargo command in flock"), "{text}");
        assert!(text.contains("## Decisions and gotchas"));
        assert_eq!(render(&block, "unrelated words entirely"), "");
        assert_eq!(block.spec().position, BlockPosition::Head);
    }
}
