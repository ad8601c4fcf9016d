//! Name resolution for plugins' requests: the system's resolver (or a
//! fixed map, for tests and debugging: `AMBER_HTTP_RESOLVE=host=ip,…`, as
//! curl's `--resolve`), and every address checked against the grant
//! before reqwest may connect to it ([`super::allow::Allowlist::check_address`]).
//! The connection goes to exactly the addresses checked, so a name that
//! resolves to a public address now and a private one later (DNS
//! rebinding) is caught at the moment that counts.

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use super::allow::Allowlist;

/// Where names are looked up.
#[derive(Debug, Clone, Default)]
pub struct Resolver {
    /// Fixed answers by host name; a name not in it goes to the system.
    fixed: BTreeMap<String, Vec<IpAddr>>,
}

impl Resolver {
    /// The system's resolver, with `AMBER_HTTP_RESOLVE`'s answers first.
    pub fn system() -> Resolver {
        Resolver::default().with_map(&std::env::var("AMBER_HTTP_RESOLVE").unwrap_or_default())
    }

    /// `host=ip,host=ip`: fixed answers (an entry that does not parse is
    /// left out).
    pub fn with_map(mut self, map: &str) -> Resolver {
        for entry in map.split(',').filter(|e| !e.trim().is_empty()) {
            if let Some((host, ip)) = entry.split_once('=') {
                if let Ok(ip) = ip.trim().parse::<IpAddr>() {
                    self.fixed
                        .entry(host.trim().to_ascii_lowercase())
                        .or_default()
                        .push(ip);
                }
            }
        }
        self
    }

    async fn lookup(&self, host: &str) -> std::io::Result<Vec<IpAddr>> {
        if let Some(fixed) = self.fixed.get(&host.to_ascii_lowercase()) {
            return Ok(fixed.clone());
        }
        let found = tokio::net::lookup_host((host, 0)).await?;
        Ok(found.map(|a| a.ip()).collect())
    }
}

/// The resolver reqwest asks, checking each answer.
pub struct Checking {
    resolver: Resolver,
    allow: Arc<Allowlist>,
}

impl Checking {
    pub fn new(resolver: Resolver, allow: Arc<Allowlist>) -> Checking {
        Checking { resolver, allow }
    }
}

impl Resolve for Checking {
    fn resolve(&self, name: Name) -> Resolving {
        let resolver = self.resolver.clone();
        let allow = self.allow.clone();
        let host = name.as_str().to_string();
        Box::pin(async move {
            let ips = resolver.lookup(&host).await?;
            let mut allowed = Vec::new();
            let mut refused = None;
            for ip in ips {
                match allow.check_address(&host, ip) {
                    Ok(()) => allowed.push(SocketAddr::new(ip, 0)),
                    Err(refusal) => refused = Some(refusal),
                }
            }
            match (allowed.is_empty(), refused) {
                (false, _) => Ok(Box::new(allowed.into_iter()) as Addrs),
                (true, Some(refusal)) => Err(refusal.to_string().into()),
                (true, None) => Err(format!("{host} has no address").into()),
            }
        })
    }
}
