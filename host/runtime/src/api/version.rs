//! Which version of the contract a component speaks, and which ones this
//! host loads.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use wasmtime::component::Component;
use wasmtime::Engine;

use crate::error::LoadError;

/// The prefix of every interface name of the contract.
pub const PACKAGE: &str = "amber:plugin/";

/// A version of `amber:plugin`: `MAJOR.MINOR.PATCH`. A minor version only
/// adds (docs/wit.md, "Versioning"); a major one may remove or change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ApiVersion {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl ApiVersion {
    pub const fn new(major: u32, minor: u32, patch: u32) -> Self {
        ApiVersion {
            major,
            minor,
            patch,
        }
    }

    /// `MAJOR.MINOR`, as the docs and messages name a version's line.
    pub fn line(&self) -> String {
        format!("{}.{}", self.major, self.minor)
    }
}

impl fmt::Display for ApiVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

impl FromStr for ApiVersion {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let bad = || format!("`{text}` is not a version (MAJOR.MINOR.PATCH)");
        let mut parts = text.split('.').map(|p| p.parse::<u32>().map_err(|_| bad()));
        let (Some(major), Some(minor), Some(patch), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        Ok(ApiVersion::new(major?, minor?, patch?))
    }
}

impl Serialize for ApiVersion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ApiVersion {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// The version the host speaks natively: `wit/`, [`crate::bindings`].
pub const LATEST: ApiVersion = ApiVersion::new(0, 3, 0);

/// Every version the host loads, newest first. Each but the first runs
/// through its adapter module; `wit/since_vX.Y.Z/` holds its frozen WIT.
pub const SUPPORTED: [ApiVersion; 3] = [LATEST, ApiVersion::new(0, 2, 0), ApiVersion::new(0, 1, 0)];

/// How a supported version reaches the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// The latest version: no conversion.
    Native,
    /// An older version, through its adapter module.
    Adapter,
}

impl ApiVersion {
    /// How the host speaks this version, or `None` when it cannot.
    pub fn route(&self) -> Option<Route> {
        match SUPPORTED.iter().position(|v| v == self) {
            Some(0) => Some(Route::Native),
            Some(_) => Some(Route::Adapter),
            None => None,
        }
    }
}

/// The oldest version still loaded.
fn oldest() -> ApiVersion {
    SUPPORTED[SUPPORTED.len() - 1]
}

/// What a user can do about a component of a version the host cannot
/// load: a newer one needs a newer amber (or a rebuild against this one's
/// SDK); an older one, a rebuild.
pub fn what_to_do(found: &str) -> String {
    let older: Vec<String> = SUPPORTED[1..].iter().map(|v| format!("@{v}")).collect();
    let speaks = match older.len() {
        0 => format!("this host speaks @{LATEST}"),
        1 => format!(
            "this host speaks @{LATEST}, and {} through an adapter",
            older[0]
        ),
        _ => format!(
            "this host speaks @{LATEST}, and {} through adapters",
            older.join(", ")
        ),
    };
    match found.parse::<ApiVersion>() {
        Ok(v) if v > LATEST => format!(
            "{speaks}; upgrade amber to load it, or rebuild the plugin with the SDK for {}",
            LATEST.line()
        ),
        Ok(v) if v < oldest() => format!(
            "{speaks}; support for {} ended: rebuild the plugin with the current SDK",
            v.line()
        ),
        _ => format!("{speaks}; rebuild the plugin with the current SDK"),
    }
}

/// The contract's interfaces a component names, with the version each
/// carries ("unversioned" when it carries none).
fn contract_names<'a>(names: impl Iterator<Item = &'a str>) -> Vec<(&'a str, &'a str)> {
    names
        .filter_map(|name| name.strip_prefix(PACKAGE))
        .map(|rest| rest.split_once('@').unwrap_or((rest, "unversioned")))
        .collect()
}

/// Two versions named by one component: the first, and an interface of
/// another.
#[derive(Debug, PartialEq)]
struct Mixed<'a> {
    first: &'a str,
    interface: &'a str,
    other: &'a str,
}

/// The one version every named interface carries; `None` when none is
/// named.
fn one_version<'a>(named: &[(&'a str, &'a str)]) -> Result<Option<&'a str>, Mixed<'a>> {
    let Some((_, first)) = named.first() else {
        return Ok(None);
    };
    match named.iter().find(|(_, v)| v != first) {
        Some((interface, other)) => Err(Mixed {
            first,
            interface,
            other,
        }),
        None => Ok(Some(first)),
    }
}

