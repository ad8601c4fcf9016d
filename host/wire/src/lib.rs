//! amber-wire: the host side of the seed's "Provider wire path".
//!
//! The dialect (a component) shapes requests and decodes events; this crate
//! owns everything around it: presets, the key, HTTP with rustls, SSE
//! framing (eventsource-stream), retries with backoff before the first
//! token, timeouts, cancellation and a typed [`ApiError`]. It implements the
//! core's `ModelClient` port.

// A library reports what happened; its front end decides what to print.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod assemble;
pub mod client;
pub mod error;
pub mod presets;
pub mod retry;
pub mod secrets;

pub use client::{make_dialect, Cancel, WireClient, WireOptions};
pub use error::ApiError;
pub use presets::{Preset, Presets};
