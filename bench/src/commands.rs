//! The command tree (issue 24) at the size of a heavy user's: the built-in
//! commands plus feeds for a thousand models and a hundred plugin command
//! roots, 5,000 nodes in all. Dispatch of a 3-level command against a flat
//! HashMap of joined paths, completion of a prefix against a filter over a
//! sorted list of the same names, and the rebuild after a plugin is
//! enabled against merging every feed and indexing the tree from scratch.
//! And a plugin command, dispatched as the host does and run through the
//! runtime, against a bare tool call through the runtime.

use std::collections::HashMap;
use std::time::Instant;

use std::sync::Arc;

use amber_core::commands::{
    builtin_tree, handler, merge_completions_json, plugin_subtree, CommandError, CommandSet, Feed,
    Handler, Node, Reply, SettingRegistry,
};
use amber_core::Ledger;
use amber_runtime::{AmberDirs, Grants, PluginRuntime, RuntimeOptions};
use anyhow::{ensure, Context, Result};

use crate::measure::{guest, median, per_call_us, Figure, Rows};

const NODES: usize = 5_000;
const MODEL_FAMILIES: [&str; 5] = ["gpt", "claude", "gemini", "llama", "qwen"];
const MODELS_PER_FAMILY: usize = 200;
/// A plugin root with 10 subcommands of 4 leaves each: 51 nodes.
const SUBCOMMANDS: usize = 10;
const LEAVES: usize = 4;
const ROOT_SIZE: usize = 1 + SUBCOMMANDS * (1 + LEAVES);
/// The 3-level command dispatched, as typed and as the flat map's key.
const LINE: &str = "/cmd042 sub3 leaf2";
const JOINED: &str = "cmd042.sub3.leaf2";
/// A prefix that completes to 111 models (claude-1, claude-10…19, claude-100…199).
const PREFIX: &str = "/set model claude-1";

fn noop() -> Handler<()> {
    handler(|_, _| Ok(Reply::default()))
}

/// A plugin command root, `/cmdNNN sub* leaf*` with every leaf
/// executable, of at most `size` nodes (filled in pre-order).
fn plugin_root(help: &str, size: usize) -> Node {
    let mut root = Node::new(help);
    let mut count = 1;
    for s in 0..SUBCOMMANDS {
        if count >= size {
            break;
        }
        let mut sub = Node::new("a subcommand");
        count += 1;
        for l in 0..LEAVES {
            if count >= size {
                break;
            }
            sub = sub.with_child(
                format!("leaf{l}"),
                Node::new("a leaf").with_action("bench.leaf"),
            );
            count += 1;
        }
        root = root.with_child(format!("sub{s}"), sub);
    }
    root
}

fn model_names() -> Vec<String> {
    MODEL_FAMILIES
        .iter()
        .flat_map(|family| (0..MODELS_PER_FAMILY).map(move |i| format!("{family}-{i}")))
        .collect()
}

/// The built-in tree with a models feed and enough plugin roots for
/// exactly [`NODES`] nodes (the last root cut to fit).
fn big_set() -> Result<(CommandSet<()>, Vec<Node>)> {
    let mut set = CommandSet::new(builtin_tree());
    set.register("set.value", noop());
    let models = model_names()
        .into_iter()
        .fold(Node::default(), |node, name| {
            node.with_child(name, Node::new("a model").with_action("set.value"))
        });
    let models = Node::default().with_child("set", Node::default().with_child("model", models));
    set.set_feed(Feed::new("models", models.clone()));
    let mut roots = Node::default();
    let mut count = set.tree().count();
    let mut index = 0;
    while count < NODES {
        let root = plugin_root("a plugin's commands", ROOT_SIZE.min(NODES - count));
        count += root.count();
        roots.children.insert(format!("cmd{index:03}"), root);
        index += 1;
    }
    set.set_feed(Feed::new("plugin-commands", roots.clone()).with_handler("bench.leaf", noop()));
    ensure!(
        set.tree().count() == NODES,
        "the bench tree has {} nodes, not {NODES}",
        set.tree().count()
    );
    Ok((set, vec![models, roots]))
}

