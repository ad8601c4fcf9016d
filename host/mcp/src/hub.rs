//! The MCP host: every configured server, its connection and state, and
//! its tools in the ledger under `Owner::Mcp(name)`. Seed: "MCP session
//! lifecycle".
//!
//! The hub runs its own small tokio runtime, so a server's transport keeps
//! being read (notifications, a dead pipe) whoever calls. A tool call is
//! made on the caller's own (blocking) thread, inside that runtime's
//! context, and its answer wakes the caller directly; starting and
//! stopping servers run as tasks on the hub's runtime, which outlive any
//! one caller. Servers connect in parallel; the first model request
//! waits for each up to its `startup_timeout_ms` ([`McpHub::wait_for_startup`]);
//! a late server's tools join the ledger when it answers, and the front
//! ends, which take the ledger's tools before each turn, offer them from
//! the next turn.

use std::collections::BTreeMap;
use std::future::Future;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use amber_core::ledger::{Ledger, Owner, Service};
use amber_core::ports::{Image, ToolError, ToolSpec};
use serde::Serialize;
use serde_json::Value;
use tokio::sync::{mpsc, watch};

use crate::config::{McpConfig, ServerConfig};
use crate::connection::{CallFailed, Catalog, Changed, Connection, Cut, Launch, ServerWalls};
use crate::names::NameTable;
use crate::pins::{Listing, Pin, PinStore};
use crate::sanitize;
use crate::tools::{get_prompt_schema, read_resource_schema, McpTool, Servers, Target};
use crate::McpError;

/// A dead server is started again on its next use this many times.
pub const MAX_RESTARTS: u32 = 3;

/// How long a connection started in the background may take to answer
/// `initialize` before it is given up, whatever the startup wait.
const BACKGROUND_CONNECT: Duration = Duration::from_secs(60);

/// How long servers get to end on their own once their input is closed,
/// all together, before their groups are killed.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(500);

/// The most resources or prompts named in their tool's description.
const LISTED_ENTRIES: usize = 50;

/// The name of the hub's one runtime thread: a wait there would stall
/// the tasks that read the servers' transports.
const HUB_THREAD: &str = "amber-mcp";

/// Where a server stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "state", content = "detail")]
pub enum State {
    /// `enabled = false`.
    Disabled,
    /// `lazy = true`, and not used yet.
    Lazy,
    /// Never started, or disconnected.
    Stopped,
    Connecting,
    Ready,
    /// Why it could not start, or died for good.
    Failed(String),
}

/// One server as `/mcp` and `amber mcp list` show it.
#[derive(Debug, Clone, Serialize)]
pub struct ServerStatus {
    pub name: String,
    pub target: String,
    #[serde(flatten)]
    pub state: State,
    pub protocol: Option<String>,
    pub server_info: Option<String>,
    /// amber's names of the tools offered to the model.
    pub tools: Vec<String>,
    pub resources: usize,
    pub prompts: usize,
    /// Tools held back: changed since pinned, or refused by name.
    pub held: Vec<String>,
    pub restarts: u32,
    pub log: PathBuf,
}

struct Slot {
    config: ServerConfig,
    /// Held for the whole of a connect or a disconnect, across its awaits,
    /// so a server is started once however many callers need it at once.
    /// It guards no data: what a connect decides is stored in `state`.
    connecting: tokio::sync::Mutex<()>,
    state: Mutex<SlotState>,
    /// Counts answers (a listing or a failure); the startup wait watches it.
    answered: watch::Sender<u64>,
}

/// Everything about a server that changes, behind one lock, so a reader
/// (`/mcp`, `amber mcp list`) takes one consistent snapshot and never sees
/// half a transition: `Ready` without the connection, a new listing with
/// the old tools, a dead connection's tools still offered. A transition
/// that moves several fields moves them in one critical section.
///
/// Never held across an `.await` or a slow call (starting, closing or
/// calling a server): take what is needed, let go, do the slow thing, lock
/// again to store. While it is held the hub may lock `names` and the
/// ledger, never the other way round, and never this lock again (std's
/// `Mutex` is not reentrant: helpers that need it take `&mut SlotState`).
struct SlotState {
    /// The live connection, once connected.
    conn: Option<Arc<Connection>>,
    state: State,
    catalog: Catalog,
    /// (amber's name, the server's) of each tool in the ledger.
    offered: Vec<(String, String)>,
    held: Vec<String>,
    /// What was last put in the ledger, to skip a relisting that changed
    /// nothing (a server announces changes it did not make).
    installed: Option<Vec<Offer>>,
    /// The protocol version and the server's name for itself.
    info: (Option<String>, Option<String>),
    restarts: u32,
    /// When the last background start began; the startup wait counts from it.
    started: Option<Instant>,
}

