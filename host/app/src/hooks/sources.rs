//! Where command hooks come from: `[[hooks.command]]` in the user's config,
//! and with `hooks.claude_settings`, the `hooks` of Claude Code's settings
//! files: the user's `~/.claude/settings.json` and the workspace's
//! `.claude/settings.json`. Only the workspace's need trust (trust.rs):
//! a repository can plant them; the others are the user's own.

use std::path::{Path, PathBuf};
use std::time::Duration;

use amber_config::Config;
use amber_core::hooks::{HookEvent, Matcher, OnError};
use serde_json::Value;

/// Claude Code's default deadline of a command hook.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The longest a command hook may run, whatever a settings file says.
pub const MAX_TIMEOUT: Duration = Duration::from_secs(600);

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `[[hooks.command]]` of the user's config.
    Config,
    /// A Claude Code settings file outside the workspace.
    UserSettings(PathBuf),
    /// A Claude Code settings file inside the workspace.
    WorkspaceSettings(PathBuf),
}

impl Source {
    pub fn describe(&self) -> String {
        match self {
            Source::Config => "config".into(),
            Source::UserSettings(path) | Source::WorkspaceSettings(path) => {
                path.display().to_string()
            }
        }
    }
}

/// One command hook, as found.
#[derive(Debug, Clone)]
pub struct HookDef {
    /// `config#1`, `.claude/settings.json#2`: how reasons and lists name it.
    pub id: String,
    pub source: Source,
    pub event: HookEvent,
    pub matcher: Matcher,
    pub command: String,
    pub timeout: Duration,
    pub on_error: Option<OnError>,
    pub priority: i32,
}

impl HookDef {
    /// Planted by the workspace, so it runs only once trusted.
    pub fn in_workspace(&self) -> bool {
        matches!(self.source, Source::WorkspaceSettings(_))
    }

    /// What trust pins: the workspace, the file, the event, the matcher,
    /// the command, and the content of every workspace file the command
    /// names (`./check.sh`, `$CLAUDE_PROJECT_DIR/hooks/x.py`): a script
    /// changed after trust was given is another hook, asked about again.
    pub fn fingerprint(&self, workspace: &Path) -> String {
        let mut hasher = blake3::Hasher::new();
        let text = format!(
            "{}\0{}\0{}\0{}\0{}",
            workspace.display(),
            self.source.describe(),
            self.event,
            self.matcher.as_str().unwrap_or("*"),
            self.command
        );
        hasher.update(text.as_bytes());
        for file in named_files(&self.command, workspace) {
            hasher.update(b"\0");
            hasher.update(file.display().to_string().as_bytes());
            hasher.update(b"\0");
            // An unreadable file hashes as its error: still pinned. A FIFO
            // or a device is not read (it would block or never end).
            match amber_core::bounded::read(&file, SCRIPT_MAX) {
                Ok(Some(bytes)) => hasher.update(&bytes),
                Ok(None) => hasher.update(b"(missing)"),
                Err(e) => hasher.update(e.to_string().as_bytes()),
            };
        }
        hasher.finalize().to_hex()[..16].to_string()
    }
}

/// The most of a script a hook names that its fingerprint reads.
const SCRIPT_MAX: u64 = 16 << 20;

