//! `/sessions`, `/status`, `/compact`, `/clear` and `/quit`: the
//! session's own commands. From the shell there is no session: `/status`
//! shows the config's settings, `/clear` has nothing to clear, and
//! `amber /compact` opens the session it compacts (amber-cli).

use amber_core::commands::{Effect, Invocation, Reply};
use amber_core::text::count;
use serde_json::json;

use super::{failed, Handled};
use crate::render::sessions as render;
use crate::{session, App};

/// `/sessions`: the recorded sessions, newest first.
pub fn sessions(app: &mut App, _inv: &Invocation<'_>) -> Handled {
    let list = session::store(&app.dirs)
        .list()
        .map_err(|e| failed(e.to_string()))?;
    Ok(Reply::text(render::list(&list).trim_end()).with_data(json!({ "sessions": list })))
}

/// `/sessions show ID`: the session's chain verified, and a summary.
pub fn show(app: &mut App, inv: &Invocation<'_>) -> Handled {
    let id = match inv.path.get(2) {
        Some(id) => id.as_str(),
        None => inv.arg.trim(),
    };
    if id.is_empty() {
        return Err(failed("usage: /sessions show ID (see /sessions)"));
    }
    show_session(app, id)
}

/// Verifies session `id` as a resume does and summarises it.
pub fn show_session(app: &mut App, id: &str) -> Handled {
    let store = session::store(&app.dirs);
    let path = store.path(id).map_err(|e| failed(e.to_string()))?;
    let resumed = amber_core::session::resume(&path).map_err(|e| failed(e.to_string()))?;
    let messages = resumed.chain.get_all().len();
    let head = resumed.chain.head().to_hex().to_string();
    let mut lines = Vec::new();
    if let Some(info) = &resumed.info {
        lines.push(format!(
            "session {id} · {} {} · {} · started {}",
            info.provider,
            info.model,
            info.workspace,
            render::timestamp(info.created)
        ));
    }
    lines.push(format!(
        "chain verified: {messages} messages, {} turns, head {}",
        resumed.turns,
        &head[..16.min(head.len())]
    ));
    lines.extend(resumed.warnings.iter().map(|w| format!("warning: {w}")));
    lines.push(format!("resume it with: amber exec --resume {id} \"…\""));
    Ok(Reply::text(lines.join("\n")).with_data(json!({
        "id": id,
        "verified": true,
        "head": head,
        "messages": messages,
        "turns": resumed.turns,
        "info": resumed.info,
        "warnings": resumed.warnings,
    })))
}

/// The first names of a list, and how many more: a screen's worth
/// (`--json` has them all).
fn some_names(names: &[String]) -> String {
    const SHOWN: usize = 12;
    let mut shown = names
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        shown.push_str(&format!(", … and {} more", names.len() - SHOWN));
    }
    shown
}

/// `/tools`: what the next request declares, and what waits behind
/// `tool_search`.
pub fn tools(app: &mut App, _inv: &Invocation<'_>) -> Handled {
    let Some(live) = app.live() else {
        let names: Vec<String> = app
            .manager()
            .runtime()
            .ledger()
            .tools()
            .iter()
            .map(|t| t.spec().name.clone())
            .collect();
        return Ok(Reply::text(format!(
            "no session is open; the plugins and servers offer {} tools: {}",
            names.len(),
            names.join(", ")
        ))
        .with_data(json!({"offered": names, "found": [], "deferred": []})));
    };
    let offer = live.agent.tool_offer();
    let mut lines = vec![format!(
        "declared in full ({}): {}",
        offer.offered.len(),
        some_names(&offer.offered)
    )];
    if !offer.found.is_empty() {
        lines.push(format!(
            "found by tool_search ({}): {}",
            offer.found.len(),
            some_names(&offer.found)
        ));
    }
    if offer.deferred.is_empty() {
        lines.push("none waits behind tool_search".to_string());
    } else {
        lines.push(format!(
            "waiting behind tool_search ({}): {}",
            offer.deferred.len(),
            some_names(&offer.deferred)
        ));
    }
    Ok(Reply::text(lines.join("\n")).with_data(json!({
        "offered": offer.offered,
        "found": offer.found,
        "deferred": offer.deferred,
    })))
}

