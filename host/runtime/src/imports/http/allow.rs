//! Which requests an `http` grant allows (docs/permissions.md). A grant is
//! a list of host patterns, each as the plugin declared it or as the user
//! narrowed it:
//!
//! - `api.example.com`: that host, on port 443;
//! - `*.example.org`: any host under `example.org` (not `example.org`
//!   itself), on port 443;
//! - `api.example.com:8443`, `127.0.0.1:8080`, `[::1]:8080`: that port;
//!   `localhost:*`: any port (a plugin for local dev servers asks so, and
//!   the user's grant narrows it to the one in use);
//! - `http://…`: plain HTTP allowed for it (`insecure`), port 80 unless
//!   one is named;
//! - `*`: any host, on port 443 (a fetcher of any page the model names,
//!   as `web_fetch` asks; the user may narrow it to a list). Like every
//!   wildcard it never reaches a private address.
//!
//! Every hop of a request (each redirect) is checked against the list, and
//! every address a name resolves to is checked before a connection: a
//! private, loopback, link-local or otherwise non-public address only when
//! a pattern names that host exactly (no wildcard), so a public name that
//! resolves to one (DNS rebinding) reaches nothing inside.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// One host pattern of a grant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostPattern {
    /// `*.` was its first label: any host under `host`; with `host`
    /// empty (the pattern `*`), any host at all.
    pub wildcard: bool,
    /// Lowercase, without a trailing dot; an IPv6 address without brackets.
    pub host: String,
    pub port: Option<u16>,
    /// `:*`: any port.
    pub any_port: bool,
    /// Plain HTTP is allowed for it.
    pub insecure: bool,
}

/// Why a pattern is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{pattern}` is not a host pattern: {why} (e.g. `api.example.com`, `*.example.org`, `127.0.0.1:8080`, `http://localhost:3000`)")]
pub struct BadPattern {
    pub pattern: String,
    pub why: &'static str,
}

impl HostPattern {
    pub fn parse(text: &str) -> Result<HostPattern, BadPattern> {
        let bad = |why| BadPattern {
            pattern: text.to_string(),
            why,
        };
        let trimmed = text.trim();
        let (insecure, rest) = match trimmed.split_once("://") {
            Some(("http", rest)) => (true, rest),
            Some(("https", rest)) => (false, rest),
            Some(_) => return Err(bad("only http:// or https:// may lead it")),
            None => (false, trimmed),
        };
        if rest.contains(['/', '?', '#', '@']) || rest.chars().any(char::is_whitespace) {
            return Err(bad("a host, and a port, with no path, user or spaces"));
        }
        let (rest, any_port) = match rest.strip_suffix(":*") {
            Some(host) => (host, true),
            None => (rest, false),
        };
        let (host, port) = split_port(rest)
            .ok_or_else(|| bad("its port is not a number from 1 to 65535, or `*`"))?;
        if any_port && port.is_some() {
            return Err(bad("two ports"));
        }
        if host == "*" {
            return Ok(HostPattern {
                wildcard: true,
                host: String::new(),
                port,
                any_port,
                insecure,
            });
        }
        let (wildcard, host) = match host.strip_prefix("*.") {
            Some(under) => (true, under),
            None => (false, host),
        };
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        if host.is_empty() {
            return Err(bad("it names no host"));
        }
        if host.contains('*') {
            return Err(bad(
                "`*` may only be the whole first label (`*.example.org`)",
            ));
        }
        let is_ip = host.parse::<IpAddr>().is_ok();
        if wildcard && is_ip {
            return Err(bad("an address has no hosts under it"));
        }
        if !is_ip
            && !host
                .split('.')
                .all(|l| !l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        {
            return Err(bad("a host name is letters, digits, `-` and dots"));
        }
        Ok(HostPattern {
            wildcard,
            host,
            port,
            any_port,
            insecure,
        })
    }

    fn default_port(&self) -> u16 {
        if self.insecure {
            80
        } else {
            443
        }
    }

    /// Whether it covers `host` (lowercase, as a URL has it) on `port`
    /// over `https` (or plain HTTP).
    fn covers(&self, host: &str, port: u16, https: bool) -> bool {
        let host_matches = if self.wildcard && self.host.is_empty() {
            !host.is_empty()
        } else if self.wildcard {
            host.strip_suffix(self.host.as_str())
                .is_some_and(|head| head.len() > 1 && head.ends_with('.'))
        } else {
            host == self.host
        };
        let port_matches = match self.port {
            _ if self.any_port => true,
            Some(p) => p == port,
            None => port == self.default_port() || (https && port == 443),
        };
        host_matches && port_matches && (https || self.insecure)
    }
}

/// `host[:port]`, `[v6][:port]` or a bare IPv6 address.
fn split_port(text: &str) -> Option<(&str, Option<u16>)> {
    let port = |p: &str| p.parse::<u16>().ok().filter(|p| *p > 0);
    if let Some(inner) = text.strip_prefix('[') {
        let (host, after) = inner.split_once(']')?;
        return match after {
            "" => Some((host, None)),
            _ => Some((host, Some(port(after.strip_prefix(':')?)?))),
        };
    }
    if text.parse::<Ipv6Addr>().is_ok() {
        return Some((text, None));
    }
    match text.rsplit_once(':') {
        Some((host, p)) => Some((host, Some(port(p)?))),
        None => Some((text, None)),
    }
}

/// A grant's host list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Allowlist {
    pub patterns: Vec<HostPattern>,
}