/// The workspace files a command runs or reads as code: each word
/// (quotes stripped, the project variables replaced by the workspace)
/// that is a file inside it, except the files it writes, which are its
/// data: a redirection's target (`> out.log`, `>>log`, `2> err`, `< in`)
/// and what `tee` writes. A hook that logs to a file of the workspace
/// would otherwise change its own fingerprint each time it ran, and be
/// asked about again.
fn named_files(command: &str, workspace: &Path) -> Vec<PathBuf> {
    let root = workspace.display().to_string();
    let mut code = Vec::new();
    // Each command of a line on its own: `tee` covers its own words only.
    // `2>&1` and `&>` keep their `&`; any other `&` (`&&`, a lone `&`,
    // `a&&b`) ends a command, as `;`, `|` and `||` do.
    let separated = command.replace(">&", ">\u{0}").replace("&>", "\u{0}>");
    for segment in separated.split([';', '|', '(', ')', '\n', '&']) {
        let segment = segment.replace('\u{0}', "&");
        let words: Vec<String> = segment
            .split(|c: char| c.is_whitespace())
            .map(|word| {
                word.replace(['"', '\''], "")
                    .replace("${CLAUDE_PROJECT_DIR}", &root)
                    .replace("$CLAUDE_PROJECT_DIR", &root)
                    .replace("${AMBER_PROJECT_DIR}", &root)
                    .replace("$AMBER_PROJECT_DIR", &root)
            })
            .filter(|word| !word.is_empty())
            .collect();
        code.extend(code_words(&words));
    }
    let mut files: Vec<PathBuf> = code
        .into_iter()
        .map(|word| workspace.join(word))
        // `starts_with` is lexical: `ws/../x` would pass it.
        .filter(|path| {
            !path
                .components()
                .any(|c| c == std::path::Component::ParentDir)
        })
        .filter(|path| path.starts_with(workspace) && path.is_file())
        .collect();
    files.sort();
    files.dedup();
    files
}

/// The words of one command that may be code: not a redirection's
/// target, not a file `tee` writes.
fn code_words(words: &[String]) -> Vec<String> {
    let mut code = Vec::new();
    let mut data_next = false;
    let mut after_tee = false;
    for word in words {
        // Only what is written is data: a file read on stdin
        // (`bash < run.sh`) may be code.
        let redirect = word.trim_start_matches(|c: char| c.is_ascii_digit());
        let is_operator = redirect.starts_with('>');
        if is_operator {
            let target = redirect.trim_start_matches(['>', '&']);
            // `>out` names its target in the same word; `>` the next.
            data_next = target.is_empty();
            continue;
        }
        if std::mem::take(&mut data_next) {
            continue;
        }
        if word == "tee" {
            after_tee = true;
            continue;
        }
        if after_tee && !word.starts_with('-') {
            continue;
        }
        code.push(word.clone());
    }
    code
}

/// Every command hook of `config` and, when it asks, of Claude Code's
/// settings; with warnings for what could not be read (a hook that
/// cannot be read is left out, never guessed at).
pub fn gather(
    config: &Config,
    workspace: &Path,
    home: Option<&Path>,
) -> (Vec<HookDef>, Vec<String>) {
    let mut defs = Vec::new();
    let mut warnings = Vec::new();
    for (i, hook) in config.hooks.command.iter().enumerate() {
        // The config was validated as it was read.
        let (Some(event), Ok(matcher)) = (
            HookEvent::parse(&hook.event),
            Matcher::parse(hook.matcher.as_deref()),
        ) else {
            continue;
        };
        defs.push(HookDef {
            id: format!("config#{}", i + 1),
            source: Source::Config,
            event,
            matcher,
            command: hook.command.clone(),
            timeout: hook
                .timeout_ms
                .map(Duration::from_millis)
                .unwrap_or(DEFAULT_TIMEOUT),
            on_error: hook.on_error,
            priority: hook.priority,
        });
    }
    if config.hooks.claude_settings {
        let mut files = Vec::new();
        if let Some(home) = home {
            let user = home.join(".claude/settings.json");
            if !user.starts_with(workspace) {
                files.push(Source::UserSettings(user));
            }
        }
        files.push(Source::WorkspaceSettings(
            workspace.join(".claude/settings.json"),
        ));
        for source in files {
            let (found, problem) = settings_file(&source, workspace);
            defs.extend(found);
            warnings.extend(problem);
        }
    }
    (defs, warnings)
}

