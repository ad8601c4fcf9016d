//! Enabling: the seed's "Capability ledger" from `enable(id)` to Active.
//! The eager path runs initialize and capabilities and caches what was
//! declared; the lazy path installs from that cache and starts the plugin
//! on its first call.

use std::sync::{Arc, Weak};

use amber_core::{Contribution, LedgerError};

use super::loaded::Loaded;
use super::{owner, Inner, PluginRuntime, PluginState};
use crate::adapters;
use crate::bindings::types::Capability;
use crate::compat;
use crate::declarations::context_key;
use crate::error::{CallError, LoadError};
use crate::grants::Grants;
use crate::instance::{FailureSink, InstancePool, PluginContext};
use crate::pool_cell::PoolCell;

/// Why enabling failed: a reason the error prefixes with the plugin, or
/// the ledger's refusal, which names the plugin itself.
enum Failure {
    Reason(String),
    Refused(LedgerError),
}

impl From<String> for Failure {
    fn from(reason: String) -> Self {
        Failure::Reason(reason)
    }
}

impl Failure {
    /// The plugin's status reason.
    fn reason(&self) -> String {
        match self {
            Failure::Reason(reason) => reason.clone(),
            Failure::Refused(e) => e.to_string(),
        }
    }

    fn into_error(self, id: &str) -> LoadError {
        match self {
            Failure::Reason(reason) => LoadError::Plugin {
                id: id.to_string(),
                reason,
            },
            Failure::Refused(e) => LoadError::Refused(e),
        }
    }
}

/// What the eager enable path produced: the contributions, the pool, and
/// the capabilities to cache.
struct Activated {
    contributions: Vec<Contribution>,
    cell: Arc<PoolCell>,
    capabilities: Vec<Capability>,
}

impl PluginRuntime {
    /// Reports three failed calls in a row by marking the plugin Failed.
    fn failure_sink(&self) -> FailureSink {
        let weak: Weak<Inner> = Arc::downgrade(&self.inner);
        Arc::new(move |id: &str, error: &CallError| {
            if let Some(inner) = weak.upgrade() {
                PluginRuntime { inner }
                    .fail(id, &format!("3 calls in a row failed; the last: {error}"));
            }
        })
    }

    /// Enables plugin `id` with `grants`: initialize, capabilities, then one
    /// install per capability in declaration order. On any failure the
    /// plugin is Failed, nothing of it stays installed, and the error says
    /// why.
    pub fn enable(&self, id: &str, grants: Grants) -> Result<Vec<Contribution>, LoadError> {
        let _transition = self.transitions();
        let (loaded, log) = {
            let plugins = self.plugins();
            let entry = plugins
                .get(id)
                .ok_or_else(|| LoadError::Unknown(id.to_string()))?;
            if entry.state == PluginState::Active {
                return Ok(self.inner.ledger.contributions(&owner(id)));
            }
            (Arc::clone(&entry.loaded), Arc::clone(&entry.log))
        };
        let mut context = self.context(id, grants.clone(), log);
        if grants.has(crate::grants::Permission::Http) {
            if let Some(shared) = Arc::get_mut(&mut context) {
                let options = &self.inner.options;
                let config = options.http.get(id);
                grant_http(shared, &loaded.declared.manifest, config, options)?;
            }
        }
        let key = context_key(&grants, &context.settings);
        let cached = self.inner.declarations.capabilities(&loaded.hash, &key);
        let outcome = match cached {
            Some(capabilities) => {
                let cell = self.lazy_cell(&loaded, context);
                self.install(id, &loaded, &cell, &capabilities)
                    .map(|c| (c, cell))
            }
            None => self.activate(id, &loaded, context).map(|done| {
                self.inner
                    .declarations
                    .store_capabilities(&loaded.hash, &key, &done.capabilities);
                (done.contributions, done.cell)
            }),
        };
        let mut plugins = self.plugins();
        let entry = plugins
            .get_mut(id)
            .ok_or_else(|| LoadError::Unknown(id.to_string()))?;
        entry.grants = grants;
        match outcome {
            Ok((contributions, cell)) => {
                entry.state = PluginState::Active;
                entry.reason = None;
                entry.pool = Some(cell);
                Ok(contributions)
            }
            Err(failure) => {
                self.inner.ledger.unwind(&owner(id));
                entry.state = PluginState::Failed;
                entry.reason = Some(failure.reason());
                entry.pool = None;
                Err(failure.into_error(id))
            }
        }
    }

    /// A pool made on first use: compile, instantiate, initialize. If that
    /// fails, the plugin is marked Failed with the reason.
    fn lazy_cell(&self, loaded: &Arc<Loaded>, context: Arc<PluginContext>) -> Arc<PoolCell> {
        let weak: Weak<Inner> = Arc::downgrade(&self.inner);
        let loaded = Arc::clone(loaded);
        let sink = self.failure_sink();
        let for_pool = Arc::clone(&context);
        PoolCell::lazy(
            context,
            Box::new(move || {
                let inner = weak.upgrade().ok_or_else(|| CallError::NotActive {
                    plugin: for_pool.id.clone(),
                    state: "shut down".into(),
                })?;
                let runtime = PluginRuntime { inner };
                let made = loaded
                    .pool(&*runtime.inner, Arc::clone(&for_pool), sink.clone())
                    .and_then(|pool| {
                        let instance = pool.checkout()?;
                        pool.checkin(instance);
                        Ok(pool)
                    });
                if let Err(e) = &made {
                    runtime.fail(&for_pool.id, &e.to_string());
                }
                made
            }),
        )
    }

