//! The bench client, the third client of the engine (seed 000: "observe,
//! score, aggregate, report"). It runs scenarios through `amber exec
//! --json` as a separate process, the way a user would, and judges each
//! on what the run did and what it left in the workspace
//! (docs/bench-client.md).
//!
//! - [`scenario`] finds and parses the scenario files;
//! - [`run`] plays one: a scratch workspace and home, the fake LLM server
//!   for scripted replies or the chosen provider for a real model;
//! - [`judge`] scores it: passed, failed with each reason, over budget;
//! - [`kpi`] aggregates the runs per suite and overall;
//! - [`report`] writes them as text, markdown or JSON.
//!
//! [`fake_llm`] is the fake LLM server the scripted scenarios (and the
//! tests) run against.

// A library reports what happened; its front end decides what to print.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod fake_llm;
pub mod judge;
pub mod kpi;
pub mod report;
pub mod run;
pub mod scenario;
mod workspace;

pub use judge::{Observed, Verdict};
pub use kpi::{Kpis, SuiteKpis};
pub use run::{RunSettings, ScenarioRun};
pub use scenario::{Loaded, Scenario};
