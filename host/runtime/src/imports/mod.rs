//! Host-side implementations of the imports every plugin is linked
//! against. One module per WIT interface, as in wasmtime-wasi. An import a
//! plugin was not granted answers with an error; linking never fails.

pub mod exec;
pub mod files;
pub mod host;
pub mod http;
mod walker;

use wasmtime::component::{HasSelf, Linker};

use crate::bindings::FullPlugin;
use crate::instance::HostState;

/// Links WASI p2 and every amber import, at every supported version: an
/// older version's imports are its adapter's (`crate::api`), which call
/// the same implementations.
pub fn linker(engine: &wasmtime::Engine) -> wasmtime::Result<Linker<HostState>> {
    let mut linker = Linker::new(engine);
    wasmtime_wasi::p2::add_to_linker_sync(&mut linker)?;
    // `wasi:http`, answering only for an `http` grant (`http`).
    wasmtime_wasi_http::p2::add_only_http_to_linker_sync(&mut linker)?;
    FullPlugin::add_to_linker::<HostState, HasSelf<HostState>>(&mut linker, |state| state)?;
    crate::api::since_v0_2::FullPlugin::add_to_linker::<HostState, HasSelf<HostState>>(
        &mut linker,
        |state| state,
    )?;
    crate::api::since_v0_1::FullPlugin::add_to_linker::<HostState, HasSelf<HostState>>(
        &mut linker,
        |state| state,
    )?;
    Ok(linker)
}

impl crate::bindings::types::Host for HostState {}
