//! `/set` and `/get`: model, provider, policy mode, temperature, max
//! iterations and compression (threshold, target, on or off). In a session `/set` changes
//! that session; with `--save`, or from the shell where there is no
//! session, it writes the config file (comments and layout kept). A value
//! is checked against the tree before anything changes: its choices (the
//! setting's children) or its range; a bad one is refused whole.

use amber_core::commands::{Invocation, Node, Reply};
use amber_core::engine::Mode;
use amber_core::printable::{has_hidden, printable};
use serde_json::json;
use toml_edit::Value;

use super::{failed, invalid, words_and_save, Handled};
use crate::app::Settings;
use crate::{compaction, config_file, presets, session, App};

/// The settings in the order `/get` lists them.
pub const NAMES: &[&str] = &[
    "model",
    "provider",
    "policy",
    "temperature",
    "max_iterations",
    "compress_threshold",
    "compress_target",
    "compress_enabled",
];

/// A value that passed its checks, typed.
#[derive(Debug, Clone, PartialEq)]
enum Setting {
    Model(String),
    Provider(String),
    Policy(Mode),
    Temperature(f32),
    MaxIterations(u32),
    CompressThreshold(f64),
    CompressTarget(f64),
    CompressEnabled(bool),
}

/// `/set KEY VALUE [--save]`; on a choice leaf (`/set policy read`) the
/// value is the leaf's name, which the tree matched.
pub fn set_value(app: &mut App, inv: &Invocation<'_>) -> Handled {
    let key = inv.path.get(1).map(String::as_str).unwrap_or_default();
    let (words, save) = words_and_save(inv.arg);
    let value = match inv.path.get(2) {
        Some(choice) => choice.clone(),
        None => words.join(" "),
    };
    set(app, inv.tree, key, &value, save)
}

