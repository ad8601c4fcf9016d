//! The feeds: leaves the command tree gets at runtime ("Command feeds"),
//! each with a generated action whose closure the feed registers. Models
//! and providers come from the presets, plugin ids from the manager,
//! session ids from the store, and each enabled plugin's own subtree from
//! the ledger's command registry ("Command binding").

use std::collections::BTreeMap;
use std::sync::Arc;

use amber_core::commands::{
    merge_completions_json, plugin_subtree, CommandError, Feed, Handler, Invocation, Node, Reply,
};
use amber_core::Owner;

use crate::builtins::{self, settings};
use crate::{presets, App};

/// Every feed, built from the live state.
pub fn all(app: &App) -> Vec<Feed<App>> {
    vec![
        choices(app, "models", "model", &["set", "model"]),
        choices(app, "model-picks", "model", &["model"]),
        choices(app, "providers", "provider", &["set", "provider"]),
        keys(),
        file_commands(app),
        plugins(app),
        skills(app),
        agents(app),
        sessions(app),
        mcp_servers(app, "connect", builtins::mcp::connect),
        mcp_servers(app, "disconnect", builtins::mcp::disconnect),
        rules(app),
        plugin_commands(app),
    ]
}

/// How many of the newest sessions complete after `/sessions show`.
const RECENT_SESSIONS: usize = 20;

/// The newest sessions' ids under `/sessions show`.
fn sessions(app: &App) -> Feed<App> {
    let list = crate::session::store(&app.dirs).list().unwrap_or_default();
    let mut leaves = BTreeMap::new();
    let mut handlers: Vec<(String, Handler<App>)> = Vec::new();
    for s in list.into_iter().take(RECENT_SESSIONS) {
        let action = format!("feed.sessions.show.{}", s.id);
        let help = format!("{} · {} msgs · {}", s.provider, s.messages, s.title);
        leaves.insert(s.id.clone(), leaf(help, &action));
        let id = s.id;
        let handler: Handler<App> = Arc::new(move |app: &mut App, _inv: &Invocation<'_>| {
            builtins::session::show_session(app, &id)
        });
        handlers.push((action, handler));
    }
    Feed {
        name: "sessions".into(),
        tree: at(&["sessions", "show"], leaves),
        handlers,
    }
}

/// The configured MCP servers under `/mcp connect` or `/mcp disconnect`.
fn mcp_servers(app: &App, verb: &str, run: builtins::Builtin) -> Feed<App> {
    let mut leaves = BTreeMap::new();
    let mut handlers: Vec<(String, Handler<App>)> = Vec::new();
    for server in &app.config().mcp.servers {
        let action = format!("feed.mcp.{verb}.{}", server.name);
        leaves.insert(
            server.name.clone(),
            leaf(format!("{verb} {}", server.target()), &action),
        );
        handlers.push((action, builtins::handler(run)));
    }
    Feed {
        name: format!("mcp-{verb}"),
        tree: at(&["mcp", verb], leaves),
        handlers,
    }
}

/// The tools that have stored policy rules, under `/get rules`.
fn rules(app: &App) -> Feed<App> {
    let mut leaves = BTreeMap::new();
    let mut handlers: Vec<(String, Handler<App>)> = Vec::new();
    for rule in &app.config().policy.rules {
        if leaves.contains_key(&rule.tool) {
            continue;
        }
        let action = format!("feed.rules.{}", rule.tool);
        leaves.insert(
            rule.tool.clone(),
            leaf(format!("the stored rules of `{}`", rule.tool), &action),
        );
        let tool = rule.tool.clone();
        let handler: Handler<App> =
            Arc::new(move |app: &mut App, _inv: &Invocation<'_>| settings::rules_of(app, &tool));
        handlers.push((action, handler));
    }
    Feed {
        name: "policy-rules".into(),
        tree: at(&["get", "rules"], leaves),
        handlers,
    }
}

/// A partial tree from the root down `path`, with `leaves` there. The
/// nodes on the way have no fields, so the merge keeps the documented
/// ones.
fn at(path: &[&str], leaves: BTreeMap<String, Node>) -> Node {
    let mut node = Node {
        children: leaves,
        ..Node::default()
    };
    for name in path.iter().rev() {
        node = Node {
            children: BTreeMap::from([(name.to_string(), node)]),
            ..Node::default()
        };
    }
    node
}

fn leaf(help: String, action: &str) -> Node {
    Node {
        help,
        action: Some(action.to_string()),
        ..Node::default()
    }
}

/// The command files of the user and the workspace (`file_commands`),
/// each a root command: `/fix`, `/frontend:test`.
fn file_commands(app: &App) -> Feed<App> {
    let (commands, _) = crate::file_commands::discover(&app.command_folders());
    let mut roots = BTreeMap::new();
    let mut handlers: Vec<(String, Handler<App>)> = Vec::new();
    for command in commands {
        // A built-in of the same name stays the built-in.
        if amber_core::commands::is_builtin_root(&command.name) {
            continue;
        }
        let action = format!("feed.file-commands.{}", command.name);
        let help = match &command.argument_hint {
            Some(hint) => format!("{} {hint} ({})", command.description, command.origin.describe()),
            None => format!("{} ({})", command.description, command.origin.describe()),
        };
        roots.insert(
            command.name.clone(),
            Node {
                help,
                man: Some(command.man()),
                action: Some(action.clone()),
                ..Node::default()
            },
        );
        let handler: Handler<App> = Arc::new(move |_app: &mut App, inv: &Invocation<'_>| {
            let effect = command.effect(inv.arg);
            Ok(Reply::text(format!("{} from {}", effect.command, effect.source))
                .with_effect(amber_core::commands::Effect::Prompt(effect)))
        });
        handlers.push((action, handler));
    }
    Feed {
        name: "file-commands".into(),
        tree: Node {
            children: roots,
            ..Node::default()
        },
        handlers,
    }
}

