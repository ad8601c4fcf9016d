//! The `App`: one host, built the same way by every front end. It owns the
//! config, the plugins, the policy and, in a session, the agent; the slash
//! commands run against it through the one command tree. This file is its
//! state and what the handlers do with it; opening an App with its
//! commands, and running them, is `commands.rs`.

use std::path::PathBuf;
use std::sync::Arc;

use amber_config::Config;
use amber_core::commands::CommandSet;
use amber_core::engine::{AgentEvent, CompactionOutcome, EventSink, Mode};
use amber_core::policy::Policy;
use amber_core::project::ProjectRoot;
use amber_runtime::manager::PluginManager;
use amber_runtime::AmberDirs;
use amber_wire::Preset;
use anyhow::{Context as _, Result};

use crate::compaction::{self, Compression};
use crate::host;
use crate::session::{self, Live, SessionOptions};

/// The values `/get` shows and `/set` changes.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Settings {
    pub provider: String,
    pub model: String,
    pub policy: Mode,
    pub temperature: Option<f32>,
    pub max_iterations: u32,
    pub compress_threshold: f64,
    pub compress_target: f64,
    pub compress_enabled: bool,
}

pub struct App {
    pub project: ProjectRoot,
    pub dirs: AmberDirs,
    pub(crate) config: Config,
    pub(crate) options: SessionOptions,
    pub(crate) policy: Arc<Policy>,
    pub(crate) manager: PluginManager,
    pub(crate) live: Option<Live>,
    /// Taken out while a command runs, so its handler can borrow the App
    /// mutably; always put back.
    pub(crate) commands: Option<CommandSet<App>>,
    /// Set by a handler that changed the plugins: the plugin feeds are
    /// rebuilt once the command returns.
    pub(crate) plugins_changed: bool,
    /// The ledger's command generation the tree was built from; another
    /// means a subtree came or went (an enable, a disable, a plugin
    /// unwound after repeated traps), so the tree is rebuilt. `None`
    /// until the first command, completion or look at the tree: the feeds
    /// list sessions and ask every command plugin for its spec, which a
    /// run that never types a command (`amber exec`) need not pay for.
    pub(crate) built_from: Option<u64>,
    /// The MCP servers: started with a session, made on first use of
    /// `/mcp` without one.
    pub(crate) mcp: Option<Arc<amber_mcp::McpHub>>,
    /// Whether the first request's wait for the servers is over.
    pub(crate) mcp_waited: bool,
    /// Warnings of that wait, for the front end that did not ask for them.
    pub(crate) mcp_pending: Vec<String>,
    /// The mode before plan mode was entered, for `/plan off`.
    pub(crate) before_plan: Option<Mode>,
}

impl App {
    /// The MCP host: the session's, or one made now (not started) for
    /// `/mcp` from the shell; `None` when no server is configured.
    pub fn mcp(&mut self) -> Result<Option<Arc<amber_mcp::McpHub>>> {
        if self.mcp.is_none() {
            self.mcp = crate::mcp::hub(
                &self.config,
                &self.dirs,
                &self.project.root,
                self.manager.runtime().ledger(),
                self.manager.runtime().options().exec.environment(),
            )?;
        }
        Ok(self.mcp.clone())
    }

    /// What the MCP servers said in the background since last asked (a
    /// tool held back after a relisting, a restart, a late failure), for
    /// the front end to show as warnings.
    pub fn mcp_notes(&mut self) -> Vec<String> {
        let mut notes = std::mem::take(&mut self.mcp_pending);
        if let Some(hub) = &self.mcp {
            notes.extend(hub.take_notes());
        }
        notes
    }

    /// Waits, once, for each MCP server the session started to list its
    /// tools, up to its startup timeout, and gives the session what
    /// arrived: the first model request's wait (docs/mcp.md, "Start-up").
    /// Returns a warning naming each server it goes on without.
    pub fn wait_for_mcp(&mut self) -> Vec<String> {
        if self.mcp_waited {
            return Vec::new();
        }
        self.mcp_waited = true;
        let Some(hub) = self.mcp.clone() else {
            return Vec::new();
        };
        let warnings = hub.wait_for_startup();
        self.sync_tools();
        warnings
    }