/// `/model [NAME] [--save]`: NAME switches the model as `/set model`
/// does; alone, the models the presets list, the one in use first.
pub fn model(app: &mut App, inv: &Invocation<'_>) -> Handled {
    let (words, save) = words_and_save(inv.arg);
    if let Some(name) = words.first() {
        if let Some(extra) = words.get(1) {
            return Err(invalid(format!(
                "/model takes one model name, got `{extra}` too"
            )));
        }
        return set(app, inv.tree, "model", name, save);
    }
    let current = app.settings();
    let choices: Vec<String> = inv
        .tree
        .child("model")
        .map(|n| n.children.keys().cloned().collect())
        .unwrap_or_default();
    let mut text = format!("model {} ({})
", current.model, current.provider);
    for name in &choices {
        let mark = if *name == current.model { "*" } else { " " };
        text.push_str(&format!("{mark} {name}\n"));
    }
    text.push_str("/model <name> switches (any name the provider knows)");
    Ok(Reply::text(text).with_data(json!({
        "model": current.model, "provider": current.provider, "choices": choices,
    })))
}

/// Sets `key` to `value`: in the session, and in the config file when
/// `save` or when no session is open.
pub fn set(app: &mut App, tree: &Node, key: &str, value: &str, save: bool) -> Handled {
    let node = tree
        .child("set")
        .and_then(|s| s.child(key))
        .ok_or_else(|| invalid(format!("no setting `{key}` (see /help set)")))?;
    let parsed = parse(app, key, value, node)?;
    let in_session = app.live().is_some();
    if in_session {
        apply(app, &parsed)?;
        if matches!(
            parsed,
            Setting::Policy(_) | Setting::Model(_) | Setting::Provider(_)
        ) {
            app.record_settings()
                .map_err(|e| failed(format!("{e:#}")))?;
        }
    }
    let shown = show(&parsed);
    if save || !in_session {
        let path = app.config_path();
        let mut config = config_file::set(&path, config_key(&parsed), toml_value(&parsed))
            .map_err(|e| failed(format!("{e:#}")))?;
        // A provider comes with its own model: a `model.model` saved for
        // another provider would be sent to this one.
        let mut also = String::new();
        if let Setting::Provider(name) = &parsed {
            let model = presets::presets_from(&config)
                .ok()
                .and_then(|p| p.get(name).ok().map(|p| p.model.clone()));
            if let Some(model) = model {
                config = config_file::set(&path, "model.model", model.as_str().into())
                    .map_err(|e| failed(format!("{e:#}")))?;
                also = format!(", and model = {model}, the provider's own");
            }
        }
        app.set_config(config);
        if let Setting::Policy(mode) = parsed {
            app.policy().set_mode(mode);
        }
        let text = format!("{key} = {shown}{also} (saved in {})", path.display());
        return Ok(Reply::text(text).with_data(json!({
            "key": key, "value": shown, "saved": path.display().to_string(), "session": in_session,
        })));
    }
    Ok(Reply::text(format!(
        "{key} = {shown} for this session (add --save to keep it)"
    ))
    .with_data(json!({ "key": key, "value": shown, "saved": null, "session": true })))
}

/// The longest value `/set` takes: a model name or a provider preset is
/// far shorter, and a value is echoed back and written to the config.
const MAX_VALUE_CHARS: usize = 200;

/// Checks `value` against what the tree allows for `key`.
fn parse(app: &App, key: &str, value: &str, node: &Node) -> Result<Setting, super::CommandError> {
    let value = value.trim();
    let allowed = allowed(key, node);
    if value.chars().count() > MAX_VALUE_CHARS {
        return Err(invalid(format!(
            "cannot set {key}: the value is {} characters long; at most {MAX_VALUE_CHARS}",
            value.chars().count()
        )));
    }
    if has_hidden(value) {
        return Err(invalid(format!(
            "cannot set {key} to `{}`: it holds control or invisible characters",
            printable(value)
        )));
    }
    let refuse = |why: &str| {
        invalid(format!(
            "cannot set {key} to `{value}`: {why}; allowed: {allowed}"
        ))
    };
    if value.is_empty() {
        return Err(invalid(format!(
            "/set {key} needs a value; allowed: {allowed}"
        )));
    }
    let number = |v: &str| -> Result<f64, super::CommandError> {
        let n: f64 = v.parse().map_err(|_| refuse("not a number"))?;
        match node.range {
            Some([min, max]) if !(min..=max).contains(&n) => Err(refuse("out of range")),
            _ => Ok(n),
        }
    };
    Ok(match key {
        "model" => Setting::Model(value.to_string()),
        "provider" => {
            let presets =
                presets::presets_from(app.config()).map_err(|e| failed(format!("{e:#}")))?;
            presets
                .get(value)
                .map_err(|_| refuse("no such provider preset"))?;
            Setting::Provider(value.to_string())
        }
        "policy" => Setting::Policy(match value {
            "plan" => Mode::Plan,
            "read" => Mode::Read,
            "write" => Mode::Write,
            "yolo" => Mode::Yolo,
            _ => return Err(refuse("not a mode")),
        }),
        "temperature" => Setting::Temperature(number(value)? as f32),
        "max_iterations" => {
            let n: u32 = value.parse().map_err(|_| refuse("not a whole number"))?;
            number(value)?;
            Setting::MaxIterations(n)
        }
        "compress_threshold" => Setting::CompressThreshold(number(value)?),
        "compress_target" => Setting::CompressTarget(number(value)?),
        "compress_enabled" => Setting::CompressEnabled(match value {
            "true" | "on" => true,
            "false" | "off" => false,
            _ => return Err(refuse("not true or false")),
        }),
        _ => return Err(invalid(format!("no setting `{key}` (see /help set)"))),
    })
}

/// What a setting allows, in words: its range, or its choices (the
/// setting's children in the tree). A model may be any name the provider
/// knows, so its choices are only examples.
fn allowed(key: &str, node: &Node) -> String {
    if let Some([min, max]) = node.range {
        return format!("a number from {min} to {max}");
    }
    let names: Vec<&str> = node.children.keys().map(String::as_str).collect();
    match (key, names.is_empty()) {
        ("model", true) => "any model name".into(),
        ("model", false) => format!("any model name, e.g. {}", names.join(", ")),
        _ => names.join(", "),
    }
}

/// Changes the open session: the next turn uses the value.
fn apply(app: &mut App, value: &Setting) -> Result<(), super::CommandError> {
    match value {
        Setting::Policy(mode) => app.policy().set_mode(*mode),
        Setting::Model(name) => {
            let Some(live) = app.live() else {
                return Ok(());
            };
            let mut preset = live.preset.clone();
            preset.model = name.clone();
            switch_model(app, preset)?;
        }
        Setting::Provider(name) => {
            let presets =
                presets::presets_from(app.config()).map_err(|e| failed(format!("{e:#}")))?;
            let preset = presets
                .get(name)
                .map_err(|e| failed(e.to_string()))?
                .clone();
            switch_model(app, preset)?;
        }
        Setting::Temperature(t) => {
            if let Some(live) = app.live_mut() {
                live.agent.config_mut().temperature = Some(*t);
            }
            app.resync_tools();
        }
        Setting::MaxIterations(n) => {
            if let Some(live) = app.live_mut() {
                live.agent.config_mut().max_tool_iterations = *n;
            }
        }
        Setting::CompressThreshold(x) => change_compression(app, |c| c.threshold = *x),
        Setting::CompressTarget(x) => change_compression(app, |c| c.target = *x),
        Setting::CompressEnabled(on) => change_compression(app, |c| c.enabled = *on),
    }
    Ok(())
}

/// Changes how the session compresses, and rebuilds its gate and
/// pipeline to match.
fn change_compression(app: &mut App, change: impl FnOnce(&mut compaction::Compression)) {
    if let Some(live) = app.live_mut() {
        change(&mut live.compression);
        compaction::install(&mut live.agent, live.compression);
    }
    app.resync_tools();
}

/// Points the session at `preset`: a new model client (a dialect for its
/// flavor, its key); the context carries over. Nothing changes when the
/// client cannot be made (no key, no dialect).
fn switch_model(app: &mut App, preset: amber_wire::Preset) -> Result<(), super::CommandError> {
    let (client, flavor) =
        session::model_client(app.manager().runtime().ledger(), &preset, app.config())
            .map_err(|e| failed(format!("{e:#}")))?;
    let app_prices = app.config().clone();
    if let Some(live) = app.live_mut() {
        live.agent.set_model_client(client);
        let config = live.agent.config_mut();
        config.model = preset.model.clone();
        config.flavor = flavor;
        config.context_window = preset.context_window;
        config.price = app_prices.price_of(&preset.name, &preset.model);
        config.images = preset.images;
        config.preset = preset.name.clone();
        live.preset = preset;
        // The pipeline compresses with the session's model, for its window.
        compaction::install(&mut live.agent, live.compression);
    }
    // Sub-agents use the new model too.
    app.resync_tools();
    Ok(())
}

fn config_key(value: &Setting) -> &'static str {
    match value {
        Setting::Model(_) => "model.model",
        Setting::Provider(_) => "model.provider",
        Setting::Policy(_) => "policy.mode",
        Setting::Temperature(_) => "agent.temperature",
        Setting::MaxIterations(_) => "agent.max_tool_iterations",
        Setting::CompressThreshold(_) => "agent.compress_threshold",
        Setting::CompressTarget(_) => "agent.compress_target",
        Setting::CompressEnabled(_) => "agent.compress_enabled",
    }
}