    /// The eager path: compile, initialize, capabilities, installs; returns
    /// the contributions, the pool and the capabilities (for the cache), or
    /// the reason it failed.
    fn activate(
        &self,
        id: &str,
        loaded: &Loaded,
        context: Arc<PluginContext>,
    ) -> Result<Activated, Failure> {
        let pool: Arc<InstancePool> = loaded
            .pool(&*self.inner, context, self.failure_sink())
            .map_err(|e| e.to_string())?;
        // The plugin is named by the caller; keep just the cause.
        let mut instance = pool.checkout().map_err(|e| match e {
            CallError::Instantiate { reason, .. } => reason,
            other => other.to_string(),
        })?;
        let capabilities = pool
            .call_on(&mut instance, "capabilities", |i| {
                i.exports.plugin.capabilities(&mut i.store)
            })
            .map_err(|e| e.to_string())?;
        pool.checkin(instance);
        let cell = PoolCell::ready(Arc::clone(&pool));
        match self.install(id, loaded, &cell, &capabilities) {
            Ok(contributions) => Ok(Activated {
                contributions,
                cell,
                capabilities,
            }),
            Err(failure) => {
                cell.close();
                Err(failure)
            }
        }
    }

    /// Checks every declared capability against the exports, then installs
    /// each in declaration order.
    fn install(
        &self,
        id: &str,
        loaded: &Loaded,
        cell: &Arc<PoolCell>,
        capabilities: &[Capability],
    ) -> Result<Vec<Contribution>, Failure> {
        for capability in capabilities {
            let (kind, name) = adapters::describe(capability);
            if !loaded.declared.exports.exports(kind) {
                return Err(Failure::Reason(format!(
                    "declares {kind} capability `{name}` but does not export {}",
                    compat::interface_name(kind, loaded.declared.exports.api)
                )));
            }
        }
        let owner = owner(id);
        let mut installed = Vec::new();
        for capability in capabilities {
            let service = adapters::service_for(cell, capability)?;
            let contribution = self
                .inner
                .ledger
                .install(&owner, service)
                .map_err(Failure::Refused)?;
            installed.push(contribution);
        }
        Ok(installed)
    }
}

/// Gives the plugin its `http` grant: the hosts it asked for
/// (docs/permissions.md), narrowed where config says, each a pattern the
/// grant checks every request against; and the secrets config binds to
/// hosts, as headers. A pattern that does not parse, or a narrowing past
/// what was asked, fails the enable, naming it; a secret that cannot be
/// read is left out and said in the plugin's log.
fn grant_http(
    context: &mut PluginContext,
    manifest: &super::PluginManifest,
    config: Option<&crate::imports::http::HttpGrantConfig>,
    options: &super::RuntimeOptions,
) -> Result<(), LoadError> {
    let limits = options.http_limits;
    use crate::imports::http::allow::{Allowlist, HostPattern};
    use crate::imports::http::{BoundSecret, PluginHttp, Resolver};
    let failed = |reason: String| LoadError::Plugin {
        id: context.id.clone(),
        reason: format!("its http grant: {reason}"),
    };
    let asked: Vec<&str> = manifest
        .permissions
        .iter()
        .filter(|p| p.permission == crate::grants::Permission::Http)
        .flat_map(|p| p.hosts.iter().map(String::as_str))
        .collect();
    let asked = Allowlist::parse(asked).map_err(|e| failed(e.to_string()))?;
    let allow = match config.and_then(|c| c.hosts.as_ref()) {
        Some(hosts) => {
            let granted =
                Allowlist::parse(hosts.iter().map(String::as_str)).map_err(|e| failed(e.to_string()))?;
            asked.narrowed(&granted).map_err(failed)?
        }
        None => asked,
    };
    let mut secrets = Vec::new();
    for header in config.map(|c| c.headers.as_slice()).unwrap_or_default() {
        let host = HostPattern::parse(&header.host).map_err(|e| failed(e.to_string()))?;
        match &header.value {
            Ok(value) => secrets.push(BoundSecret {
                host,
                header: header.header.clone(),
                value: value.clone(),
            }),
            Err(why) => context
                .log
                .line("warn", &format!("header {} left out: {why}", header.header)),
        }
    }
    let log = context.log.clone();
    context.http_hosts = allow.described_list();
    context.http = Arc::new(PluginHttp::new(
        &context.id,
        Some(allow),
        secrets,
        limits,
        Resolver::system(),
        Arc::new(move |line: &str| log.line("info", line)),
    )
    .with_fixtures(options.http_fixtures.clone()));
    Ok(())
}