    /// The MCP host, if one was made (no server configured: none).
    pub fn mcp_hub(&self) -> Option<Arc<amber_mcp::McpHub>> {
        self.mcp.clone()
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Replaces the config amber runs with (after the file was written).
    pub(crate) fn set_config(&mut self, config: Config) {
        self.config = config;
    }

    /// The folders command files are read from, in shadowing order
    /// (`file_commands::folders`).
    pub fn command_folders(&self) -> Vec<(PathBuf, crate::file_commands::Origin)> {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        crate::file_commands::folders(&self.dirs.config, &self.project.root, home.as_deref())
    }

    /// Where `amber plugin add` keeps plugins (`<data>/plugins/<id>/`).
    pub fn plugin_dir(&self) -> PathBuf {
        self.dirs.data.join("plugins")
    }

    pub fn config_path(&self) -> PathBuf {
        host::config_path(&self.dirs)
    }

    pub fn policy(&self) -> &Arc<Policy> {
        &self.policy
    }

    pub fn manager(&self) -> &PluginManager {
        &self.manager
    }

    pub fn live(&self) -> Option<&Live> {
        self.live.as_ref()
    }

    pub fn live_mut(&mut self) -> Option<&mut Live> {
        self.live.as_mut()
    }

    /// Takes the open session out while a front end runs a turn on its
    /// own task (so the front end stays responsive, e.g. to answer an
    /// approval the turn waits for); commands that need a session say
    /// there is none until [`App::put_live`] puts it back.
    pub fn take_live(&mut self) -> Option<Live> {
        let warnings = self.wait_for_mcp();
        self.mcp_pending.extend(warnings);
        self.sync_tools();
        self.live.take()
    }

    /// Gives the open session the ledger's tools and prompt blocks if
    /// plugins changed since it took them: call before a turn.
    pub fn sync_tools(&mut self) {
        if let Some(live) = self.live.as_mut() {
            session::sync_tools(live, self.manager.runtime().ledger(), &self.config, false);
        }
    }

    /// Rebuilds the session's tools now: the `task` tool's sub-agents
    /// take the session's model, settings and gate as they are after a
    /// `/set`.
    pub(crate) fn resync_tools(&mut self) {
        if let Some(live) = self.live.as_mut() {
            session::sync_tools(live, self.manager.runtime().ledger(), &self.config, true);
        }
    }

    /// Puts back the session [`App::take_live`] took out.
    pub fn put_live(&mut self, live: Live) {
        self.live = Some(live);
    }

    /// Starts a new session in place of the open one (`/clear`): the
    /// plugins stay loaded, the settings of this session carry over, the
    /// old session stays on disk as it was.
    pub fn new_session(&mut self) -> Result<&AgentEvent> {
        let settings = self.settings();
        let mut options = self.options.clone();
        options.resume = None;
        options.provider = Some(settings.provider.clone());
        options.model = Some(settings.model.clone());
        let preset = session::choose_preset(&options, &self.config, None)?;
        // The old session's lock is released before the new one is made;
        // what was approved for it ends with it.
        self.end_session("clear");
        self.live = None;
        self.policy.clear_grants();
        let mut live = self.start(preset, None)?;
        let config = live.agent.config_mut();
        config.temperature = settings.temperature;
        config.max_tool_iterations = settings.max_iterations;
        live.compression = Compression {
            threshold: settings.compress_threshold,
            target: settings.compress_target,
            enabled: settings.compress_enabled,
        };
        compaction::install(&mut live.agent, live.compression);
        Ok(&self.live.insert(live).started)
    }

    /// Fires the open session's session-end hooks (`exit`, `clear`,
    /// `interrupted`) and records their outcomes; the events, for a front
    /// end that still shows them. The hooks run on the blocking pool
    /// (`amber_core::blocking`); this waits for them, as the session
    /// closes, so call it where waiting is what is wanted (quitting,
    /// `/clear`), never on an async worker that draws.
    pub fn end_session(&mut self, reason: &str) -> Vec<AgentEvent> {
        let mut events = Vec::new();
        if let Some(live) = self.live.as_mut() {
            let mut sink = |event: AgentEvent| events.push(event);
            let ended = amber_core::blocking::wait(live.agent.end_session(reason, &mut sink));
            if let Err(e) = ended {
                events.push(AgentEvent::Warning {
                    message: format!("the session-end hooks' outcome was not recorded: {e}"),
                });
            }
            if let Err(e) = crate::tool_search::record(&self.dirs, &live.agent.tool_uses()) {
                events.push(AgentEvent::Warning {
                    message: format!("the tools' use was not counted: {e:#}"),
                });
            }
        }
        events
    }

    /// Opens session `id` in place of the open one (the session picker):
    /// its chain is verified and it is locked first, so a refused or busy
    /// session leaves the open one as it was. The provider and model are
    /// chosen as `amber --resume ID` with this process's flags would.
    pub fn resume_session(&mut self, id: &str) -> Result<&AgentEvent> {
        if self.live.as_ref().is_some_and(|l| l.info.id == id) {
            anyhow::bail!("session {id} is the one open");
        }
        let resuming = session::resuming(&self.dirs, id)?;
        let mut options = self.options.clone();
        options.resume = Some(id.to_string());
        let preset =
            session::choose_preset(&options, &self.config, resuming.last_run_with().as_ref())?;
        // It runs in the mode it had, unless this process was told one.
        if let (None, Some(mode)) = (self.options.mode, resuming.mode()) {
            self.policy.set_mode(mode);
        }
        // Started before the open one is let go: a session that cannot
        // start (its provider gone, say) leaves the open one as it was.
        let live = self.start(preset, Some(resuming))?;
        self.end_session("switch");
        self.policy.clear_grants();
        Ok(&self.live.insert(live).started)
    }

    /// The open session's conversation as recorded (a resumed one's
    /// earlier turns), for a front end to show again.
    pub fn transcript(&self) -> Result<Vec<amber_core::session::Replayed>> {
        let Some(live) = &self.live else {
            return Ok(Vec::new());
        };
        let path = session::store(&self.dirs).path(&live.info.id);
        match path {
            Ok(path) => Ok(amber_core::session::transcript(&path)?),
            // A new session has no file until its first message.
            Err(_) => Ok(Vec::new()),
        }
    }

    /// Switches the session's mode (`/plan`, Shift-Tab, an accepted
    /// plan) and records it, so a resume runs in it too. While a turn
    /// runs the session is out of the App: the mode changes at once (the
    /// next tool call follows it), and the front end records it when the
    /// session is back ([`Self::record_settings`]).
    pub fn switch_mode(&mut self, mode: Mode) -> Result<()> {
        let now = self.policy.mode();
        if mode == Mode::Plan && now != Mode::Plan {
            self.before_plan = Some(now);
        }
        self.policy.set_mode(mode);
        self.record_settings()
    }

    /// The mode plan mode was entered from (write when unknown): what
    /// `/plan off` goes back to.
    pub fn mode_before_plan(&mut self) -> Mode {
        self.before_plan.take().unwrap_or(Mode::Write)
    }

    /// Records the mode, provider and model the open session runs with
    /// now, which a resume restores (after a `/set` or `/model`).
    pub fn record_settings(&mut self) -> Result<()> {
        let settings = self.settings();
        if let Some(live) = self.live.as_mut() {
            live.agent
                .record_settings(&amber_core::session::SessionSettings {
                    mode: Some(settings.policy.as_str().to_string()),
                    provider: settings.provider,
                    model: settings.model,
                })?;
        }
        Ok(())
    }

    /// A session of this host's project, plugins and policy under
    /// `preset`: a new one, or the one `resuming` names.
    fn start(&self, preset: Preset, resuming: Option<session::Resuming>) -> Result<Live> {
        session::start(
            &self.dirs,
            &self.project,
            &self.config,
            &self.manager,
            &self.policy,
            preset,
            resuming,
            self.live.as_ref().and_then(|live| live.skills.clone()),
        )
    }

    /// What `/get` shows: the session's values in a session, else the
    /// config's (with the preset's model when the config names none).
    pub fn settings(&self) -> Settings {
        match &self.live {
            Some(live) => {
                let c = live.agent.config();
                Settings {
                    provider: live.preset.name.clone(),
                    model: c.model.clone(),
                    policy: self.policy.mode(),
                    temperature: c.temperature,
                    max_iterations: c.max_tool_iterations,
                    compress_threshold: live.compression.threshold,
                    compress_target: live.compression.target,
                    compress_enabled: live.compression.enabled,
                }
            }
            None => {
                let preset = session::choose_preset(&self.options, &self.config, None).ok();
                let provider = preset
                    .as_ref()
                    .map(|p| p.name.clone())
                    .or_else(|| self.config.model.provider.clone())
                    .unwrap_or_default();
                let model = preset
                    .map(|p| p.model)
                    .or_else(|| self.config.model.model.clone())
                    .unwrap_or_default();
                Settings {
                    provider,
                    model,
                    policy: self.policy.mode(),
                    temperature: self.config.agent.temperature,
                    max_iterations: self.config.agent.max_tool_iterations,
                    compress_threshold: self.config.agent.compress_threshold,
                    compress_target: self.config.agent.compress_target,
                    compress_enabled: self.config.agent.compress_enabled,
                }
            }
        }
    }

    /// Compresses the open session's context now: what a front end does
    /// for [`amber_core::commands::Effect::Compact`] (`/compact [focus]`),
    /// with the agent's `compaction.*` events going to `sink`.
    pub async fn compact(
        &mut self,
        focus: Option<&str>,
        sink: &mut EventSink<'_>,
    ) -> Result<CompactionOutcome> {
        let live = self
            .live
            .as_mut()
            .context("no session is open to compact")?;
        Ok(live.agent.compact_now(focus, sink).await?)
    }

    /// The plugin manager, to add, remove or switch plugins; the command
    /// tree follows at the next command (or [`App::refresh_feeds`]).
    pub fn manager_mut(&mut self) -> &mut PluginManager {
        self.plugins_changed = true;
        &mut self.manager
    }

    /// Brings the plugins in line with the plugin directory (live
    /// reload: a front end calls it when its watcher fires) and says what
    /// changed. The command tree follows at once; the session's tools at
    /// its next turn, and calls in flight go to the new instances.
    pub fn sync_plugin_dir(&mut self) -> Vec<amber_runtime::manager::DirChange> {
        let changes = self.manager_mut().sync_plugin_dir();
        self.refresh_if_stale();
        changes
    }
}
