//! The App's commands: opening an App with the built-in slash commands
//! registered, and running, completing and drawing its command tree, whose
//! feeds (presets, plugins, sessions, plugin subtrees) are rebuilt when
//! the plugins change. Apart from `app.rs`, the App's state, so the
//! built-in handlers (which act on that state) and the feeds depend on it,
//! and this file on them.

use std::sync::Arc;

use amber_config::Config;
use amber_core::commands::{builtin_tree, Candidate, CommandSet, Node, Outcome};
use amber_core::policy::Policy;
use amber_core::project::ProjectRoot;
use amber_runtime::manager::PluginManager;
use amber_runtime::AmberDirs;
use anyhow::Result;

use crate::app::App;
use crate::host::{self, Host};
use crate::session::{self, Live, SessionOptions};
use crate::{builtins, feeds};

/// The tree while a command runs, for a caller that asks then (a handler
/// reads the tree it runs from in its invocation instead).
static NO_TREE: Node = Node {
    help: String::new(),
    man: None,
    action: None,
    range: None,
    children: std::collections::BTreeMap::new(),
};

impl App {
    /// The host without a session: what `amber /cmd` from the shell runs
    /// commands against.
    pub fn open(host: &Host, project: ProjectRoot, options: SessionOptions) -> Result<App> {
        let config = session::config_for(&host.dirs, &options)?;
        let mode = options.mode.unwrap_or(config.policy.mode);
        let policy = host::policy(
            &host.front_end,
            &config,
            &project.root,
            Some(mode),
            options.yes,
        );
        let manager = host::loaded_with(host, &project.root, &config, Some(policy.clone()))?;
        Ok(Self::assemble(
            host.dirs.clone(),
            project,
            config,
            options,
            policy,
            manager,
            None,
            None,
        ))
    }

    /// The host with a session open (a new one, or `options.resume`
    /// verified first).
    pub fn open_session(host: &Host, project: ProjectRoot, options: SessionOptions) -> Result<App> {
        let open = session::open(host, &options, &project)?;
        Ok(Self::assemble(
            host.dirs.clone(),
            project,
            open.config,
            options,
            open.policy,
            open.manager,
            Some(open.live),
            open.mcp,
        ))
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn assemble(
        dirs: AmberDirs,
        project: ProjectRoot,
        config: Config,
        options: SessionOptions,
        policy: Arc<Policy>,
        manager: PluginManager,
        live: Option<Live>,
        mcp: Option<Arc<amber_mcp::McpHub>>,
    ) -> App {
        let mut commands = CommandSet::new(builtin_tree());
        builtins::register(&mut commands);
        App {
            project,
            dirs,
            config,
            options,
            policy,
            manager,
            live,
            commands: Some(commands),
            plugins_changed: false,
            built_from: None,
            mcp,
            mcp_waited: false,
            mcp_pending: Vec::new(),
            before_plan: None,
        }
    }

    /// Runs one slash-command line. Never panics: a handler's error or
    /// panic comes back as [`Outcome::Error`].
    pub fn dispatch(&mut self, line: &str) -> Outcome {
        if self.built_from.is_none() {
            self.refresh_feeds();
        }
        let Some(commands) = self.commands.take() else {
            return Outcome::Error {
                action: String::new(),
                message: "command error: a command is already running".into(),
                usage: false,
            };
        };
        // The handler is found in the live registry first: a command of
        // a plugin gone since the last rebuild is unknown, not stale.
        let outcome = commands.dispatch(self, line);
        self.commands = Some(commands);
        self.refresh_if_stale();
        outcome
    }

    /// Rebuilds the tree when plugins changed since it was built.
    pub(crate) fn refresh_if_stale(&mut self) {
        let generation = self.manager.runtime().ledger().command_generation();
        if std::mem::take(&mut self.plugins_changed) || self.built_from != Some(generation) {
            self.refresh_feeds();
        }
    }

    /// Completion candidates for a partial line, from an up-to-date tree.
    pub fn complete(&mut self, line: &str) -> Vec<Candidate> {
        self.refresh_if_stale();
        self.commands
            .as_ref()
            .map(|c| c.complete(line))
            .unwrap_or_default()
    }

    /// The merged command tree, up to date: what the drawer draws.
    pub fn tree(&mut self) -> &Node {
        self.refresh_if_stale();
        self.commands.as_ref().map_or(&NO_TREE, |c| c.tree())
    }

    /// Rebuilds every feed from the live state: presets, plugins,
    /// sessions, and the plugins' own command subtrees.
    pub fn refresh_feeds(&mut self) {
        let Some(mut commands) = self.commands.take() else {
            return;
        };
        self.plugins_changed = false;
        self.built_from = Some(self.manager.runtime().ledger().command_generation());
        for feed in feeds::all(self) {
            commands.set_feed(feed);
        }
        self.commands = Some(commands);
    }
}
