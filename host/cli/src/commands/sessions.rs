//! `amber sessions list|show|fork|rewind|delete|prune`: the recorded runs.
//! `show` verifies the whole chain, as `--resume` does, so it is also how
//! to check a session file.

use amber_core::ports::dialect::{Message, Part, Role};
use amber_core::session::{self, SessionStore};
use amber_runtime::AmberDirs;
use anyhow::Result;
use clap::Subcommand;
use serde_json::json;

use super::print_json;
use amber_app::checkpoints::rewind::What;
use amber_app::checkpoints::session_rewind::{self, Writer};
use amber_core::ports::Checkpoints;
use amber_core::session::rewind::ClosedSession;

#[derive(Subcommand)]
pub enum SessionsCommand {
    /// List sessions, newest first.
    List {
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Start a new session from a verified prefix of another: its turns
    /// up to `--at` (default: all), re-recorded in a new file whose first
    /// record names the source, the turn and its head hash. Continue it
    /// with `amber --resume NEW_ID` (docs/sessions.md).
    Fork {
        /// The session to fork (see `amber sessions list`).
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(super::completers::session_ids))]
        id: String,
        /// The turn to fork at (1 is the first; `sessions show` counts
        /// them). Default: the last whole turn.
        #[arg(long, value_name = "TURN")]
        at: Option<usize>,
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Put a session's files and conversation back to the end of a turn:
    /// every file a later turn changed gets its content from before, and
    /// the conversation is rebuilt as it stood, through the session's own
    /// records (docs/checkpoints.md). A file changed outside amber since
    /// is not written over without `--force`.
    Rewind {
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(super::completers::session_ids))]
        id: String,
        /// The turn to go back to (`amber sessions show` counts them).
        #[arg(long, value_name = "TURN")]
        to: usize,
        /// The files only.
        #[arg(long, conflicts_with = "conversation")]
        code: bool,
        /// The conversation only.
        #[arg(long)]
        conversation: bool,
        /// Write over files changed outside amber since.
        #[arg(long)]
        force: bool,
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Delete sessions, each with its sub-agents' sessions, and the
    /// checkpointed file contents no remaining session names. A session a
    /// run has open is refused.
    Delete {
        /// The sessions to delete (see `amber sessions list`).
        #[arg(required = true, add = clap_complete::engine::ArgValueCandidates::new(super::completers::session_ids))]
        ids: Vec<String>,
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Delete the sessions last written more than DAYS ago (with their
    /// sub-agents' sessions), then the checkpointed file contents no
    /// remaining session names.
    Prune {
        /// Age in days past which a session goes.
        #[arg(long, value_name = "DAYS")]
        older_than: u64,
        /// Say what would go, and delete nothing.
        #[arg(long)]
        dry_run: bool,
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Verify a session's chain and print its messages.
    Show {
        /// A session id (see `amber sessions list`).
        #[arg(add = clap_complete::engine::ArgValueCandidates::new(super::completers::session_ids))]
        id: String,
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
}

pub fn store(dirs: &AmberDirs) -> SessionStore {
    SessionStore::new(dirs.data.join("sessions"))
}

pub fn run(
    host: &amber_app::host::Host,
    cmd: SessionsCommand,
    project: &amber_core::project::ProjectRoot,
) -> Result<()> {
    match cmd {
        SessionsCommand::List { json } => list(&host.dirs, json),
        SessionsCommand::Show { id, json } => show(&host.dirs, &id, json),
        SessionsCommand::Fork { id, at, json } => fork(&host.dirs, &id, at, json),
        SessionsCommand::Delete { ids, json } => delete(&host.dirs, &ids, json),
        SessionsCommand::Prune {
            older_than,
            dry_run,
            json,
        } => prune(&host.dirs, older_than, dry_run, json),
        SessionsCommand::Rewind {
            id,
            to,
            code,
            conversation,
            force,
            json,
        } => {
            let what = match (code, conversation) {
                (true, _) => What::Code,
                (_, true) => What::Conversation,
                _ => What::Both,
            };
            let config = host.config()?;
            let settings = &config.checkpoints;
            rewind(&host.dirs, &project.root, settings, &id, to, what, force, json)
        }
    }
}

fn list(dirs: &AmberDirs, as_json: bool) -> Result<()> {
    let sessions = store(dirs).list()?;
    if as_json {
        return print_json(&json!({ "sessions": sessions }));
    }
    out!("{}", amber_app::render::sessions::list(&sessions));
    Ok(())
}

#[allow(clippy::too_many_arguments, reason = "the command's own arguments, each named")]
fn rewind(
    dirs: &AmberDirs,
    workspace: &std::path::Path,
    settings: &amber_config::CheckpointsConfig,
    id: &str,
    turn: usize,
    what: What,
    force: bool,
    as_json: bool,
) -> Result<()> {
    let path = store(dirs).path(id)?;
    // Nobody else writes the session while it is rewound, files included.
    let lock = amber_core::session::SessionLock::acquire(&path)?;
    // Checked whole first: a turn it does not have changes nothing.
    amber_core::session::rewind::messages_at(&path, turn)?;
    // The files are this workspace's: the session must be its own (its
    // start record is not trusted to name where to write).
    let recorded = session::resume(&path)?.info.map(|i| i.workspace).unwrap_or_default();
    let own = std::path::Path::new(&recorded) == workspace;
    if what.code() && !own {
        anyhow::bail!(
            "session {id} belongs to the workspace {recorded}; rewind its files from there (amber -C {recorded} sessions rewind …)"
        );
    }
    let mut session = ClosedSession::open(&path, lock)?;
    // A turn killed before its changes were recorded: recorded first, so
    // the rewind restores them too.
    let earlier = amber_app::checkpoints::rewind::changes_after(&path, 0)?;
    let checkpoints = amber_app::checkpoints::for_session(dirs, workspace, settings, &earlier, id);
    if let Some((changes, notes)) = own.then(|| checkpoints.recover()).flatten() {
        session.checkpoint(&changes)?;
        checkpoints.recorded();
        for note in notes {
            errln!("note: {note}");
        }
    }
    let done = session_rewind::rewind(
        dirs,
        workspace,
        &path,
        turn,
        what,
        force,
        &mut Writer::Closed(Box::new(session)),
    )?;
    if as_json {
        return print_json(&json!({
            "session": id, "turn": done.turn, "what": done.what, "files": done.files, "messages": done.messages,
        }));
    }
    outln!("{}", done.describe());
    if done.messages.is_some() {
        outln!("go on with: amber --resume {id}");
    }
    Ok(())
}

/// Deletes session `id` and its sub-agents', with their checkpoint
/// journals; the ids deleted.
fn delete_one(dirs: &AmberDirs, id: &str) -> Result<Vec<String>, session::SessionError> {
    let gone = store(dirs).delete(id)?;
    for id in &gone {
        let _ = std::fs::remove_file(amber_app::checkpoints::journal_path(dirs, id));
    }
    Ok(gone)
}

fn delete(dirs: &AmberDirs, ids: &[String], as_json: bool) -> Result<()> {
    let mut deleted = Vec::new();
    let mut failed = Vec::new();
    for id in ids {
        match delete_one(dirs, id) {
            Ok(gone) => deleted.extend(gone),
            Err(e) => failed.push(format!("{id}: {e}")),
        }
    }
    let pruned = prune_store(dirs)?;
    let images = prune_images(dirs)?;
    report_deleted(&deleted, &pruned, &images, as_json)?;
    if !failed.is_empty() {
        anyhow::bail!("not deleted:\n{}", failed.join("\n"));
    }
    Ok(())
}

fn prune(dirs: &AmberDirs, days: u64, dry_run: bool, as_json: bool) -> Result<()> {
    let store = store(dirs);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let cutoff = now.saturating_sub(days.saturating_mul(86_400));
    // Sub-agents' sessions go with their parent's.
    let old: Vec<String> = store
        .list()?
        .into_iter()
        .filter(|s| s.parent.is_none() && s.updated <= cutoff)
        .map(|s| s.id)
        .collect();
    if dry_run {
        if as_json {
            return print_json(&json!({ "would_delete": old }));
        }
        outln!("would delete {} session(s): {}", old.len(), old.join(", "));
        return Ok(());
    }
    let mut deleted = Vec::new();
    for id in &old {
        match delete_one(dirs, id) {
            Ok(gone) => deleted.extend(gone),
            // Open in a run: it stays, and says so.
            Err(e) => errln!("kept {id}: {e}"),
        }
    }
    let pruned = prune_store(dirs)?;
    let images = prune_images(dirs)?;
    report_deleted(&deleted, &pruned, &images, as_json)
}

/// The sessions' images, less those no session names.
fn prune_images(dirs: &AmberDirs) -> Result<amber_app::checkpoints::prune::Pruned> {
    let sessions = store(dirs);
    amber_app::checkpoints::prune::prune_images(sessions.dir()).map_err(|e| {
        anyhow::anyhow!(
            "cannot prune the sessions' images in {}: {e}",
            sessions.dir().display()
        )
    })
}

/// The checkpoint store, less what no session names.
fn prune_store(dirs: &AmberDirs) -> Result<amber_app::checkpoints::prune::Pruned> {
    let objects = amber_app::checkpoints::store_dir(dirs);
    amber_app::checkpoints::prune::prune(&objects, store(dirs).dir())
        .map_err(|e| anyhow::anyhow!("cannot prune the checkpoint store {}: {e}", objects.display()))
}

fn report_deleted(
    deleted: &[String],
    pruned: &amber_app::checkpoints::prune::Pruned,
    images: &amber_app::checkpoints::prune::Pruned,
    as_json: bool,
) -> Result<()> {
    if as_json {
        return print_json(
            &json!({ "deleted": deleted, "checkpoints": pruned, "images": images }),
        );
    }
    outln!(
        "deleted {} session(s){}",
        deleted.len(),
        if deleted.is_empty() {
            String::new()
        } else {
            format!(": {}", deleted.join(", "))
        }
    );
    outln!(
        "checkpoint store: {} content(s) removed ({:.1} MiB), {} kept",
        pruned.objects,
        pruned.bytes as f64 / (1024.0 * 1024.0),
        pruned.kept
    );
    if images.objects + images.kept > 0 {
        outln!(
            "images: {} removed ({:.1} MiB), {} kept",
            images.objects,
            images.bytes as f64 / (1024.0 * 1024.0),
            images.kept
        );
    }
    Ok(())
}

fn fork(dirs: &AmberDirs, id: &str, at: Option<usize>, as_json: bool) -> Result<()> {
    let forked = session::fork::fork(&store(dirs), id, at)?;
    if as_json {
        return print_json(&forked);
    }
    outln!(
        "forked {id} at turn {} into {} ({} messages); go on with: amber --resume {}",
        forked.from.turn,
        forked.id,
        forked.messages,
        forked.id
    );
    Ok(())
}

fn show(dirs: &AmberDirs, id: &str, as_json: bool) -> Result<()> {
    let store = store(dirs);
    let path = store.path(id)?;
    let resumed = session::resume(&path)?;
    let messages = resumed.chain.get_all();
    let sub_agents = sub_agents(&store, &resumed);
    if as_json {
        return print_json(&json!({
            "id": id,
            "path": path,
            "verified": true,
            "head": resumed.chain.head().to_hex().to_string(),
            "info": resumed.info,
            "turns": resumed.turns,
            "warnings": resumed.warnings,
            "unanswered_calls": resumed.interrupted,
            "sub_agents": sub_agents,
            "spend": amber_app::render::cost::data(&resumed.heads),
            "messages": messages,
        }));
    }
    if let Some(info) = &resumed.info {
        outln!(
            "session {id} · {} {} · {} · started {}",
            info.provider,
            info.model,
            info.workspace,
            timestamp(info.created)
        );
    }
    outln!(
        "chain verified: {} messages, {} turns, head {}",
        messages.len(),
        resumed.turns,
        &resumed.chain.head().to_hex()[..16]
    );
    for w in &resumed.warnings {
        outln!("warning: {w}");
    }
    for message in messages {
        print_message(message);
    }
    outln!("\nspent:\n{}", amber_app::render::cost::table(&resumed.heads, None).trim_end());
    if !sub_agents.is_empty() {
        outln!("\nsub-agents:");
        for child in &sub_agents {
            let state = match &child["error"] {
                serde_json::Value::String(e) => format!("NOT verified: {e}"),
                _ => format!(
                    "verified, {}",
                    amber_core::text::count(child["turns"].as_u64().unwrap_or(0) as usize, "turn")
                ),
            };
            outln!(
                "  {} (call {}) → session {} · {state}",
                child["agent"].as_str().unwrap_or_default(),
                child["call_id"].as_str().unwrap_or_default(),
                child["session"].as_str().unwrap_or_default(),
            );
        }
    }
    if !resumed.interrupted.is_empty() {
        let n = resumed.interrupted.len();
        let verb = if n == 1 { "has" } else { "have" };
        outln!(
            "\n{} {verb} no result; `amber exec --resume {id}` records them as interrupted",
            amber_core::text::count(n, "tool call")
        );
    }
    Ok(())
}

/// The sessions of the sub-agents `resumed` started, each verified as
/// its parent was, with its link back checked.
fn sub_agents(store: &SessionStore, resumed: &session::Resumed) -> Vec<serde_json::Value> {
    let parent = resumed.info.as_ref().map(|i| i.id.as_str());
    resumed
        .children
        .iter()
        .map(|(id, call_id, agent)| {
            let checked = store
                .path(id)
                .map_err(|e| e.to_string())
                .and_then(|path| session::resume(&path).map_err(|e| e.to_string()))
                .and_then(|child| {
                    let link = child.info.as_ref().and_then(|i| i.parent.as_ref());
                    match link {
                        Some(link) if Some(link.session.as_str()) == parent && &link.call_id == call_id => {
                            Ok(child)
                        }
                        _ => Err("its start record does not name this session and call as its parent".into()),
                    }
                });
            match checked {
                Ok(child) => json!({
                    "session": id, "call_id": call_id, "agent": agent, "verified": true,
                    "turns": child.turns,
                    "profile": child.info.and_then(|i| i.parent).and_then(|p| p.profile),
                }),
                Err(error) => json!({
                    "session": id, "call_id": call_id, "agent": agent, "verified": false,
                    "error": error,
                }),
            }
        })
        .collect()
}

fn print_message(message: &Message) {
    let role = match message.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    };
    outln!("\n[{role}]");
    for part in &message.parts {
        match part {
            Part::Text { text } => outln!("{text}"),
            Part::Reasoning(r) if !r.text.is_empty() => outln!("(thinking) {}", r.text),
            Part::Reasoning(_) => outln!("(reasoning kept for the provider)"),
            Part::ToolCall(c) => outln!("→ {} {} ({})", c.name, c.arguments, c.id),
            Part::ToolResult(r) => outln!("← {} {}", r.call_id, r.content),
            Part::Image(image) => outln!("[image: {}]", image.describe()),
        }
    }
}

use amber_app::render::sessions::timestamp;