/// The hooks of one Claude Code settings file (none when it is absent),
/// and what was left out of it and why. The readable hooks still run.
fn settings_file(source: &Source, workspace: &Path) -> (Vec<HookDef>, Option<String>) {
    match read_settings(source, workspace) {
        Ok((defs, problems)) if problems.is_empty() => (defs, None),
        Ok((defs, problems)) => {
            let warning = format!(
                "some hooks of {} are left out: {}",
                source.describe(),
                problems.join("; ")
            );
            (defs, Some(warning))
        }
        Err(e) => (Vec::new(), Some(e)),
    }
}

/// What a JSON value is, for a warning about a wrong shape.
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn read_settings(source: &Source, workspace: &Path) -> Result<(Vec<HookDef>, Vec<String>), String> {
    let (Source::UserSettings(path) | Source::WorkspaceSettings(path)) = source else {
        return Ok((Vec::new(), Vec::new()));
    };
    // A repository's settings file may be a FIFO or a link to /dev/zero.
    let text = match amber_core::bounded::read_text(path, amber_core::bounded::SETTINGS_MAX) {
        Ok(Some(text)) => text,
        Ok(None) => return Ok((Vec::new(), Vec::new())),
        Err(e) => return Err(format!("{e}; its hooks are left out")),
    };
    let json: Value = serde_json::from_str(&text).map_err(|e| {
        format!(
            "the hooks of {} are not read: it is not JSON ({e})",
            path.display()
        )
    })?;
    let label = path
        .strip_prefix(workspace)
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| path.display().to_string());
    let events = match json.get("hooks") {
        None => return Ok((Vec::new(), Vec::new())),
        Some(Value::Object(events)) => events,
        Some(other) => {
            let why = format!(
                "`hooks` is {}, not an object of events (\"PreToolUse\": [...])",
                json_kind(other)
            );
            return Ok((Vec::new(), vec![why]));
        }
    };
    let mut defs = Vec::new();
    let mut problems = Vec::new();
    for (name, groups) in events {
        let Some(event) = HookEvent::parse(name) else {
            problems.push(format!(
                "unknown event `{}`",
                amber_core::printable::printable(name)
            ));
            continue;
        };
        let Some(groups) = groups.as_array() else {
            problems.push(format!(
                "`hooks.{name}` is {}, not a list of matcher groups",
                json_kind(groups)
            ));
            continue;
        };
        for (i, group) in groups.iter().enumerate() {
            if !group.is_object() {
                problems.push(format!(
                    "`hooks.{name}[{i}]` is {}, not a matcher group ({{\"matcher\": ..., \"hooks\": [...]}})",
                    json_kind(group)
                ));
                continue;
            }
            if let Some(inner) = group.get("hooks").filter(|h| !h.is_array()) {
                problems.push(format!(
                    "`hooks.{name}[{i}].hooks` is {}, not a list of hooks",
                    json_kind(inner)
                ));
                continue;
            }
            let matcher = match Matcher::parse(group.get("matcher").and_then(Value::as_str)) {
                Ok(matcher) => matcher,
                Err(e) => {
                    problems.push(e.to_string());
                    continue;
                }
            };
            for hook in group
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let kind = hook
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or("command");
                let Some(command) = hook.get("command").and_then(Value::as_str) else {
                    problems.push(format!("a `{kind}` hook of {name} has no command"));
                    continue;
                };
                if kind != "command" {
                    problems.push(format!("a `{kind}` hook of {name}: only command hooks run"));
                    continue;
                }
                // Claude Code gives the timeout in seconds.
                let timeout = hook
                    .get("timeout")
                    .and_then(Value::as_f64)
                    .filter(|s| *s > 0.0)
                    .map(|s| {
                        Duration::try_from_secs_f64(s)
                            .unwrap_or(MAX_TIMEOUT)
                            .min(MAX_TIMEOUT)
                    })
                    .unwrap_or(DEFAULT_TIMEOUT);
                defs.push(HookDef {
                    id: format!("{label}#{}", defs.len() + 1),
                    source: source.clone(),
                    event,
                    matcher: matcher.clone(),
                    command: command.to_string(),
                    timeout,
                    on_error: None,
                    priority: 0,
                });
            }
        }
    }
    Ok((defs, problems))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hook_fingerprints_the_scripts_it_runs_not_the_files_it_writes() {
        let ws = tempfile::tempdir().unwrap();
        let ws = ws.path();
        for file in ["check.sh", "out.log", "err.log", "tee.log", "in.txt", "after.sh"] {
            std::fs::write(ws.join(file), "x").unwrap();
        }
        let named = |command: &str| -> Vec<String> {
            named_files(command, ws)
                .iter()
                .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
                .collect()
        };
        assert_eq!(named("./check.sh > out.log 2>err.log"), ["check.sh"]);
        assert_eq!(named("echo hi | tee -a tee.log; ./after.sh"), ["after.sh"]);
        assert_eq!(named("sh check.sh >> out.log 2>&1"), ["check.sh"]);
        // What is read on stdin may be code; `&&` and `&` end a command.
        assert_eq!(named("bash < in.txt"), ["in.txt"]);
        assert_eq!(named("echo x | tee tee.log && ./after.sh"), ["after.sh"]);
        assert_eq!(named("./check.sh&&./after.sh"), ["after.sh", "check.sh"]);
    }

    #[test]
    fn claude_settings_hooks_are_read_with_their_matchers_and_seconds() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
        std::fs::write(
            dir.path().join(".claude/settings.json"),
            r#"{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./check.sh","timeout":5}]}]}}"#,
        )
        .unwrap();
        let mut config = Config::default();
        config.hooks.claude_settings = true;
        let (defs, warnings) = gather(&config, dir.path(), None);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(defs.len(), 1);
        let def = &defs[0];
        assert_eq!(def.event, HookEvent::PreTool);
        assert!(def.matcher.matches("shell"));
        assert_eq!(def.timeout, Duration::from_secs(5));
        assert!(def.in_workspace());
        assert_eq!(def.id, ".claude/settings.json#1");
    }

    #[test]
    fn a_script_the_command_runs_is_pinned_by_its_content() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("check.sh"), "exit 0").unwrap();
        let def = HookDef {
            id: "x#1".into(),
            source: Source::WorkspaceSettings(dir.path().join(".claude/settings.json")),
            event: HookEvent::PreTool,
            matcher: Matcher::any(),
            command: "\"$CLAUDE_PROJECT_DIR\"/check.sh --strict".into(),
            timeout: DEFAULT_TIMEOUT,
            on_error: None,
            priority: 0,
        };
        let before = def.fingerprint(dir.path());
        std::fs::write(dir.path().join("check.sh"), "exit 2").unwrap();
        assert_ne!(before, def.fingerprint(dir.path()));
    }

    #[test]
    fn an_absurd_timeout_is_capped_not_a_crash() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
        std::fs::write(
            dir.path().join(".claude/settings.json"),
            r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"true","timeout":1e300}]}]}}"#,
        )
        .unwrap();
        let mut config = Config::default();
        config.hooks.claude_settings = true;
        let (defs, _) = gather(&config, dir.path(), None);
        assert_eq!(defs[0].timeout, MAX_TIMEOUT);
    }

    #[test]
    fn a_changed_command_has_another_fingerprint() {
        let def = HookDef {
            id: "config#1".into(),
            source: Source::Config,
            event: HookEvent::Stop,
            matcher: Matcher::any(),
            command: "true".into(),
            timeout: DEFAULT_TIMEOUT,
            on_error: None,
            priority: 0,
        };
        let w = Path::new("/w");
        let changed = HookDef {
            command: "false".into(),
            ..def.clone()
        };
        assert_ne!(def.fingerprint(w), changed.fingerprint(w));
        assert_eq!(def.fingerprint(w), def.clone().fingerprint(w));
    }
}