/// `/status`: model, mode, tokens and context use.
pub fn status(app: &mut App, _inv: &Invocation<'_>) -> Handled {
    let settings = app.settings();
    let tools = app.manager().runtime().ledger().tools().len();
    let mut lines = vec![
        format!("model     {} ({})", settings.model, settings.provider),
        format!("mode      {}", settings.policy.as_str()),
        format!("workspace {}", app.project.root.display()),
    ];
    let mut data = json!({
        "provider": settings.provider,
        "model": settings.model,
        "mode": settings.policy.as_str(),
        "workspace": app.project.root.display().to_string(),
        "tools": tools,
        "session": null,
    });
    match app.live() {
        Some(live) => {
            let context = live.agent.context_usage();
            let (tokens, window) = (context.tokens, context.window);
            let share = (window > 0).then(|| context.utilisation());
            let usage = live.agent.last_usage();
            let compression = &live.compression;
            let when = if compression.enabled {
                format!("compression at {:.0}%", compression.threshold * 100.0)
            } else {
                "compression off".to_string()
            };
            let used = match share {
                Some(share) => format!(
                    "{tokens} of {window} tokens ({:.0}%; {when})",
                    share * 100.0
                ),
                None => format!("{tokens} tokens (the window is unknown)"),
            };
            lines.push(format!("session   {}", live.info.id));
            lines.push(format!("context   {used}"));
            lines.push(format!(
                "last call {} in, {} cached, {} out",
                usage.input_tokens, usage.cached_input_tokens, usage.output_tokens
            ));
            data["session"] = json!({
                "id": live.info.id,
                "context_tokens": tokens,
                "context_window": window,
                "context_share": share,
                "compression": live.compression,
                "last_usage": usage,
            });
        }
        None => lines.push("session   none (from the shell each command runs alone)".into()),
    }
    lines.push(format!("tools     {}", count(tools, "tool")));
    // How commands run, which servers are connected, which hooks run.
    let sandbox = crate::host::spawner(app.config()).backend().describe();
    lines.push(format!("sandbox   {sandbox}"));
    data["sandbox"] = json!(sandbox);
    let servers = match app.mcp().ok().flatten() {
        Some(hub) => hub.statuses(),
        None => Vec::new(),
    };
    if servers.is_empty() {
        lines.push("mcp       no servers configured".into());
    } else {
        let each: Vec<String> = servers
            .iter()
            .map(|s| {
                let state = serde_json::to_value(&s.state)
                    .ok()
                    .and_then(|v| v.get("state").and_then(|x| x.as_str()).map(String::from))
                    .unwrap_or_default();
                format!("{} ({state}, {})", s.name, count(s.tools.len(), "tool"))
            })
            .collect();
        lines.push(format!("mcp       {}", each.join(", ")));
    }
    data["mcp"] = json!(servers);
    let (hooks, _) = crate::hooks::list(
        app.manager().runtime().ledger(),
        app.config(),
        &app.dirs,
        &app.project.root,
    );
    let running = hooks.iter().filter(|h| h.trust != "untrusted").count();
    let waiting = hooks.len() - running;
    let mut said = count(running, "hook");
    if waiting > 0 {
        said.push_str(&format!(", {waiting} untrusted (amber hooks trust)"));
    }
    lines.push(format!("hooks     {said}"));
    data["hooks"] = json!({ "running": running, "untrusted": waiting });
    Ok(Reply::text(lines.join("\n")).with_data(data))
}

/// `/compact [focus words]`: checks there is something to compact and
/// asks the front end to run the cycle, which is a model call whose
/// events the front end draws ([`App::compact`]).
pub fn compact(app: &mut App, inv: &Invocation<'_>) -> Handled {
    let Some(live) = app.live() else {
        return Err(failed(
            "no session is open to compact (from the shell: amber /compact [--session ID] [focus words])",
        ));
    };
    if !live.compression.enabled {
        return Err(failed(
            "compression is off (agent.compress_enabled = false); /set compress_enabled true turns it on",
        ));
    }
    let focus = Some(inv.arg.trim())
        .filter(|f| !f.is_empty())
        .map(str::to_string);
    let text = match &focus {
        Some(focus) => format!("compacting session {}, focused on: {focus}", live.info.id),
        None => format!("compacting session {}", live.info.id),
    };
    Ok(Reply::text(text)
        .with_data(json!({ "session": live.info.id, "focus": focus }))
        .with_effect(Effect::Compact { focus }))
}

/// `/clear`: a new session in place of this one; the old one stays on
/// disk and can be resumed.
pub fn clear(app: &mut App, _inv: &Invocation<'_>) -> Handled {
    let Some(old) = app.live().map(|l| l.info.id.clone()) else {
        return Ok(Reply::text(
            "nothing to clear: no session is open (from the shell each command runs alone)",
        ));
    };
    app.new_session().map_err(|e| failed(format!("{e:#}")))?;
    let new = app.live().map(|l| l.info.id.clone()).unwrap_or_default();
    Ok(Reply::text(format!(
        "new session {new} (the last one, {old}, is saved: amber exec --resume {old})"
    ))
    .with_data(json!({ "session": new, "previous": old }))
    .with_effect(Effect::Clear))
}