/// The one version a component's exports and imports of the contract all
/// carry. A component that names two versions, or one the host does not
/// load, is refused with both versions named and what to do.
pub fn version_of(
    engine: &Engine,
    component: &Component,
    origin: &Path,
) -> Result<ApiVersion, LoadError> {
    let ty = component.component_type();
    let exports: Vec<&str> = ty.exports(engine).map(|(name, _)| name).collect();
    let imports: Vec<&str> = ty.imports(engine).map(|(name, _)| name).collect();
    let named = contract_names(exports.iter().chain(imports.iter()).copied());
    let incompatible = |found: &str| LoadError::Incompatible {
        path: origin.to_path_buf(),
        found: found.to_string(),
        what_to_do: what_to_do(found),
    };
    let first = match one_version(&named) {
        Ok(Some(first)) => first,
        Ok(None) => {
            return Err(LoadError::NotAPlugin {
                path: origin.to_path_buf(),
            })
        }
        Err(Mixed {
            first,
            interface,
            other,
        }) => {
            return Err(LoadError::MixedVersions {
                path: origin.to_path_buf(),
                first: first.to_string(),
                interface: interface.to_string(),
                other: other.to_string(),
            })
        }
    };
    let version: ApiVersion = first.parse().map_err(|_| incompatible(first))?;
    match version.route() {
        Some(_) => Ok(version),
        None => Err(incompatible(first)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_order_and_print() {
        let v: ApiVersion = "0.1.0".parse().unwrap();
        assert_eq!(v, ApiVersion::new(0, 1, 0));
        assert!(v < LATEST);
        assert_eq!(LATEST.to_string(), "0.3.0");
        assert!("0.1".parse::<ApiVersion>().is_err());
        assert!("0.1.0.0".parse::<ApiVersion>().is_err());
        assert!("x.1.0".parse::<ApiVersion>().is_err());
        let json = serde_json::to_string(&v).unwrap();
        assert_eq!(json, "\"0.1.0\"");
        assert_eq!(serde_json::from_str::<ApiVersion>(&json).unwrap(), v);
    }

    #[test]
    fn the_latest_is_native_older_supported_ones_go_through_an_adapter() {
        assert_eq!(LATEST.route(), Some(Route::Native));
        assert_eq!(ApiVersion::new(0, 1, 0).route(), Some(Route::Adapter));
        assert_eq!(ApiVersion::new(9, 0, 0).route(), None);
        assert_eq!(ApiVersion::new(0, 2, 1).route(), None);
    }

    #[test]
    fn what_to_do_depends_on_which_side_the_version_is() {
        let newer = what_to_do("9.0.0");
        assert!(newer.contains("upgrade amber"), "{newer}");
        assert!(newer.contains("@0.2.0"), "{newer}");
        assert!(newer.contains("@0.1.0"), "{newer}");
        let older = what_to_do("0.0.1");
        assert!(older.contains("support for 0.0 ended"), "{older}");
        let garbage = what_to_do("unversioned");
        assert!(garbage.contains("rebuild the plugin"), "{garbage}");
    }

    #[test]
    fn a_component_names_one_version_or_is_mixed() {
        assert_eq!(one_version(&[]), Ok(None));
        let same = [("plugin", "0.1.0"), ("host", "0.1.0")];
        assert_eq!(one_version(&same), Ok(Some("0.1.0")));
        let mixed = [("plugin", "0.2.0"), ("tool", "0.2.0"), ("host", "0.1.0")];
        assert_eq!(
            one_version(&mixed),
            Err(Mixed {
                first: "0.2.0",
                interface: "host",
                other: "0.1.0"
            })
        );
    }

    /// One version everywhere it is written: the host's constants, the
    /// WIT's package line, and each SDK's.
    #[test]
    fn the_latest_version_is_written_the_same_everywhere() {
        let latest = LATEST.to_string();
        assert_eq!(crate::API_VERSION, latest);
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let read = |path: &str| std::fs::read_to_string(root.join(path)).unwrap();
        let expected = [
            ("wit/worlds.wit", format!("package amber:plugin@{latest};")),
            (
                "sdk/rust/src/manifest.rs",
                format!("API_VERSION: &str = \"{latest}\";"),
            ),
            (
                "sdk/python/amber_sdk/__init__.py",
                format!("API_VERSION = \"{latest}\""),
            ),
            (
                "sdk/js/amber-sdk.js",
                format!("API_VERSION = \"{latest}\";"),
            ),
            ("sdk/js/amber-sdk.js", format!("amber:plugin/host@{latest}")),
            (
                "sdk/examples/c/plugin.c",
                format!("api_version, \"{latest}\""),
            ),
        ];
        for (path, text) in expected {
            assert!(read(path).contains(&text), "{path} does not say {text}");
        }
    }

    #[test]
    fn contract_names_split_the_version_off() {
        let names = [
            "amber:plugin/tool@0.1.0",
            "wasi:cli/environment@0.2.6",
            "amber:plugin/plugin",
        ];
        assert_eq!(
            contract_names(names.into_iter()),
            vec![("tool", "0.1.0"), ("plugin", "unversioned")]
        );
    }
}