impl Slot {
    fn lock(&self) -> MutexGuard<'_, SlotState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn state(&self) -> State {
        self.lock().state.clone()
    }

    fn answer(&self) {
        self.answered.send_modify(|n| *n += 1);
    }
}

/// The tools a listing yields, worked out (pins read and saved) before the
/// slot's lock is taken to put them in the ledger.
struct OfferPlan {
    offers: Vec<Offer>,
    /// The server's names of the tools held back for a change since pinned.
    held: Vec<String>,
    /// The server's `roots`: where its tools' paths may lead outside the
    /// workspace.
    roots: Vec<PathBuf>,
}

/// What the hub needs from the host around it.
pub struct HubSetup {
    pub ledger: Arc<Ledger>,
    pub spawner: amber_sandbox::Spawner,
    pub workspace: PathBuf,
    /// Pins live here (`mcp-pins.json`), logs under `logs/mcp/`.
    pub data_dir: PathBuf,
    /// The allowlisted variables of amber's environment.
    pub base_env: Vec<(String, std::ffi::OsString)>,
    /// The walls of a sandboxed stdio server beside the defaults.
    pub walls: ServerWalls,
}

pub struct McpHub {
    runtime: Mutex<Option<tokio::runtime::Runtime>>,
    handle: tokio::runtime::Handle,
    setup: HubSetup,
    log_dir: PathBuf,
    slots: BTreeMap<String, Arc<Slot>>,
    names: Mutex<NameTable>,
    /// Said in the background (a held tool, a late server, a failure),
    /// for the front end to show.
    notes: Mutex<Vec<String>>,
    /// Every server process started: killed when the hub goes, whether or
    /// not its start finished (one stopped since is not touched).
    started: Mutex<Vec<amber_sandbox::ChildHandle>>,
    me: Weak<McpHub>,
}