pub fn run(rows: &mut Rows) -> Result<()> {
    let (mut set, feeds) = big_set()?;

    let dispatch = per_call_us(31, 20_000, || {
        std::hint::black_box(set.dispatch(&mut (), std::hint::black_box(LINE)));
    });
    let flat: HashMap<String, Handler<()>> = set
        .tree()
        .walk()
        .filter(|(_, node)| node.action.is_some())
        .map(|(path, _)| (path.join("."), noop()))
        .collect();
    ensure!(flat.contains_key(JOINED), "{JOINED} is not in the tree");
    let flat_lookup = per_call_us(31, 20_000, || {
        let line = std::hint::black_box(LINE);
        let key = line
            .trim_start_matches('/')
            .split(' ')
            .collect::<Vec<_>>()
            .join(".");
        std::hint::black_box(flat.get(&key));
    });
    rows.push(
        Figure {
            name: "commands_dispatch_3_level_5k_nodes",
            unit: "us",
            value: dispatch,
            baseline: Some(("hashmap_lookup_of_joined_path", flat_lookup)),
            goal_value: Some(2.0),
            goal_ratio: None,
        }
        .row(),
    )?;

    let want = set.complete(PREFIX).len();
    ensure!(want == 111, "{PREFIX} completes to {want} names, not 111");
    let complete = per_call_us(31, 2_000, || {
        std::hint::black_box(set.complete(std::hint::black_box(PREFIX)));
    });
    let mut sorted = model_names();
    sorted.sort();
    let filter = per_call_us(31, 2_000, || {
        let typed = std::hint::black_box("claude-1");
        let names: Vec<String> = sorted
            .iter()
            .filter(|n| n.starts_with(typed))
            .cloned()
            .collect();
        std::hint::black_box(names);
    });
    rows.push(
        Figure {
            name: "commands_complete_prefix_5k_nodes",
            unit: "us",
            value: complete,
            baseline: Some(("filter_of_sorted_names", filter)),
            goal_value: Some(50.0),
            goal_ratio: None,
        }
        .row(),
    )?;

    // Enabling a plugin: its ~50-node subtree arrives as a feed of its
    // own. Each sample takes it out first (untimed), so every timed
    // set_feed really merges it. The registry is derived on first use
    // after a change, so a toggle does not pay for it; the baseline, the
    // naive rebuild, merges every feed from scratch and indexes the tree.
    let plugin = Node::default().with_child(
        "newplugin",
        plugin_root("the plugin just enabled", ROOT_SIZE),
    );
    let samples: Vec<f64> = (0..201)
        .map(|_| {
            set.remove_feed("plugin-new");
            let feed = Feed::new("plugin-new", plugin.clone()).with_handler("bench.leaf", noop());
            let start = Instant::now();
            set.set_feed(feed);
            std::hint::black_box(set.tree());
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    let rebuild = median(samples);
    ensure!(
        set.tree().count() == NODES + ROOT_SIZE,
        "the enabled plugin is not in the tree"
    );
    let from_scratch = per_call_us(15, 10, || {
        let mut tree = builtin_tree();
        for feed in &feeds {
            merge_completions_json(&mut tree, feed);
        }
        merge_completions_json(&mut tree, &plugin);
        std::hint::black_box(SettingRegistry::new(&tree));
    }) / 1e3;
    rows.push(
        Figure {
            name: "commands_rebuild_after_set_feed_5k_nodes",
            unit: "ms",
            value: rebuild,
            baseline: Some(("merge_all_feeds_and_index_from_scratch", from_scratch)),
            goal_value: Some(1.0),
            goal_ratio: None,
        }
        .row(),
    )?;

    plugin_command_call(rows)
}

/// A plugin command dispatched the way the host does it (tokenize, walk
/// the tree, the feed's closure finds the plugin's subtree in the live
/// registry, the call through the runtime) against a bare tool call
/// through the ledger and the runtime. Both components answer at once:
/// `/evil ok` (the hostile command guest's one well-behaved leaf) and
/// echo-tool's `echo`.
fn plugin_command_call(rows: &mut Rows) -> Result<()> {
    let scratch = tempfile::tempdir()?;
    let mut dirs = AmberDirs::under(scratch.path());
    dirs.cache = scratch.path().join("cache");
    let options = RuntimeOptions::new(dirs, scratch.path().to_path_buf());
    let ledger = Arc::new(Ledger::new());
    let runtime = PluginRuntime::new(options, ledger.clone())?;
    for name in ["echo-tool", "command-hostile"] {
        let (id, _) = runtime.register_file(&guest(name)?)?;
        runtime.enable(&id, Grants::none())?;
    }
    let command = ledger
        .command("evil")
        .context("the command guest is enabled")?;
    let subtree = plugin_subtree("evil", command.root(), &command.spec()?);
    let mut set: CommandSet<()> = CommandSet::new(builtin_tree());
    // As the host does: one handler for the plugin, the root looked up in
    // the live registry with its owner under one lock.
    let ledger_for_run = ledger.clone();
    let run: Handler<()> = handler(move |_, inv| {
        let live = ledger_for_run
            .owned_command("evil")
            .map(|(_, c)| c)
            .ok_or(CommandError::Gone)?;
        live.run(inv.path, inv.arg)
            .map(Reply::text)
            .map_err(|e| CommandError::Failed(e.to_string()))
    });
    let mut feed = Feed::new("plugin-commands", subtree.clone());
    for (_, node) in subtree.walk() {
        if let Some(action) = node.action() {
            feed = feed.with_handler(action, Arc::clone(&run));
        }
    }
    set.set_feed(feed);
    let outcome = set.dispatch(&mut (), "/evil ok");
    ensure!(
        outcome.text() == "still here",
        "the plugin command did not run: {}",
        outcome.text()
    );
    let command_call = per_call_us(31, 2000, || {
        std::hint::black_box(set.dispatch(&mut (), "/evil ok"));
    });
    let args = serde_json::json!({"x": 1});
    let tool_call = per_call_us(31, 2000, || {
        let tool = ledger.tool("echo").expect("echo is installed");
        std::hint::black_box(tool.call(&args).expect("echo answers"));
    });
    rows.push(
        Figure {
            name: "commands_plugin_command_call",
            unit: "us",
            value: command_call,
            baseline: Some(("tool_call_through_runtime", tool_call)),
            goal_value: None,
            goal_ratio: Some(3.0),
        }
        .row(),
    )
}