/// `/keys` (and `/help keys`): the TUI's key table, from the one place
/// that holds it.
fn keys() -> Feed<App> {
    let action = "feed.keys";
    let page = crate::keys::page();
    let node = Node {
        help: "the TUI's keys".into(),
        man: Some(page.clone()),
        action: Some(action.to_string()),
        ..Node::default()
    };
    let handler: Handler<App> = Arc::new(move |_app: &mut App, _inv: &Invocation<'_>| {
        Ok(Reply::text(page.clone()))
    });
    Feed {
        name: "keys".into(),
        tree: Node {
            children: BTreeMap::from([("keys".to_string(), node)]),
            ..Node::default()
        },
        handlers: vec![(action.to_string(), handler)],
    }
}

/// `/set model NAME`, `/model NAME` and `/set provider NAME` (at `path`)
/// for every preset's model and name: choices to complete, each setting
/// its value when chosen.
fn choices(app: &App, feed: &str, key: &'static str, path: &[&str]) -> Feed<App> {
    let mut names: BTreeMap<String, String> = BTreeMap::new();
    if let Ok(presets) = presets::presets_from(app.config()) {
        for preset in presets.all() {
            let (name, help) = match key {
                "model" => (
                    preset.model.clone(),
                    format!("the model of the {} preset", preset.name),
                ),
                _ => (
                    preset.name.clone(),
                    format!(
                        "{} at {} ({})",
                        preset.flavor, preset.base_url, preset.model
                    ),
                ),
            };
            names.entry(name).or_insert(help);
        }
    }
    let mut leaves = BTreeMap::new();
    let mut handlers: Vec<(String, Handler<App>)> = Vec::new();
    for (name, help) in names {
        let action = format!("feed.{feed}.{name}");
        leaves.insert(name.clone(), leaf(help, &action));
        let handler: Handler<App> = Arc::new(move |app: &mut App, inv: &Invocation<'_>| {
            let (words, save) = builtins::words_and_save(inv.arg);
            if let Some(extra) = words.first() {
                return Err(builtins::failed(format!(
                    "/set {key} {name} takes no more words, got `{extra}`"
                )));
            }
            settings::set(app, inv.tree, key, &name, save)
        });
        handlers.push((action, handler));
    }
    Feed {
        name: feed.to_string(),
        tree: at(path, leaves),
        handlers,
    }
}

/// Skill names under `/skills show|enable|disable`.
fn skills(app: &App) -> Feed<App> {
    // The session's catalog as it stands: a tree rebuild reads no disk.
    let catalog = match app.live().and_then(|live| live.skills.as_ref()) {
        Some(set) => set.catalog(),
        None => Arc::new(crate::skills::catalog(
            &app.dirs,
            &app.project.root,
            &app.config().skills,
        )),
    };
    let named: Vec<(String, String)> = catalog
        .skills
        .iter()
        .map(|s| (s.name.clone(), s.description.clone()))
        .collect();
    names_under(
        "skills",
        &["show", "enable", "disable"],
        &named,
        builtins::skills::act,
    )
}

/// Custom agent names under `/agents show`.
fn agents(app: &App) -> Feed<App> {
    let catalog = crate::agents::catalog(&app.dirs, &app.project.root);
    let named: Vec<(String, String)> = catalog
        .agents
        .iter()
        .map(|a| (a.name.clone(), a.description.clone()))
        .collect();
    names_under("agents", &["show"], &named, builtins::agents::act)
}

