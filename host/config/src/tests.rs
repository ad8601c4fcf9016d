use super::*;
use std::path::PathBuf;

fn parse(text: &str) -> Result<Config, String> {
    Config::parse(text, Path::new("/home/u/.config/amber/config.toml")).map_err(|e| e.to_string())
}

#[test]
fn an_empty_file_is_the_default_config() {
    assert_eq!(parse("").unwrap(), Config::default());
    assert_eq!(Config::default().limits.memory_mib, 256);
    assert_eq!(Config::default().exec.timeout_ms, 120_000);
}

#[test]
fn every_section_parses() {
    let text = r#"
[model]
provider = "anthropic"
model = "claude-sonnet-4"

[providers.local]
flavor = "openai-chat"
base_url = "http://127.0.0.1:8080/v1"
context_window = 32768

[policy]
mode = "read"
rules = [{ tool = "shell", path = "scripts", decision = "allow" }]

[plugins.hello]
enabled = false
grants = ["workspace-read"]
settings = { greeting = "hi" }

[limits]
memory_mib = 128

[exec]
env = ["CARGO_HOME"]
"#;
    let config = parse(text).unwrap();
    assert_eq!(config.model.provider.as_deref(), Some("anthropic"));
    assert_eq!(config.providers["local"].context_window, Some(32768));
    assert_eq!(config.policy.mode, Mode::Read);
    assert_eq!(config.policy.rules[0].decision, RuleDecision::Allow);
    assert_eq!(config.plugins["hello"].settings["greeting"], "hi");
    assert_eq!(config.limits.memory_mib, 128);
    assert_eq!(
        config.limits.deadline_ms, 10_000,
        "unset keys keep their defaults"
    );
    assert_eq!(config.exec.env, ["CARGO_HOME"]);
}

#[test]
fn an_unknown_key_names_the_file_line_and_key() {
    let err = parse("[limits]\nmemory_mib = 64\nmemroy = 1\n").unwrap_err();
    assert!(
        err.starts_with(
            "/home/u/.config/amber/config.toml:3: limits.memroy: unknown field `memroy`"
        ),
        "{err}"
    );
}

#[test]
fn a_wrong_type_names_the_file_line_and_key() {
    let err = parse("[model]\nprovider = \"x\"\n\n[limits]\ndeadline_ms = \"soon\"\n").unwrap_err();
    assert!(
        err.starts_with("/home/u/.config/amber/config.toml:5: limits.deadline_ms: invalid type"),
        "{err}"
    );
}

#[test]
fn an_unknown_permission_or_mode_is_refused() {
    let err = parse("[plugins.x]\ngrants = [\"root\"]\n").unwrap_err();
    assert!(
        err.contains(":2: plugins.x.grants: unknown permission `root`"),
        "{err}"
    );
    let err = parse("[policy]\nmode = \"god\"\n").unwrap_err();
    assert!(
        err.contains(":2: policy.mode: unknown variant `god`"),
        "{err}"
    );
}

#[test]
fn a_missing_file_is_the_default_and_an_unreadable_one_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        Config::load(&dir.path().join("none.toml")).unwrap(),
        Config::default()
    );
    let err = Config::load(dir.path()).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("cannot read {}", dir.path().display())),
        "{err}"
    );
}

#[test]
fn the_effective_config_round_trips_through_toml() {
    let config = parse("[exec]\nenv = [\"A\"]\n").unwrap();
    let again = parse(&config.to_toml()).unwrap();
    assert_eq!(config, again);
    let _ = PathBuf::new();
}

#[test]
fn the_memory_section_has_defaults_and_a_checked_budget() {
    let config = parse("").unwrap();
    assert!(config.memory.recall_block);
    assert_eq!(config.memory.recall_budget, 512);
    let off = parse("[memory]\nrecall_block = false\nrecall_budget = 1024\n").unwrap();
    assert!(!off.memory.recall_block);
    assert_eq!(off.memory.recall_budget, 1024);
    assert_eq!(off.memory.embedding_model, None);
    let model = parse("[memory]\nembedding_model = \"/opt/minilm\"\n").unwrap();
    assert_eq!(
        model.memory.embedding_model.as_deref(),
        Some(std::path::Path::new("/opt/minilm"))
    );
    assert_eq!(config.memory.promote_threshold, 3);
    let err = parse("[memory]\npromote_threshold = 0\n").unwrap_err();
    assert!(err.contains("memory.promote_threshold"), "{err}");
    let err = parse("[memory]\nrecall_budget = 10\n").unwrap_err();
    assert!(err.contains("memory.recall_budget"), "{err}");
    assert!(err.contains("must be between 64 and 8192"), "{err}");
}

#[test]
fn compression_has_a_target_and_a_switch() {
    let config = parse("").unwrap();
    assert_eq!(config.agent.compress_threshold, 0.8);
    assert_eq!(config.agent.compress_target, 0.5);
    assert!(config.agent.compress_enabled);
    let set = parse("[agent]\ncompress_target = 0.3\ncompress_enabled = false\n").unwrap();
    assert_eq!(set.agent.compress_target, 0.3);
    assert!(!set.agent.compress_enabled);
    let err = parse("[agent]\ncompress_target = 0\n").unwrap_err();
    assert!(err.contains("agent.compress_target"), "{err}");
    assert!(err.contains("must be above 0 and at most 1"), "{err}");
}

#[test]
fn the_wire_section_has_defaults_and_checked_values() {
    let config = parse("").unwrap();
    assert_eq!(config.wire.max_attempts, 4);
    assert_eq!(config.wire.first_byte_timeout_ms, 120_000);
    let slow = parse("[wire]\nfirst_byte_timeout_ms = 600000\nmax_attempts = 1\n").unwrap();
    assert_eq!(
        (
            slow.wire.first_byte_timeout_ms,
            slow.wire.max_attempts,
            slow.wire.read_timeout_ms
        ),
        (600_000, 1, 120_000)
    );
    let err = parse("[wire]\nmax_attempts = 0\n").unwrap_err();
    assert!(
        err.contains("wire.max_attempts") && err.contains("between 1 and 10"),
        "{err}"
    );
    let err = parse("[wire]\nmax_retry_delay_ms = 0\n").unwrap_err();
    assert!(err.contains("wire.max_retry_delay_ms"), "{err}");
    let err = parse("[wire]\nread_timeout_ms = 0\n").unwrap_err();
    assert!(err.contains("wire.read_timeout_ms"), "{err}");
    let err = parse("[wire]\ntimeout = 5\n").unwrap_err();
    assert!(err.contains("timeout"), "{err}");
}

#[test]
fn a_provider_value_that_could_never_work_names_its_key() {
    for (line, key, why) in [
        ("key_env = \"\"", "providers.mine.key_env", "empty"),
        ("flavor = \" \"", "providers.mine.flavor", "empty"),
        (
            "context_window = 0",
            "providers.mine.context_window",
            "0 tokens",
        ),
    ] {
        let text = format!("[agent]\n\n[providers.mine]\nmodel = \"m\"\n{line}\n");
        let err = parse(&text).unwrap_err();
        assert!(
            err.starts_with(&format!(
                "/home/u/.config/amber/config.toml:3: {key}: {why}"
            )),
            "{err}"
        );
    }
}
