//! The recall block: a host-native head block through the core's
//! prompt-assembly port. Each turn it recalls the memories relevant to
//! the current request, assembles them under governance and compiles
//! them within its budget. The rendered text goes into this one prompt
//! copy and nowhere else; an empty store or no match renders nothing.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use amber_core::ports::{BlockPosition, BlockSpec, PortError, PromptBlock, RenderContext};

use crate::compiler::{compile, input::CompileInput};
use crate::recall::{RecallQuery, Semantic};
use crate::semantic::minilm::{BadModel, MiniLm};
use crate::store::Store;

/// The block's name in the ledger.
pub const BLOCK_NAME: &str = "memory-recall";

/// The block's budget: a quarter of the compiler's default, so memory
/// never crowds out the conversation.
pub const DEFAULT_BLOCK_BUDGET: usize = 512;

/// How long a turn waits for another amber's write before the block is
/// left out. The receipt every recall writes needs the write lock; the
/// store's own wait ([`crate::store::BUSY_TIMEOUT`], 5 s) would hold the
/// model call back for that long, where a turn without memory only loses
/// a little context.
pub const BLOCK_BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(250);

/// Records a turn embeds before it recalls: the view catches up a few
/// at a time instead of holding one turn back for all of them.
pub const BLOCK_EMBEDS_PER_TURN: usize = 8;

