//! Why the policy refused an action. Callers tell the kinds apart (the
//! engine denies a call, the `exec` import refuses a command, a front end
//! may offer `--yes`); the model and the user read the `Display`, whose
//! words are pinned by a test, since a model learns from them what to do
//! instead.

/// A refusal of the policy, or of a check made on its behalf.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    /// A stored `deny` rule matched.
    #[error("denied by the stored rule for `{tool}`{} in config", in_path(path))]
    DeniedByRule { tool: String, path: Option<String> },
    /// A permission-request hook denied it; `reason` names the hook.
    #[error("denied by {reason}")]
    DeniedByHook { reason: String },
    /// The person was asked and said no.
    #[error("not approved: `{kind}` ({class}) needs approval and was not given it; the user can rerun with --yes, or --mode yolo")]
    NotApproved { kind: String, class: String },
    /// A person at a dialog said no; `reason` is what they typed.
    #[error("the user declined this (`{kind}`){}", because(reason))]
    Declined {
        kind: String,
        reason: Option<String>,
    },
    /// Read mode, and the command is not read-only.
    #[error("read mode: `{command}` is not read-only ({label}: {reason})")]
    ReadMode {
        command: String,
        label: String,
        reason: String,
    },
    /// A skill's or a custom agent's command list does not name it.
    #[error("`{command}` is not among the commands `{by}` allows ({allowed}); a line that chains, pipes or redirects is refused under such a list")]
    NarrowedCommand {
        command: String,
        by: String,
        allowed: String,
    },
    /// It needs a person's approval and nobody can be asked.
    #[error("denied: `{kind}` needs approval and no approval handler is installed (fail-safe)")]
    NoApprover { kind: String },
    /// `[sandbox] always` is set and the machine has no sandbox backend.
    #[error("`[sandbox] always` is set, but this machine has no OS sandbox (see `amber doctor`)")]
    NoSandbox,
    /// The arguments do not fit the tool's schema.
    #[error("the arguments do not match the schema of `{tool}`: {}", problems.join("; "))]
    BadArguments { tool: String, problems: Vec<String> },
}

fn because(reason: &Option<String>) -> String {
    match reason.as_deref().map(str::trim) {
        Some(reason) if !reason.is_empty() => format!(": {reason}"),
        _ => String::new(),
    }
}

fn in_path(path: &Option<String>) -> String {
    path.as_ref()
        .map(|p| format!(" in `{p}`"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the model reads: these words are part of the contract.
    #[test]
    fn the_words_the_model_sees_stay_as_they_were() {
        let cases = [
            (
                PolicyError::DeniedByRule { tool: "shell".into(), path: Some("scripts".into()) },
                "denied by the stored rule for `shell` in `scripts` in config",
            ),
            (
                PolicyError::DeniedByRule { tool: "write_file".into(), path: None },
                "denied by the stored rule for `write_file` in config",
            ),
            (
                PolicyError::DeniedByHook { reason: "hook `guard`: no".into() },
                "denied by hook `guard`: no",
            ),
            (
                PolicyError::NotApproved { kind: "exec:rm:deletes".into(), class: "deletes: rm".into() },
                "not approved: `exec:rm:deletes` (deletes: rm) needs approval and was not given it; the user can rerun with --yes, or --mode yolo",
            ),
            (
                PolicyError::Declined { kind: "write_file".into(), reason: Some(" use a patch ".into()) },
                "the user declined this (`write_file`): use a patch",
            ),
            (
                PolicyError::Declined { kind: "write_file".into(), reason: None },
                "the user declined this (`write_file`)",
            ),
            (
                PolicyError::ReadMode { command: "rm x".into(), label: "deletes".into(), reason: "rm".into() },
                "read mode: `rm x` is not read-only (deletes: rm)",
            ),
            (
                PolicyError::NoApprover { kind: "write_file".into() },
                "denied: `write_file` needs approval and no approval handler is installed (fail-safe)",
            ),
            (
                PolicyError::NoSandbox,
                "`[sandbox] always` is set, but this machine has no OS sandbox (see `amber doctor`)",
            ),
            (
                PolicyError::BadArguments { tool: "grep".into(), problems: vec!["a".into(), "b".into()] },
                "the arguments do not match the schema of `grep`: a; b",
            ),
        ];
        for (error, words) in cases {
            assert_eq!(error.to_string(), words);
        }
    }
}