/// Why a hop is refused, in words for the plugin and its log.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("not granted: http to {0} (the grant names {1})")]
    Host(String, String),
    #[error("plain http to {0} is not granted; use https, or grant `http://{0}`")]
    Insecure(String),
    #[error("{host} resolves to {ip}, a private, loopback or link-local address, which only a grant naming {host} exactly may reach")]
    Private { host: String, ip: IpAddr },
}

impl Allowlist {
    pub fn parse<'a>(patterns: impl IntoIterator<Item = &'a str>) -> Result<Allowlist, BadPattern> {
        Ok(Allowlist {
            patterns: patterns
                .into_iter()
                .map(HostPattern::parse)
                .collect::<Result<_, _>>()?,
        })
    }

    fn described(&self) -> String {
        if self.patterns.is_empty() {
            return "no host".into();
        }
        self.described_list().join(", ")
    }

    /// Each pattern as it is written.
    pub fn described_list(&self) -> Vec<String> {
        self.patterns
            .iter()
            .map(|p| {
                let mut s = String::new();
                if p.insecure {
                    s.push_str("http://");
                }
                if p.wildcard && p.host.is_empty() {
                    s.push('*');
                } else if p.wildcard {
                    s.push_str("*.");
                }
                s.push_str(&p.host);
                if let Some(port) = p.port {
                    s.push_str(&format!(":{port}"));
                }
                if p.any_port {
                    s.push_str(":*");
                }
                s
            })
            .collect()
    }

    /// Checks one hop (the first request or a redirect) by its URL's
    /// parts, before anything is resolved.
    pub fn check(&self, https: bool, host: &str, port: u16) -> Result<(), Refusal> {
        let host = normalize(host);
        let covered = self.patterns.iter().any(|p| p.covers(&host, port, true));
        if !covered {
            return Err(Refusal::Host(format!("{host}:{port}"), self.described()));
        }
        if !https && !self.patterns.iter().any(|p| p.covers(&host, port, false)) {
            return Err(Refusal::Insecure(format!("{host}:{port}")));
        }
        Ok(())
    }

    /// Checks an address `host` resolved to, before connecting to it.
    pub fn check_address(&self, host: &str, ip: IpAddr) -> Result<(), Refusal> {
        let host = normalize(host);
        if is_public(ip) || self.names_exactly(&host) {
            return Ok(());
        }
        Err(Refusal::Private { host, ip })
    }

    /// The user's grant of `granted` within what the plugin asked for:
    /// every granted pattern must lie inside an asked one (the same host
    /// or one under an asked wildcard; the same port, or any port asked);
    /// one that does not is named.
    pub fn narrowed(&self, granted: &Allowlist) -> Result<Allowlist, String> {
        for g in &granted.patterns {
            let inside = self.patterns.iter().any(|a| {
                let host = if a.wildcard && a.host.is_empty() {
                    true
                } else if a.wildcard {
                    g.host
                        .strip_suffix(a.host.as_str())
                        .is_some_and(|head| head.ends_with('.') && head.len() > 1)
                        || (g.wildcard && g.host == a.host)
                } else {
                    !g.wildcard && g.host == a.host
                };
                let port = a.any_port || (!g.any_port && g.port == a.port);
                host && port && (a.insecure || !g.insecure)
            });
            if !inside {
                return Err(format!(
                    "`{}` is not among the hosts the plugin asked for ({})",
                    Allowlist {
                        patterns: vec![g.clone()]
                    }
                    .described(),
                    self.described()
                ));
            }
        }
        Ok(granted.clone())
    }

    fn names_exactly(&self, host: &str) -> bool {
        self.patterns.iter().any(|p| !p.wildcard && p.host == host)
    }
}