fn toml_value(value: &Setting) -> Value {
    match value {
        Setting::Model(s) | Setting::Provider(s) => s.as_str().into(),
        Setting::Policy(mode) => mode.as_str().into(),
        // Through the text, so 0.7 is written as 0.7, not 0.699999988.
        Setting::Temperature(t) => t.to_string().parse::<f64>().unwrap_or(f64::from(*t)).into(),
        Setting::MaxIterations(n) => i64::from(*n).into(),
        Setting::CompressThreshold(x) | Setting::CompressTarget(x) => (*x).into(),
        Setting::CompressEnabled(on) => (*on).into(),
    }
}

fn show(value: &Setting) -> String {
    match value {
        Setting::Model(s) | Setting::Provider(s) => s.clone(),
        Setting::Policy(mode) => mode.as_str().to_string(),
        Setting::Temperature(t) => t.to_string(),
        Setting::MaxIterations(n) => n.to_string(),
        Setting::CompressThreshold(x) | Setting::CompressTarget(x) => x.to_string(),
        Setting::CompressEnabled(on) => on.to_string(),
    }
}

/// One setting's value as text ("unset" for a temperature left to the
/// provider).
fn value_of(settings: &Settings, key: &str) -> Option<String> {
    Some(match key {
        "model" => settings.model.clone(),
        "provider" => settings.provider.clone(),
        "policy" => settings.policy.as_str().to_string(),
        "temperature" => settings
            .temperature
            .map_or_else(|| "unset".into(), |t| t.to_string()),
        "max_iterations" => settings.max_iterations.to_string(),
        "compress_threshold" => settings.compress_threshold.to_string(),
        "compress_target" => settings.compress_target.to_string(),
        "compress_enabled" => settings.compress_enabled.to_string(),
        _ => return None,
    })
}