pub struct RecallBlock {
    spec: BlockSpec,
    database: PathBuf,
    namespace: String,
    budget: usize,
    /// The sentence encoder's directory, loaded on the first turn that
    /// recalls (loading reads about 90 MB).
    model_dir: Option<PathBuf>,
    model: OnceLock<Result<MiniLm, BadModel>>,
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
            model_dir: None,
            model: OnceLock::new(),
        }
    }

    /// Recalls with semantic ranking through the model in `dir` as well.
    pub fn with_model(mut self, dir: PathBuf) -> Self {
        self.model_dir = Some(dir);
        self
    }

    /// The model, when one is configured. One that cannot be loaded
    /// fails the first turn that wants it, which reports the error; later
    /// turns recall by words only rather than lose memory every turn.
    fn model(&self) -> Result<Option<&MiniLm>, String> {
        let Some(dir) = &self.model_dir else {
            return Ok(None);
        };
        let mut first = false;
        let loaded = self.model.get_or_init(|| {
            first = true;
            MiniLm::load(dir)
        });
        match loaded {
            Ok(model) => Ok(Some(model)),
            Err(e) if first => Err(format!("{e}; memory is recalled by words only from now on")),
            Err(_) => Ok(None),
        }
    }

    fn compile(&self, request: &str, workspace: Option<&Path>) -> Result<String, String> {
        if request.trim().is_empty() || !self.database.exists() {
            return Ok(String::new());
        }
        let mut store =
            Store::open_waiting(&self.database, BLOCK_BUSY_TIMEOUT).map_err(|e| e.to_string())?;
        let mut query = RecallQuery::new(&self.namespace, request);
        // A memory scoped to some files or a language comes back only on a
        // turn about them: the first workspace file the request names.
        query.scope_must_match = true;
        query.path = workspace.and_then(|w| named_file(request, w));
        query.language = query.path.as_deref().and_then(language_of);
        let semantic = self.model()?.map(|model| Semantic {
            model,
            embed_first: BLOCK_EMBEDS_PER_TURN,
        });
        let recall = store
            .recall_with(&query, semantic)
            .map_err(|e| e.to_string())?;
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

/// The first word of `request` that names a file inside `workspace`, as
/// a workspace-relative path. Quotes and sentence punctuation around it
/// are not part of it; a word leading out (`..`, absolute) is not a name.
fn named_file(request: &str, workspace: &Path) -> Option<String> {
    request
        .split_whitespace()
        .map(|w| {
            w.trim_start_matches(|c: char| "`'\"([{<".contains(c))
                .trim_end_matches(|c: char| "`'\")]}>,;:!?.".contains(c))
        })
        .filter(|w| w.contains('.') || w.contains('/'))
        .map(|w| w.trim_start_matches("./"))
        .find(|w| {
            let path = Path::new(w);
            path.is_relative()
                && path
                    .components()
                    .all(|c| matches!(c, std::path::Component::Normal(_)))
                && workspace.join(path).is_file()
        })
        .map(str::to_string)
}

/// A language name by a file's extension, as records name languages.
fn language_of(path: &str) -> Option<String> {
    let ext = Path::new(path).extension()?.to_str()?.to_ascii_lowercase();
    let language = match ext.as_str() {
        "rs" => "rust",
        "py" | "pyi" => "python",
        "ts" | "tsx" | "mts" | "cts" => "typescript",
        "js" | "jsx" | "mjs" | "cjs" => "javascript",
        "md" | "markdown" => "markdown",
        "go" => "go",
        "java" => "java",
        "kt" | "kts" => "kotlin",
        "c" | "h" => "c",
        "cc" | "cpp" | "cxx" | "hpp" | "hh" => "cpp",
        "cs" => "csharp",
        "rb" => "ruby",
        "php" => "php",
        "swift" => "swift",
        "sh" | "bash" => "shell",
        "sql" => "sql",
        "toml" => "toml",
        "yaml" | "yml" => "yaml",
        "json" => "json",
        _ => return None,
    };
    Some(language.to_string())
}

impl PromptBlock for RecallBlock {
    fn spec(&self) -> &BlockSpec {
        &self.spec
    }

    fn render(&self, ctx: &RenderContext) -> Result<String, PortError> {
        self.compile(&ctx.request, ctx.workspace.as_deref().map(Path::new))
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
    fn with_a_model_the_block_recalls_by_meaning_and_a_broken_model_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join(DATABASE_FILE);
        let mut store = Store::open(&db).unwrap();
        store
            .add(
                "ns",
                Draft::new(
                    RecordType::Procedure,
                    "Cutting a release",
                    "Bump the number in the workspace Cargo.toml, update CHANGELOG.md, commit, \
                     tag vX.Y.Z and push the tag; the release workflow builds and uploads the binaries.",
                ),
            )
            .unwrap();
        let model = std::env::var_os("AMBER_TEST_EMBEDDING_MODEL")
            .expect("AMBER_TEST_EMBEDDING_MODEL is not set: run the tests with `cargo xtask test`");
        let block = RecallBlock::new(db.clone(), "ns".into(), DEFAULT_BLOCK_BUDGET)
            .with_model(PathBuf::from(model));
        let text = render(&block, "how do we ship a new version to users?");
        assert!(text.contains("Cutting a release"), "{text}");
        assert_eq!(render(&block, "a banana bread recipe with walnuts"), "");

        let broken = RecallBlock::new(db, "ns".into(), DEFAULT_BLOCK_BUDGET)
            .with_model(dir.path().join("no-such-model"));
        let ctx = RenderContext {
            request: "how do we ship?".into(),
            ..RenderContext::default()
        };
        let err = broken.render(&ctx).unwrap_err().0;
        assert!(
            err.contains("no-such-model") && err.contains("config.json"),
            "{err}"
        );
        // Reported once; later turns recall by words.
        let ctx = RenderContext {
            request: "cutting a release".into(),
            ..RenderContext::default()
        };
        assert!(broken.render(&ctx).unwrap().contains("Cutting a release"));
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

    #[test]
    fn a_store_locked_by_another_writer_leaves_the_block_out_quickly() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join(DATABASE_FILE);
        let mut store = Store::open(&db).unwrap();
        store
            .add(
                "ns",
                Draft::new(RecordType::Gotcha, "flock cargo", "Wrap cargo in flock."),
            )
            .unwrap();
        let other = rusqlite::Connection::open(&db).unwrap();
        other.execute_batch("BEGIN IMMEDIATE").unwrap();
        let block = RecallBlock::new(db.clone(), "ns".into(), DEFAULT_BLOCK_BUDGET);
        let ctx = RenderContext {
            request: "why flock cargo?".into(),
            ..RenderContext::default()
        };
        let started = std::time::Instant::now();
        let e = block.render(&ctx).unwrap_err();
        assert!(started.elapsed() < crate::store::BUSY_TIMEOUT / 2);
        assert!(e.0.contains("memory-recall") && e.0.contains("busy"), "{e}");
        other.execute_batch("COMMIT").unwrap();
        assert!(render(&block, "why flock cargo?").contains("Wrap cargo in flock."));
    }

    #[test]
    fn scoped_memories_come_back_only_on_a_turn_about_their_files() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(ws.join("scripts")).unwrap();
        std::fs::write(ws.join("scripts/deploy.sh"), "echo\n").unwrap();
        std::fs::write(ws.join("notes.py"), "pass\n").unwrap();
        let db = dir.path().join(DATABASE_FILE);
        let block = RecallBlock::new(db.clone(), "ns".into(), DEFAULT_BLOCK_BUDGET);
        let mut store = Store::open(&db).unwrap();
        let mut scoped = Draft::new(
            RecordType::Gotcha,
            "deploy quoting",
            "The deploy script needs its variables quoted.",
        );
        scoped.applicability.paths = vec!["scripts/**".into()];
        store.add("ns", scoped).unwrap();
        let mut python = Draft::new(
            RecordType::Gotcha,
            "deploy typing",
            "Deploy helpers in Python need type hints.",
        );
        python.applicability.languages = vec!["python".into()];
        store.add("ns", python).unwrap();
        let render_in = |request: &str| {
            let ctx = RenderContext {
                request: request.into(),
                workspace: Some(ws.display().to_string()),
                ..RenderContext::default()
            };
            block.render(&ctx).unwrap()
        };
        let general = render_in("how do we deploy?");
        assert!(
            !general.contains("quoted") && !general.contains("hints"),
            "{general}"
        );
        let about_script = render_in("fix the deploy in `scripts/deploy.sh`.");
        assert!(about_script.contains("quoted"), "{about_script}");
        assert!(!about_script.contains("hints"), "{about_script}");
        let about_python = render_in("deploy from ./notes.py, please");
        assert!(about_python.contains("hints"), "{about_python}");
        assert!(!about_python.contains("quoted"), "{about_python}");
        // A name leading out of the workspace names nothing.
        assert_eq!(named_file("see ../ws/notes.py", &ws), None);
        assert_eq!(named_file("see notes.py", &ws).as_deref(), Some("notes.py"));
    }
}