/// Lowercase, no trailing dot, no IPv6 brackets.
fn normalize(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase()
}

/// Whether `ip` is an address of the public internet: not loopback,
/// private, link-local, shared (CGNAT), unspecified, multicast,
/// broadcast, documentation or reserved, and an IPv4-mapped or NAT64
/// address judged by the IPv4 inside it.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => public_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return public_v4(v4);
            }
            let s = v6.segments();
            // 64:ff9b::/96, the NAT64 prefix: an IPv4 address inside.
            if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
                let o = v6.octets();
                return public_v4(Ipv4Addr::new(o[12], o[13], o[14], o[15]));
            }
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                // fc00::/7 unique local, fe80::/10 link-local.
                || (s[0] & 0xfe00) == 0xfc00
                || (s[0] & 0xffc0) == 0xfe80
                // 2001:db8::/32, documentation.
                || (s[0] == 0x2001 && s[1] == 0x0db8))
        }
    }
}

fn public_v4(v4: Ipv4Addr) -> bool {
    let o = v4.octets();
    !(v4.is_loopback()
        || v4.is_private()
        || v4.is_link_local()
        || v4.is_unspecified()
        || v4.is_broadcast()
        || v4.is_multicast()
        || v4.is_documentation()
        || o[0] == 0
        // 100.64.0.0/10, shared address space (carrier NAT).
        || (o[0] == 100 && (o[1] & 0xc0) == 64)
        // 192.0.0.0/24, protocol assignments; 198.18.0.0/15, benchmarking.
        || (o[0] == 192 && o[1] == 0 && o[2] == 0)
        || (o[0] == 198 && (o[1] & 0xfe) == 18)
        // 240.0.0.0/4, reserved.
        || o[0] >= 240)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(patterns: &[&str]) -> Allowlist {
        Allowlist::parse(patterns.iter().copied()).unwrap()
    }

    #[test]
    fn star_is_any_public_host_on_443_and_narrows_to_a_list() {
        let any = list(&["*"]);
        assert_eq!(any.described_list(), ["*"]);
        assert!(any.check(true, "docs.rs", 443).is_ok());
        assert!(any.check(true, "docs.rs", 8443).is_err());
        assert!(any.check(false, "docs.rs", 80).is_err());
        // A wildcard never reaches inside, whatever the name resolves to.
        assert!(any
            .check_address("intranet.corp", "10.0.0.5".parse().unwrap())
            .is_err());
        let narrowed = any.narrowed(&list(&["docs.rs", "*.python.org"])).unwrap();
        assert!(narrowed.check(true, "docs.python.org", 443).is_ok());
        assert!(narrowed.check(true, "example.com", 443).is_err());
        assert!(list(&["docs.rs"]).narrowed(&any).is_err());
    }

    #[test]
    fn patterns_parse_or_say_why_not() {
        let p = HostPattern::parse("*.Example.org.").unwrap();
        assert!(p.wildcard && p.host == "example.org" && p.port.is_none() && !p.insecure);
        let p = HostPattern::parse("http://127.0.0.1:8080").unwrap();
        assert!(p.insecure && p.host == "127.0.0.1" && p.port == Some(8080));
        let p = HostPattern::parse("http://localhost:*").unwrap();
        assert!(p.any_port && p.port.is_none());
        assert_eq!(HostPattern::parse("[::1]:9000").unwrap().host, "::1");
        for bad in [
            "",
            "ftp://x.org",
            "x.org/path",
            "a*.x.org",
            "*.127.0.0.1",
            "x.org:0",
            "x.org:99999",
            "x.org:1:*",
            "user@x.org",
            "exa mple.org",
        ] {
            assert!(HostPattern::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_hop_needs_its_host_its_port_and_https_unless_marked() {
        let grant = list(&["api.example.com", "*.example.org", "http://127.0.0.1:8080"]);
        assert!(grant.check(true, "api.example.com", 443).is_ok());
        assert!(grant.check(true, "API.example.com.", 443).is_ok());
        assert!(grant.check(true, "api.example.com", 8443).is_err());
        assert!(grant.check(false, "api.example.com", 80).is_err());
        assert!(grant.check(true, "docs.example.org", 443).is_ok());
        assert!(grant.check(true, "a.b.example.org", 443).is_ok());
        assert!(grant.check(true, "example.org", 443).is_err());
        assert!(grant.check(true, "badexample.org", 443).is_err());
        assert!(grant.check(false, "127.0.0.1", 8080).is_ok());
        assert!(grant.check(false, "127.0.0.1", 8081).is_err());
        let refused = grant.check(true, "evil.com", 443).unwrap_err().to_string();
        assert!(
            refused.starts_with("not granted: http to evil.com:443"),
            "{refused}"
        );
        assert!(matches!(
            list(&["x.org:8443"]).check(false, "x.org", 8443),
            Err(Refusal::Insecure(_))
        ));
    }

    #[test]
    fn a_grant_narrows_what_was_asked_and_no_more() {
        let asked = list(&["http://127.0.0.1:*", "*.example.org"]);
        let narrowed = asked.narrowed(&list(&["http://127.0.0.1:8080", "docs.example.org"]));
        assert!(narrowed.is_ok(), "{narrowed:?}");
        for wider in [
            "127.0.0.2:80",
            "example.org",
            "evil.com",
            "http://docs.example.org",
        ] {
            let refused = asked.narrowed(&list(&[wider])).unwrap_err();
            assert!(
                refused.contains("not among the hosts"),
                "{wider}: {refused}"
            );
        }
        let any = list(&["http://localhost:*"]);
        assert!(any.check(false, "localhost", 5173).is_ok());
    }

    #[test]
    fn a_private_address_only_for_a_host_named_exactly() {
        let grant = list(&["*.example.org", "127.0.0.1:8080", "localhost:3000"]);
        let loopback: IpAddr = "127.0.0.1".parse().unwrap();
        assert!(grant.check_address("127.0.0.1", loopback).is_ok());
        assert!(grant.check_address("localhost", loopback).is_ok());
        let rebound = grant.check_address("evil.example.org", loopback);
        assert!(
            matches!(rebound, Err(Refusal::Private { .. })),
            "{rebound:?}"
        );
        assert!(grant
            .check_address("www.example.org", "93.184.216.34".parse().unwrap())
            .is_ok());
        for private in [
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:10.0.0.1",
            "64:ff9b::a00:1",
        ] {
            let ip: IpAddr = private.parse().unwrap();
            assert!(!is_public(ip), "{private}");
        }
        for public in ["93.184.216.34", "2606:2800:220:1::1", "::ffff:8.8.8.8"] {
            assert!(is_public(public.parse().unwrap()), "{public}");
        }
    }
}