/// `/get KEY`.
pub fn get_value(app: &mut App, inv: &Invocation<'_>) -> Handled {
    let key = inv.path.get(1).map(String::as_str).unwrap_or_default();
    let settings = app.settings();
    let value = value_of(&settings, key).ok_or_else(|| failed(format!("no setting `{key}`")))?;
    Ok(Reply::text(format!("{key} = {value}")).with_data(json!({ "key": key, "value": value })))
}

/// `/get`: every setting.
pub fn get_all(app: &mut App, _inv: &Invocation<'_>) -> Handled {
    let settings = app.settings();
    let mut text = String::new();
    for key in NAMES {
        let value = value_of(&settings, key).unwrap_or_default();
        text.push_str(&format!("{key:<20} {value}\n"));
    }
    let scope = if app.live().is_some() {
        "this session"
    } else {
        "the config file"
    };
    text.push_str(&format!("(from {scope})"));
    Ok(Reply::text(text).with_data(serde_json::to_value(&settings).unwrap_or_default()))
}

/// `/get rules [TOOL]`: the stored rules in the order the policy reads
/// them, and the grants approved in this session.
pub fn get_rules(app: &mut App, inv: &Invocation<'_>) -> Handled {
    let tool = match inv.path.get(2) {
        Some(tool) => tool.clone(),
        None => inv.arg.trim().to_string(),
    };
    rules_of(app, &tool)
}

/// The rules of `tool` (every tool when empty).
pub fn rules_of(app: &mut App, tool: &str) -> Handled {
    let rules: Vec<&amber_core::policy::Rule> = app
        .config()
        .policy
        .rules
        .iter()
        .filter(|r| tool.is_empty() || r.tool == tool)
        .collect();
    let mut lines: Vec<String> = rules
        .iter()
        .map(|r| {
            let path = r.path.as_deref().unwrap_or("anywhere");
            format!("{:<24} {:<24} {:?}", r.tool, path, r.decision).to_lowercase()
        })
        .collect();
    if lines.is_empty() {
        lines.push(match tool {
            "" => "no stored rules ([[policy.rules]] in the config; see docs/policy.md)".into(),
            tool => format!("no stored rules for `{tool}`"),
        });
    }
    let grants = app.policy().grants();
    if !grants.is_empty() {
        lines.push(format!("granted this session: {grants:?}"));
    }
    Ok(Reply::text(lines.join("\n")).with_data(json!({ "rules": rules })))
}