impl McpHub {
    /// A hub for the servers of `config`; none is started yet.
    pub fn new(config: &McpConfig, setup: HubSetup) -> Result<Arc<McpHub>, McpError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name(HUB_THREAD)
            .enable_all()
            .build()
            .map_err(|e| McpError::Runtime(e.to_string()))?;
        let slots = config
            .servers
            .iter()
            .map(|server| {
                let state = if !server.enabled {
                    State::Disabled
                } else if server.lazy {
                    State::Lazy
                } else {
                    State::Stopped
                };
                let slot = Slot {
                    config: server.clone(),
                    connecting: tokio::sync::Mutex::new(()),
                    state: Mutex::new(SlotState {
                        conn: None,
                        state,
                        catalog: Catalog::default(),
                        offered: Vec::new(),
                        held: Vec::new(),
                        installed: None,
                        info: (None, None),
                        restarts: 0,
                        started: None,
                    }),
                    answered: watch::channel(0).0,
                };
                (server.name.clone(), Arc::new(slot))
            })
            .collect();
        let log_dir = setup.data_dir.join("logs/mcp");
        Ok(Arc::new_cyclic(|me| McpHub {
            handle: runtime.handle().clone(),
            runtime: Mutex::new(Some(runtime)),
            setup,
            log_dir,
            slots,
            names: Mutex::new(NameTable::default()),
            notes: Mutex::new(Vec::new()),
            started: Mutex::new(Vec::new()),
            me: me.clone(),
        }))
    }

    /// Runs `future` on the hub's runtime and waits for it, from any
    /// thread that is not one of the hub's own.
    fn block<T: Send + 'static>(
        &self,
        future: impl Future<Output = T> + Send + 'static,
    ) -> Result<T, McpError> {
        let (tx, rx) = std::sync::mpsc::channel();
        self.handle.spawn(async move {
            let _ = tx.send(future.await);
        });
        rx.recv()
            .map_err(|_| McpError::Runtime("the MCP host is shut down".into()))
    }

    fn slot(&self, name: &str) -> Result<Arc<Slot>, McpError> {
        self.slots
            .get(name)
            .cloned()
            .ok_or_else(|| McpError::Unknown {
                server: name.to_string(),
                known: self.slots.keys().cloned().collect::<Vec<_>>().join(", "),
            })
    }

    #[allow(
        clippy::expect_used,
        reason = "a method runs on a hub reached through its Arc, so the Arc is alive"
    )]
    fn me(&self) -> Arc<McpHub> {
        self.me.upgrade().expect("the hub is alive while it runs")
    }

    fn note(&self, text: String) {
        self.notes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(text);
    }

    /// What was said in the background since the last call.
    pub fn take_notes(&self) -> Vec<String> {
        std::mem::take(&mut *self.notes.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Starts every enabled server that is not lazy, in parallel, in the
    /// background.
    pub fn start(&self) {
        for slot in self.slots.values() {
            self.start_in_background_if(slot, &State::Stopped);
        }
    }

    /// Starts `slot` in the background if it still stands at `from`: the
    /// check and the move to `Connecting` are one step, so two callers
    /// cannot both start it.
    fn start_in_background_if(&self, slot: &Arc<Slot>, from: &State) {
        {
            let mut locked = slot.lock();
            if locked.state != *from {
                return;
            }
            locked.started = Some(Instant::now());
            locked.state = State::Connecting;
        }
        let hub = self.me();
        let slot = slot.clone();
        self.handle.spawn(async move {
            let timeout = BACKGROUND_CONNECT.max(slot.config.startup_timeout());
            if let Err(e) = hub.ensure(&slot, timeout).await {
                hub.note(e.to_string());
            }
        });
    }

    /// Waits until each starting server has listed its tools or its
    /// `startup_timeout_ms` from its start has passed; then starts the
    /// lazy ones, whose tools the first request does not wait for.
    /// Returns a warning naming each server the session goes on without.
    pub fn wait_for_startup(&self) -> Vec<String> {
        let waits: Vec<_> = self
            .slots
            .values()
            .filter_map(|slot| {
                let started = slot.lock().started?;
                let deadline = started + slot.config.startup_timeout();
                Some((slot.clone(), deadline, slot.answered.subscribe()))
            })
            .collect();
        let waited = self.block(async move {
            let mut late = Vec::new();
            for (slot, deadline, mut answered) in waits {
                let ready = tokio::time::timeout_at(
                    deadline.into(),
                    answered.wait_for(|n| *n > 0),
                )
                .await
                .is_ok();
                if !ready {
                    late.push(format!(
                        "MCP server `{}` has not listed its tools within {} ms; the session goes on without them, and they join when it answers",
                        slot.config.name,
                        slot.config.startup_timeout().as_millis()
                    ));
                }
            }
            late
        });
        let mut warnings = waited.unwrap_or_default();
        warnings.extend(self.take_notes());
        for slot in self.slots.values() {
            self.start_in_background_if(slot, &State::Lazy);
        }
        warnings
    }

    /// Connects `name` now (`/mcp connect`), waiting up to its startup
    /// timeout, and lists what it offers.
    pub fn connect(&self, name: &str) -> Result<ServerStatus, McpError> {
        let slot = self.slot(name)?;
        {
            let mut locked = slot.lock();
            if locked.state == State::Disabled {
                return Err(McpError::Disabled(name.to_string()));
            }
            // Asked for by the user: a server given up on is tried afresh.
            locked.restarts = 0;
        }
        let hub = self.me();
        let timeout = slot.config.startup_timeout();
        let task_slot = slot.clone();
        self.block(async move { hub.ensure(&task_slot, timeout).await })??;
        Ok(self.status_of(&slot))
    }

    /// Closes `name`'s connection and takes its tools out of the ledger.
    pub fn disconnect(&self, name: &str) -> Result<(), McpError> {
        let slot = self.slot(name)?;
        let hub = self.me();
        self.block(async move {
            let _turn = slot.connecting.lock().await;
            // The connection, its tools and the state go in one step;
            // closing it, which stops the process, waits until the lock is
            // let go.
            let conn = {
                let mut locked = slot.lock();
                hub.withdraw(&slot.config.name, &mut locked);
                if locked.state != State::Disabled {
                    locked.state = State::Stopped;
                }
                locked.conn.take()
            };
            if let Some(conn) = conn {
                conn.close();
            }
        })?;
        Ok(())
    }

    /// Closes every connection (at exit).
    pub fn shutdown(&self) {
        for name in self.slots.keys() {
            let _ = self.disconnect(name);
        }
    }

    pub fn statuses(&self) -> Vec<ServerStatus> {
        self.slots.values().map(|s| self.status_of(s)).collect()
    }

    pub fn status(&self, name: &str) -> Result<ServerStatus, McpError> {
        Ok(self.status_of(&self.slot(name)?))
    }

    /// One snapshot of the slot, taken under one lock.
    fn status_of(&self, slot: &Arc<Slot>) -> ServerStatus {
        let log = crate::connection::log_path(&self.log_dir, &slot.config.name);
        let locked = slot.lock();
        ServerStatus {
            name: slot.config.name.clone(),
            target: slot.config.target(),
            state: locked.state.clone(),
            protocol: locked.info.0.clone(),
            server_info: locked.info.1.clone(),
            tools: locked
                .offered
                .iter()
                .map(|(name, _)| name.clone())
                .collect(),
            resources: locked.catalog.resources.len(),
            prompts: locked.catalog.prompts.len(),
            held: locked.held.clone(),
            restarts: locked.restarts,
            log,
        }
    }

    /// The server's tools as it last listed them (`amber mcp tools`).
    pub fn catalog(&self, name: &str) -> Result<Catalog, McpError> {
        let slot = self.slot(name)?;
        let catalog = slot.lock().catalog.clone();
        Ok(catalog)
    }

    /// The process id of a stdio server, while connected; a connect under
    /// way is waited for.
    pub fn pid(&self, name: &str) -> Option<u32> {
        let slot = self.slots.get(name)?.clone();
        self.block(async move {
            let _turn = slot.connecting.lock().await;
            let conn = slot.lock().conn.clone();
            conn.and_then(|c| c.pid())
        })
        .ok()
        .flatten()
    }

    /// Connected, or connected now: a lazy or stopped server starts, a
    /// dead one restarts (at most [`MAX_RESTARTS`] times). Then listed
    /// and installed.
    async fn ensure(
        &self,
        slot: &Arc<Slot>,
        timeout: Duration,
    ) -> Result<Arc<Connection>, McpError> {
        let turn = slot.connecting.lock().await;
        let current = slot.lock().conn.clone();
        // Asked outside the slot's lock: it looks at the process.
        let died = match current {
            Some(conn) if !conn.is_closed() => return Ok(conn),
            Some(_) => true,
            None => false,
        };
        let restarted = {
            let mut locked = slot.lock();
            self.begin_connect(&slot.config.name, &mut locked, died)?
        };
        if let Some(restarts) = restarted {
            self.note(format!(
                "MCP server `{}` died; restarting it ({restarts} of {MAX_RESTARTS})",
                slot.config.name
            ));
        }
        let (changed, heard) = mpsc::unbounded_channel();
        let launch = Launch {
            spawner: &self.setup.spawner,
            workspace: &self.setup.workspace,
            log_dir: &self.log_dir,
            base_env: self.setup.base_env.clone(),
            started: &self.started,
            walls: &self.setup.walls,
            state_dir: &self.setup.data_dir.join("mcp"),
        };
        let opened = Connection::open(&slot.config, &launch, changed, timeout).await;
        let conn = match opened {
            Ok(conn) => Arc::new(conn),
            Err(e) => {
                slot.lock().state = State::Failed(e.to_string());
                slot.answer();
                return Err(e);
            }
        };
        slot.lock().info = (Some(conn.protocol.clone()), Some(conn.server_info.clone()));
        let listed = match tokio::time::timeout(timeout, self.relist(slot, &conn)).await {
            Ok(listed) => listed,
            Err(_) => Err(McpError::List {
                server: slot.config.name.clone(),
                what: "tools".into(),
                reason: format!("no answer within {} ms", timeout.as_millis()),
            }),
        };
        if let Err(e) = listed {
            conn.close();
            slot.lock().state = State::Failed(e.to_string());
            slot.answer();
            return Err(e);
        }
        {
            // Ready and connected in one step: no reader sees one without
            // the other.
            let mut locked = slot.lock();
            locked.state = State::Ready;
            locked.conn = Some(conn.clone());
        }
        slot.answer();
        drop(turn);
        self.follow_changes(slot.clone(), Arc::downgrade(&conn), heard);
        Ok(conn)
    }

    /// The first step of a connect, under the slot's lock: a dead
    /// connection dropped with its tools, the restart counted, and the
    /// server `Connecting`, or the reason amber gives up on it. Returns the
    /// restart's number when a connection had died, to be noted once the
    /// lock is let go.
    fn begin_connect(
        &self,
        server: &str,
        locked: &mut SlotState,
        died: bool,
    ) -> Result<Option<u32>, McpError> {
        let mut restarted = None;
        if died {
            locked.conn = None;
            self.withdraw(server, locked);
            locked.restarts = locked.restarts.saturating_add(1);
            if locked.restarts > MAX_RESTARTS {
                locked.restarts = MAX_RESTARTS;
                let reason = format!(
                    "it died {} times; amber stopped restarting it",
                    MAX_RESTARTS + 1
                );
                locked.state = State::Failed(reason.clone());
                return Err(McpError::GaveUp {
                    server: server.to_string(),
                    reason,
                });
            }
            restarted = Some(locked.restarts);
        }
        // A server that failed to start is tried again on next use, and
        // that counts as a restart too.
        if let State::Failed(why) = locked.state.clone() {
            locked.restarts = locked.restarts.saturating_add(1);
            if locked.restarts > MAX_RESTARTS {
                locked.restarts = MAX_RESTARTS;
                return Err(McpError::GaveUp {
                    server: server.to_string(),
                    reason: format!("it failed {} times; the last: {why}", MAX_RESTARTS + 1),
                });
            }
        }
        locked.state = State::Connecting;
        Ok(restarted)
    }

    /// Lists again on every `list_changed` while `conn` lives.
    fn follow_changes(
        &self,
        slot: Arc<Slot>,
        conn: Weak<Connection>,
        mut heard: mpsc::UnboundedReceiver<Changed>,
    ) {
        let hub = self.me.clone();
        self.handle.spawn(async move {
            while heard.recv().await.is_some() {
                // Several notifications at once need one listing.
                while heard.try_recv().is_ok() {}
                let (Some(hub), Some(conn)) = (hub.upgrade(), conn.upgrade()) else {
                    return;
                };
                if let Err(e) = hub.relist(&slot, &conn).await {
                    hub.note(e.to_string());
                }
            }
        });
    }

    /// Lists tools, resources and prompts and puts the server's tools in
    /// the ledger anew.
    async fn relist(&self, slot: &Arc<Slot>, conn: &Connection) -> Result<(), McpError> {
        let catalog = conn.list(&slot.config.name).await?;
        let plan = self.plan_offers(slot, &catalog);
        let refusals = {
            // The listing and the tools it yields are stored in one step.
            // The listing is kept even when the pins cannot be read.
            let mut locked = slot.lock();
            locked.catalog = catalog;
            self.put_in_ledger(&slot.config.name, &mut locked, plan?)
        };
        for refusal in refusals {
            self.note(refusal);
        }
        Ok(())
    }

    /// Takes the server's tools out of the ledger and its names back.
    /// Called with the slot's lock held, as `locked`.
    fn withdraw(&self, server: &str, locked: &mut SlotState) {
        locked.installed = None;
        self.setup.ledger.unwind(&Owner::Mcp(server.to_string()));
        self.names
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .release(server);
        locked.offered.clear();
    }

    /// Offers `catalog` to the model: each pinned-and-unchanged tool, and
    /// one tool each for resources and prompts; a changed tool is held
    /// back until approved, and a name clash refused, naming both.
    fn install(&self, slot: &Slot, catalog: &Catalog) -> Result<(), McpError> {
        let plan = self.plan_offers(slot, catalog)?;
        let refusals = self.put_in_ledger(&slot.config.name, &mut slot.lock(), plan);
        for refusal in refusals {
            self.note(refusal);
        }
        Ok(())
    }

    /// What `catalog` offers: each tool whose pin is new or unchanged, and
    /// one tool each for resources and prompts. A tool changed since it
    /// was pinned is held back and noted. Reads and saves the pins, so it
    /// runs before the slot's lock is taken.
    fn plan_offers(&self, slot: &Slot, catalog: &Catalog) -> Result<OfferPlan, McpError> {
        let server = &slot.config.name;
        let mut pins = PinStore::load(&self.setup.data_dir)?;
        let mut held = Vec::new();
        let read_only = |hint: bool| slot.config.trust_annotations && hint;
        let mut specs = Vec::new();
        for tool in &catalog.tools {
            let listing = Listing {
                name: tool.name.clone(),
                description: sanitize::description(&tool.description),
                schema: sanitize::schema(&tool.schema),
            };
            if let Pin::Changed { .. } = pins.check(server, &listing) {
                held.push(tool.name.clone());
                self.note(format!(
                    "MCP server `{server}` changed its tool `{}` since it was pinned; it is held back until you approve it: amber mcp approve {server} {}",
                    tool.name, tool.name
                ));
                continue;
            }
            specs.push((
                tool.name.clone(),
                Target::Tool(tool.name.clone()),
                listing.description,
                listing.schema,
                read_only(tool.read_only_hint),
            ));
        }
        // The tools for resources and prompts carry the server's listing
        // in their descriptions: pinned as its tools are, so a listing
        // that changes mid-session is held back the same way.
        let mut listed = Vec::new();
        if !catalog.resources.is_empty() {
            let description = listing_description(
                &format!(
                    "Reads a resource of the MCP server `{server}` by its URI. Its resources:"
                ),
                &catalog.resources,
            );
            listed.push((
                "read_resource",
                Target::ReadResource,
                description,
                read_resource_schema(),
            ));
        }
        if !catalog.prompts.is_empty() {
            let description = listing_description(
                &format!("Gets a prompt of the MCP server `{server}` by name, with its arguments (`?` marks an optional one). Its prompts:"),
                &catalog.prompts,
            );
            listed.push((
                "get_prompt",
                Target::GetPrompt,
                description,
                get_prompt_schema(),
            ));
        }
        for (name, target, description, schema) in listed {
            // A tool of the server's own by this name is pinned as its
            // own; this one is refused at the name's claim anyway.
            if catalog.tools.iter().any(|t| t.name == name) {
                specs.push((name.into(), target, description, schema, false));
                continue;
            }
            let listing = Listing {
                name: name.to_string(),
                description,
                schema,
            };
            if let Pin::Changed { .. } = pins.check(server, &listing) {
                held.push(name.to_string());
                self.note(format!(
                    "MCP server `{server}` changed what `{name}` lists since it was pinned; it is held back until you approve it: amber mcp approve {server} {name}"
                ));
                continue;
            }
            specs.push((
                name.into(),
                target,
                listing.description,
                listing.schema,
                false,
            ));
        }
        pins.save()?;
        Ok(OfferPlan {
            offers: specs,
            held,
            roots: slot.config.root_dirs(&self.setup.workspace),
        })
    }

    /// Puts `plan` in the ledger in place of what the server offered
    /// before, unless that is what is there. Runs under the slot's lock,
    /// so a reader sees the old tools or the new and two listings cannot
    /// interleave. Returns the refusals, to be noted once the lock is let go.
    fn put_in_ledger(&self, server: &str, locked: &mut SlotState, plan: OfferPlan) -> Vec<String> {
        let OfferPlan {
            offers: specs,
            mut held,
            roots,
        } = plan;
        // Unchanged: the ledger keeps what it has, and a session reading
        // it in between never sees the server without its tools.
        if locked.installed.as_ref() == Some(&specs) {
            return Vec::new();
        }
        self.withdraw(server, locked);
        locked.installed = Some(specs.clone());
        let owner = Owner::Mcp(server.to_string());
        let group = Some(format!("mcp:{server}"));
        let mut offered = Vec::new();
        let mut refusals = Vec::new();
        for (tool, target, description, schema, read_only) in specs {
            let claimed = self
                .names
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .claim(server, &tool);
            let name = match claimed {
                Ok(name) => name,
                Err(refusal) => {
                    held.push(tool.clone());
                    refusals.push(refusal);
                    continue;
                }
            };
            let spec = ToolSpec {
                name: name.clone(),
                description,
                input_schema: schema,
                read_only,
                gated_by_exec: false,
                approval_group: group.clone(),
            };
            let me: Weak<dyn Servers> = self.me.clone();
            let adapter = McpTool::new(spec, server, target, me).with_roots(roots.clone());
            match self
                .setup
                .ledger
                .install(&owner, Service::Tool(Arc::new(adapter)))
            {
                Ok(_) => offered.push((name, tool)),
                Err(refusal) => {
                    held.push(tool);
                    refusals.push(refusal.to_string());
                }
            }
        }
        locked.offered = offered;
        locked.held = held;
        refusals
    }

    /// Approves the change waiting for `tool` of `server`, and offers the
    /// tool again if the server is connected. Returns the old and new
    /// description as a diff.
    pub fn approve(&self, server: &str, tool: &str) -> Result<String, McpError> {
        let slot = self.slot(server)?;
        let mut pins = PinStore::load(&self.setup.data_dir)?;
        let pending = pins.pending();
        let diff = pending
            .iter()
            .find(|(s, _, listed)| s == server && listed.name == tool)
            .map(|(_, pinned, listed)| crate::pins::describe_change(pinned, listed));
        pins.approve(server, tool)?;
        pins.save()?;
        let (catalog, ready) = {
            let locked = slot.lock();
            (locked.catalog.clone(), locked.state == State::Ready)
        };
        if ready {
            self.install(&slot, &catalog)?;
        }
        Ok(diff.unwrap_or_default())
    }

    /// The live connection for a call: connected now if need be.
    fn live(&self, server: &str) -> Result<(Arc<Slot>, Arc<Connection>), ToolError> {
        let slot = self
            .slot(server)
            .map_err(|e| ToolError::Crashed(e.to_string()))?;
        if slot.state() == State::Disabled {
            return Err(ToolError::Crashed(
                McpError::Disabled(server.into()).to_string(),
            ));
        }
        // Connected and alive, as it is for every call but a server's
        // first: no trip to the hub's runtime. (A disconnect that takes
        // the connection meanwhile fails this call as a closed transport.)
        let current = slot.lock().conn.clone();
        if let Some(conn) = current.filter(|conn| !conn.is_closed()) {
            return Ok((slot, conn));
        }
        let hub = self.me();
        let timeout = slot.config.startup_timeout().max(Duration::from_secs(10));
        let task_slot = slot.clone();
        let conn = self
            .block(async move { hub.ensure(&task_slot, timeout).await })
            .and_then(|r| r)
            .map_err(|e| ToolError::Crashed(e.to_string()))?;
        Ok((slot, conn))
    }

    /// A connection's failure mid-call: typed for the model, and the
    /// connection dropped so the next use restarts the server.
    fn lost(&self, slot: &Slot, conn: &Connection, what: &str, e: rmcp::ServiceError) -> ToolError {
        let gone = matches!(
            e,
            rmcp::ServiceError::TransportClosed | rmcp::ServiceError::TransportSend(_)
        );
        if gone {
            // Seen before the transport's own loop notices: the next use
            // must not be handed this connection again.
            conn.close();
        }
        let closed = gone || conn.is_closed();
        let server = &slot.config.name;
        if closed {
            let left = MAX_RESTARTS.saturating_sub(slot.lock().restarts);
            let next = if left == 0 {
                "it is not restarted again (/mcp connect starts it afresh)".to_string()
            } else {
                format!("it is restarted on next use ({left} restarts left)")
            };
            ToolError::Crashed(format!(
                "MCP server `{server}` died during {what} ({e}); {next}"
            ))
        } else {
            ToolError::Failed(format!("MCP server `{server}` failed {what}: {e}"))
        }
    }

    /// A call that got no answer, in words for the model.
    fn call_failed(
        &self,
        slot: &Arc<Slot>,
        conn: &Arc<Connection>,
        server: &str,
        what: &str,
        failed: CallFailed,
    ) -> ToolError {
        match failed {
            CallFailed::Service(e) => self.lost(slot, conn, what, e),
            CallFailed::TimedOut(limit) => ToolError::Failed(format!(
                "MCP server `{server}` did not answer {what} within {} s (its `call_timeout_ms`); the request was cancelled",
                limit.as_secs_f64()
            )),
            CallFailed::Cancelled => ToolError::Failed(format!(
                "cancelled: the run was interrupted during {what}; MCP server `{server}` was told (notifications/cancelled)"
            )),
        }
    }

    /// One request of a tool's to `server`, made and waited for on the
    /// caller's thread: the future is polled here, inside the hub's
    /// runtime context (its timer, its transports, which the hub's own
    /// thread keeps reading), so an answer wakes the caller directly
    /// rather than a task on the hub's runtime that then wakes the caller
    /// through a channel. It waits at most the server's `call_timeout_ms`
    /// and no longer than the run: an interrupt cancels the request
    /// (`notifications/cancelled`) rather than hold the call's thread.
    fn request<T, F>(
        &self,
        server: &str,
        what: &str,
        send: impl FnOnce(Arc<Connection>, Duration, Cut) -> F,
    ) -> Result<T, ToolError>
    where
        F: Future<Output = Result<T, CallFailed>>,
    {
        if std::thread::current().name() == Some(HUB_THREAD) {
            return Err(ToolError::Crashed(format!(
                "{what} was asked of MCP server `{server}` from the MCP host's own thread, which would then wait on itself"
            )));
        }
        let (slot, conn) = self.live(server)?;
        let limit = slot.config.call_timeout();
        // The run's cancel, when dispatch runs this call.
        let cancel = amber_core::policy::scope::current().map(|scope| scope.cancel);
        let cut: Cut = Box::pin(async move {
            match cancel {
                Some(cancel) => cancel.cancelled_owned().await,
                None => std::future::pending().await,
            }
        });
        let outcome = {
            let _inside = self.handle.enter();
            futures::executor::block_on(send(conn.clone(), limit, cut))
        };
        outcome.map_err(|failed| self.call_failed(&slot, &conn, server, what, failed))
    }

    /// `tools/call` of the server's `tool`: its text and its images.
    pub fn call_tool(
        &self,
        server: &str,
        tool: &str,
        args: &Value,
    ) -> Result<(String, Vec<Image>), ToolError> {
        let what = format!("the call of `{tool}`");
        self.request(server, &what, |conn, limit, cut| async move {
            conn.call_tool(tool, args, limit, cut).await
        })?
        .map_err(ToolError::Failed)
    }

    pub fn read_resource(&self, server: &str, uri: &str) -> Result<String, ToolError> {
        let what = format!("reading `{uri}`");
        self.request(server, &what, |conn, limit, cut| async move {
            conn.read_resource(uri, limit, cut).await
        })
    }

    pub fn get_prompt(
        &self,
        server: &str,
        name: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Result<String, ToolError> {
        let what = format!("getting the prompt `{name}`");
        self.request(server, &what, |conn, limit, cut| async move {
            conn.get_prompt(name, arguments, limit, cut).await
        })
    }
}

/// The adapters' calls, served by the methods above.
impl Servers for McpHub {
    fn call_tool(
        &self,
        server: &str,
        tool: &str,
        args: &Value,
    ) -> Result<(String, Vec<Image>), ToolError> {
        McpHub::call_tool(self, server, tool, args)
    }

    fn read_resource(&self, server: &str, uri: &str) -> Result<String, ToolError> {
        McpHub::read_resource(self, server, uri)
    }

    fn get_prompt(
        &self,
        server: &str,
        name: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Result<String, ToolError> {
        McpHub::get_prompt(self, server, name, arguments)
    }
}

impl Drop for McpHub {
    fn drop(&mut self) {
        // Every transport closed at once, then one short wait shared by
        // all: a server reads to the end of its input (a cancellation
        // sent just before) and ends on its own, or is killed.
        let conns: Vec<Arc<Connection>> = self
            .slots
            .values()
            .filter_map(|slot| slot.lock().conn.take())
            .collect();
        for conn in &conns {
            conn.begin_close();
        }
        // On the hub's own thread (a task held the last handle) a wait
        // would stall the very tasks that close the transports.
        let own_thread = std::thread::current().name() == Some(HUB_THREAD);
        let grace = if own_thread {
            Duration::ZERO
        } else {
            SHUTDOWN_GRACE
        };
        let deadline = Instant::now() + grace;
        for conn in &conns {
            conn.finish_close(deadline);
        }
        // A server still starting (or one whose connection is busy) is
        // held by a task of the runtime, which may outlive this drop.
        for server in self
            .started
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain(..)
        {
            amber_sandbox::kill_server(server);
        }
        let runtime = self
            .runtime
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(runtime) = runtime {
            runtime.shutdown_background();
        }
    }
}

/// One tool as offered: the server's name for it, what it reaches, its
/// cleaned description, its schema, and whether it is read-only.
type Offer = (String, Target, String, Value, bool);

/// A description listing `entries`, capped, each line cleaned.
fn listing_description(head: &str, entries: &[crate::connection::Entry]) -> String {
    let mut lines = vec![head.to_string()];
    for entry in entries.iter().take(LISTED_ENTRIES) {
        let about = if entry.about.is_empty() {
            String::new()
        } else {
            format!(" — {}", entry.about)
        };
        lines.push(format!("- {}{about}", entry.key));
    }
    if entries.len() > LISTED_ENTRIES {
        lines.push(format!("… and {} more", entries.len() - LISTED_ENTRIES));
    }
    sanitize::description(&lines.join("\n"))
}