/// `/fork [TURN]`: a new session from this one's turns up to TURN (all,
/// by default), opened in its place; this one stays on disk as it was.
pub fn fork(app: &mut App, inv: &Invocation<'_>) -> Handled {
    let Some(old) = app.live().map(|l| l.info.id.clone()) else {
        return Ok(Reply::text(
            "no session is open to fork; from the shell: amber sessions fork ID [--at TURN]",
        ));
    };
    let at = match inv.arg.trim() {
        "" => None,
        turn => Some(turn.parse::<usize>().map_err(|_| {
            super::invalid(format!(
                "usage: /fork [TURN] (`{turn}` is not a turn number)"
            ))
        })?),
    };
    let store = crate::session::store(&app.dirs);
    let forked =
        amber_core::session::fork::fork(&store, &old, at).map_err(|e| failed(e.to_string()))?;
    app.resume_session(&forked.id)
        .map_err(|e| failed(format!("{e:#}")))?;
    Ok(Reply::text(format!(
        "forked {old} at turn {} into {}: you are in the fork now (the original is kept: amber --resume {old})",
        forked.from.turn, forked.id
    ))
    .with_data(json!({ "session": forked.id, "from": forked.from }))
    .with_effect(Effect::Switched))
}

/// `/quit`: the front end ends the run.
pub fn quit(_app: &mut App, _inv: &Invocation<'_>) -> Handled {
    Ok(Reply::text("bye").with_effect(Effect::Quit))
}

/// `/diff`: what the open session (from the shell, the workspace's latest)
/// changed: tracked files against the commit HEAD was at when it began,
/// and the new files its tools wrote.
pub fn diff(app: &mut App, _inv: &Invocation<'_>) -> Handled {
    let (info, replayed) = match app.live() {
        Some(live) => (
            live.info.clone(),
            app.transcript().map_err(|e| failed(format!("{e:#}")))?,
        ),
        None => {
            let id = crate::session::latest_in_workspace(&app.dirs, &app.project)
                .map_err(|e| failed(format!("{e:#}")))?
                .ok_or_else(|| failed("no session of this workspace has a turn yet"))?;
            let path = crate::session::store(&app.dirs)
                .path(&id)
                .map_err(|e| failed(e.to_string()))?;
            let resumed = amber_core::session::resume(&path).map_err(|e| failed(e.to_string()))?;
            let replayed =
                amber_core::session::transcript(&path).map_err(|e| failed(e.to_string()))?;
            (resumed.info.unwrap_or_default(), replayed)
        }
    };
    let workspace = app.project.root.clone();
    let written = written_paths(&replayed);
    let mut text = String::new();
    match &info.git_head {
        Some(head) => {
            text.push_str(&crate::git::diff_since(&workspace, head).map_err(failed)?);
            let untracked = crate::git::untracked(&workspace);
            for path in written.iter().filter(|p| untracked.contains(p)) {
                let Ok(now) = std::fs::read_to_string(workspace.join(path)) else {
                    continue;
                };
                text.push_str(
                    &similar::TextDiff::from_lines("", &now)
                        .unified_diff()
                        .header("/dev/null", path)
                        .to_string(),
                );
            }
        }
        None => {
            text.push_str("not a git workspace (or no commit yet when the session began): the files the tools wrote are listed, not diffed\n");
            for path in &written {
                text.push_str(&format!("  {path}\n"));
            }
        }
    }
    if text.trim().is_empty() {
        text = "no changes since the session began".into();
    }
    Ok(Reply::text(text.trim_end()).with_data(json!({
        "session": info.id,
        "since": info.git_head,
        "written": written,
    })))
}

/// The workspace paths a transcript's write and edit calls named.
fn written_paths(replayed: &[amber_core::session::Replayed]) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    for step in replayed {
        let amber_core::session::Replayed::Message(message) = step else {
            continue;
        };
        for part in &message.parts {
            let amber_core::ports::dialect::Part::ToolCall(call) = part else {
                continue;
            };
            if !matches!(call.name.as_str(), "write_file" | "edit_file") {
                continue;
            }
            let path = serde_json::from_str::<serde_json::Value>(&call.arguments)
                .ok()
                .and_then(|a| a.get("path")?.as_str().map(String::from));
            if let Some(path) = path.filter(|p| !paths.contains(p)) {
                paths.push(path);
            }
        }
    }
    paths
}
