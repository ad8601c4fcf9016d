//! The versions of the plugin contract this host speaks, and how it tells
//! which one a component was built for.
//!
//! `amber:plugin` is versioned by its package: every interface name
//! carries the version (`amber:plugin/tool@0.3.0`). The host speaks the
//! latest version natively ([`crate::bindings`]) and each older version it
//! still supports through an adapter module of its own, as Zed keeps one
//! `since_vX` module per extension API version: [`since_v0_2`] links the
//! 0.2 imports onto the host's and converts the 0.2 exports' values to
//! the latest types (and [`since_v0_1`] the 0.1 ones), so everything
//! above the runtime sees one contract.
//!
//! The version is read from the component's own interface names, exports
//! and imports alike, never from the manifest's `api-version`, which the
//! plugin writes and the host cannot trust.

mod adapt;
pub mod exports;
mod latest;
mod shapes_0_2;
pub mod since_v0_1;
pub mod since_v0_2;
mod version;

pub use version::{version_of, what_to_do, ApiVersion, Route, LATEST, PACKAGE, SUPPORTED};

use wasmtime::component::InstancePre;

use crate::host_state::HostState;
use exports::ExportLoader;

/// The export loader for a component of `version`, found from its
/// `InstancePre`: the latest version's bindings, or its adapter's.
pub fn loader(
    pre: &InstancePre<HostState>,
    version: ApiVersion,
) -> wasmtime::Result<Box<dyn ExportLoader>> {
    match version.route() {
        Some(Route::Native) => Ok(Box::new(latest::Indices::resolve(pre, version)?)),
        Some(Route::Adapter) if version == since_v0_2::VERSION => {
            Ok(Box::new(since_v0_2::Indices::resolve(pre, version)?))
        }
        Some(Route::Adapter) if version == since_v0_1::VERSION => {
            Ok(Box::new(since_v0_1::Indices::resolve(pre, version)?))
        }
        _ => Err(wasmtime::format_err!(
            "amber:plugin@{version} has no adapter in this host"
        )),
    }
}