/// `(name, help)` leaves under `/ROOT VERB` for each verb, each running
/// `act(app, verb, name)`.
fn names_under(
    root: &'static str,
    verbs: &[&'static str],
    named: &[(String, String)],
    act: fn(&mut App, &str, &str) -> builtins::Handled,
) -> Feed<App> {
    let mut tree = Node::default();
    let mut handlers: Vec<(String, Handler<App>)> = Vec::new();
    for &verb in verbs {
        let mut leaves = BTreeMap::new();
        for (name, help) in named {
            let action = format!("feed.{root}.{verb}.{name}");
            leaves.insert(name.clone(), leaf(amber_core::text::one_line(help, 72), &action));
            let name = name.clone();
            let handler: Handler<App> =
                Arc::new(move |app: &mut App, _inv: &Invocation<'_>| act(app, verb, &name));
            handlers.push((action, handler));
        }
        merge_completions_json(&mut tree, &at(&[root, verb], leaves));
    }
    Feed {
        name: root.into(),
        tree,
        handlers,
    }
}

/// Plugin ids under `/plugins enable|disable|info`.
fn plugins(app: &App) -> Feed<App> {
    let listed = app.manager().list().unwrap_or_default();
    let mut tree = Node::default();
    let mut handlers: Vec<(String, Handler<App>)> = Vec::new();
    for verb in ["enable", "disable", "info"] {
        let mut leaves = BTreeMap::new();
        for plugin in &listed {
            let id = plugin.id.clone();
            let action = format!("feed.plugins.{verb}.{id}");
            let help = format!(
                "{} ({})",
                plugin.status.manifest.description, plugin.status.state
            );
            leaves.insert(id.clone(), leaf(help, &action));
            let handler: Handler<App> =
                Arc::new(move |app: &mut App, _inv: &Invocation<'_>| match verb {
                    "info" => builtins::plugins::info_of(app, &id),
                    _ => builtins::plugins::switch(app, &id, verb == "enable"),
                });
            handlers.push((action, handler));
        }
        merge_completions_json(&mut tree, &at(&["plugins", verb], leaves));
    }
    Feed {
        name: "plugins".into(),
        tree,
        handlers,
    }
}

/// The command subtrees of the enabled plugins, from the ledger's
/// registry. An executable leaf's action is `plugin.<id>.<path>`; its
/// closure finds the handler in the live registry when it runs, so a
/// plugin disabled a moment ago answers "unknown command", never a stale
/// call. A plugin whose spec fails shows its root, inert, with the
/// reason.
fn plugin_commands(app: &App) -> Feed<App> {
    let ledger = app.manager().runtime().ledger();
    let mut tree = Node::default();
    let mut handlers: Vec<(String, Handler<App>)> = Vec::new();
    for (owner, command) in ledger.owned_commands() {
        let Owner::Plugin(id) = owner else {
            continue;
        };
        let root = command.root().clone();
        let subtree = match command.spec() {
            Ok(nodes) => plugin_subtree(&id, &root, &nodes),
            Err(e) => Node::default().with_child(
                root.root.clone(),
                Node::new(format!("plugin `{id}`'s commands could not be read: {e}")),
            ),
        };
        // One handler serves the plugin's every executable node: dispatch
        // hands it the node's path, root first, which is what the plugin
        // is asked by (command.wit: `path` names the node from the root).
        let run = plugin_handler(&id, &root.root);
        for (_, node) in subtree.walk() {
            if let Some(action) = node.action() {
                handlers.push((action.to_string(), Arc::clone(&run)));
            }
        }
        merge_completions_json(&mut tree, &subtree);
    }
    Feed {
        name: "plugin-commands".into(),
        tree,
        handlers,
    }
}

/// Runs the invoked node of the plugin's subtree, looked up in the live
/// registry.
fn plugin_handler(id: &str, root: &str) -> Handler<App> {
    let (owner, root) = (Owner::Plugin(id.to_string()), root.to_string());
    Arc::new(move |app: &mut App, inv: &Invocation<'_>| {
        let live = app.manager().runtime().ledger().owned_command(&root);
        let Some(command) = live.filter(|(o, _)| *o == owner).map(|(_, c)| c) else {
            return Err(CommandError::Gone);
        };
        command
            .run(inv.path, inv.arg)
            .map(|text| Reply::text(capped(text)))
            .map_err(|e| CommandError::Failed(e.to_string()))
    })
}

/// The most of a plugin command's reply amber shows: a reply is read by a
/// person, in a status line or a pane, and 1 MB of it helps nobody.
pub const MAX_REPLY_BYTES: usize = 64 << 10;

/// `text` cut at [`MAX_REPLY_BYTES`] (on a character boundary), saying so.
fn capped(mut text: String) -> String {
    if text.len() <= MAX_REPLY_BYTES {
        return text;
    }
    let mut end = MAX_REPLY_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let dropped = text.len() - end;
    text.truncate(end);
    text.push_str(&format!(
        "\n… ({dropped} bytes more; amber shows the first {} KiB of a command's reply)",
        MAX_REPLY_BYTES >> 10
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_reply_is_cut_on_a_character_boundary_and_says_so() {
        let text = "é".repeat(MAX_REPLY_BYTES);
        let cut = capped(text);
        assert!(cut.len() < MAX_REPLY_BYTES + 100);
        assert!(
            cut.ends_with("KiB of a command's reply)"),
            "{}",
            &cut[cut.len() - 80..]
        );
        assert_eq!(capped("short".into()), "short");
    }
}
