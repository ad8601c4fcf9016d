//! `amber providers list|check`: the presets, and a one-request check of a
//! key and an endpoint through the real wire and dialect component.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use amber_core::ports::dialect::{ChatRequest, Message, Part, Role, StopReason, StreamChunk};

/// The cap on the check's reply: "ok" needs one token, and a check
/// should cost next to nothing.
const CHECK_MAX_TOKENS: u32 = 32;
use amber_wire::{make_dialect, ApiError, Presets, WireClient};
use anyhow::{Context, Result};
use clap::Subcommand;
use serde_json::json;

use super::print_json;
use amber_app::host::{self, Host};

#[derive(Subcommand)]
pub enum ProvidersCommand {
    /// List the provider presets: shipped ones and yours from config.
    List {
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Send one tiny request and stream the reply: checks the key, the base
    /// URL and the dialect. Prints what went wrong and what to do.
    Check {
        /// A preset name (see `amber providers list`).
        preset: String,
        /// Another model than the preset's.
        #[arg(long)]
        model: Option<String>,
        /// Another base URL than the preset's (and $OPENAI_BASE_URL /
        /// $ANTHROPIC_BASE_URL).
        #[arg(long)]
        base_url: Option<String>,
        /// Print JSON for scripts instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// Shipped presets, then the user's from config, then the env base URLs.
pub fn presets(host: &Host) -> Result<Presets> {
    presets_from(&host.config()?)
}

pub use amber_app::presets::presets_from;

pub fn run(host: &Host, cmd: ProvidersCommand, workspace: &Path) -> Result<()> {
    match cmd {
        ProvidersCommand::List { json } => list(host, json),
        ProvidersCommand::Check {
            preset,
            model,
            base_url,
            json,
        } => {
            let result = check(host, &preset, model, base_url, json, workspace);
            // A failure before the request (no such preset, no key, no
            // dialect) is JSON too when JSON was asked for; failures of
            // the request print their own.
            if let Err(e) = &result {
                if json && !e.is::<Reported>() {
                    let advice = e.downcast_ref::<ApiError>().and_then(advice);
                    print_json(
                        &json!({"ok": false, "provider": preset, "error": format!("{e:#}"), "advice": advice}),
                    )?;
                }
            }
            result.map_err(|e| match e.downcast::<Reported>() {
                Ok(reported) => reported.0,
                Err(e) => e,
            })
        }
    }
}

fn list(host: &Host, as_json: bool) -> Result<()> {
    let presets = presets(host)?;
    let key_set =
        |env: &Option<String>| env.as_ref().is_some_and(|k| amber_wire::secrets::is_set(k));
    if as_json {
        let rows: Vec<_> = presets
            .all()
            .map(|p| json!({"name": p.name, "flavor": p.flavor, "base_url": p.base_url, "key_env": p.key_env,
                            "key_set": key_set(&p.key_env), "model": p.model, "context_window": p.context_window}))
            .collect();
        return print_json(&json!({ "providers": rows }));
    }
    println!(
        "{:<17} {:<19} {:<38} {:<28} MODEL",
        "PROVIDER", "FLAVOR", "BASE URL", "KEY"
    );
    for p in presets.all() {
        let key = match &p.key_env {
            Some(env) if key_set(&p.key_env) => format!("{env} (set)"),
            Some(env) => format!("{env} (not set)"),
            None => "no key".into(),
        };
        println!(
            "{:<17} {:<19} {:<38} {:<28} {}",
            p.name, p.flavor, p.base_url, key, p.model
        );
    }
    Ok(())
}

/// An error `check` has already printed as JSON.
#[derive(Debug)]
struct Reported(anyhow::Error);

impl std::fmt::Display for Reported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#}", self.0)
    }
}

impl std::error::Error for Reported {}

/// What to do about an error, when there is something to do.
fn advice(e: &ApiError) -> Option<&'static str> {
    match e {
        ApiError::Connect { .. } => Some("is the server running? check the base URL (--base-url)"),
        ApiError::Timeout { .. } => {
            Some("the server is slow or stuck; try again, or check the base URL")
        }
        ApiError::Http { status: 404, .. } => {
            Some("check the model name (--model) and the base URL")
        }
        ApiError::NoDialect { .. } => {
            Some("the provider plugins are missing: run `amber plugin list`")
        }
        _ => None,
    }
}

fn check(
    host: &Host,
    name: &str,
    model: Option<String>,
    base_url: Option<String>,
    as_json: bool,
    workspace: &Path,
) -> Result<()> {
    let config = host.config()?;
    let mut preset = presets_from(&config)?.get(name)?.clone();
    if let Some(url) = base_url {
        preset.base_url = url;
    }
    if let Some(model) = model {
        preset.model = model;
    }
    let manager = host::loaded(host, workspace)?;
    let dialect = make_dialect(manager.runtime().ledger(), &preset)
        .map_err(|e| host::with_bundle_hint(e.into()))?;
    let key = WireClient::key_from_env(&preset)?;
    let request = ChatRequest {
        flavor: dialect.flavor().name.clone(),
        model: preset.model.clone(),
        messages: vec![Message {
            role: Role::User,
            parts: vec![Part::Text {
                text: "Reply with the single word: ok".into(),
            }],
        }],
        tools: Vec::new(),
        max_tokens: Some(CHECK_MAX_TOKENS),
        temperature: None,
        cache_breakpoint: None,
    };
    let client = WireClient::new(preset.clone(), dialect, key, host::wire_options(&config))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let started = Instant::now();
    let mut first_token = None;
    let mut on_chunk = |chunk: &StreamChunk| {
        if let StreamChunk::TextDelta(t) = chunk {
            first_token.get_or_insert_with(|| started.elapsed());
            if !as_json {
                print!("{t}");
                let _ = std::io::stdout().flush();
            }
        }
    };
    let result = runtime.block_on(client.call(request, &mut on_chunk));
    let total = started.elapsed();
    match result {
        Ok(reply) => {
            if as_json {
                print_json(
                    &json!({"ok": true, "provider": preset.name, "model": preset.model, "text": reply.text,
                                   "stop": reply.stop, "usage": reply.usage, "first_token_ms": first_token.map(|d| d.as_millis()), "total_ms": total.as_millis()}),
                )?;
            } else {
                println!();
                let u = reply.usage;
                println!(
                    "ok: {} ({}) answered in {} ms (input {} tokens, output {})",
                    preset.name,
                    preset.model,
                    total.as_millis(),
                    u.input_tokens,
                    u.output_tokens
                );
                if reply.text.is_empty() && reply.stop == Some(StopReason::MaxTokens) {
                    println!(
                        "note: the reply reached its cap of {CHECK_MAX_TOKENS} tokens before any text; a reasoning model spends them thinking ({} here). The key and the URL work.",
                        u.reasoning_tokens
                    );
                }
            }
            Ok(())
        }
        Err(e) => {
            if as_json {
                print_json(
                    &json!({"ok": false, "provider": preset.name, "model": preset.model, "error": e.to_string(), "advice": advice(&e)}),
                )?;
            } else {
                println!();
            }
            let error = match advice(&e) {
                Some(hint) => anyhow::anyhow!("{e}\n  {hint}"),
                None => anyhow::anyhow!("{e}"),
            };
            Err(if as_json {
                Reported(error).into()
            } else {
                error
            })
        }
    }
}
