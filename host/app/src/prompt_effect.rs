//! What both front ends do with a prompt a command made (a command file,
//! `Effect::Prompt`) before the turn: ask trust of a workspace file that
//! runs commands, once (then pinned to its text), run each of its
//! commands through the `shell` tool as the model's calls run (the policy
//! classifies and asks, the sandbox holds it), put the output in place,
//! and attach the `@path` files it names. Blocking: the TUI calls it on
//! the blocking pool, inside the turn's task, so its questions reach the
//! dialog the loop draws.

use std::path::Path;
use std::sync::Arc;

use amber_core::commands::PromptEffect;
use amber_core::policy::{Ask, Policy};
use amber_core::ports::Tool;
use amber_runtime::AmberDirs;

use crate::file_commands::{put_outputs, shell_snippets};
use crate::hooks::trust::{TrustStore, Trusted};

/// The prompt to send, and what the model is told ahead of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Realized {
    pub prompt: String,
    /// The `@path` attachments, for `Agent::note_before_next_prompt`.
    pub attached: Option<String>,
    /// For the person: what was cut or refused.
    pub notes: Vec<String>,
    /// The images its `@path` mentions name, ready to send
    /// (`Agent::attach_images`).
    pub images: Vec<amber_core::ports::Image>,
}

/// Output of one command a prompt takes at most, in bytes.
const MAX_OUTPUT: usize = 16 * 1024;

/// Makes `effect` ready to send: trust, commands, attachments. `Err` says
/// why it is not sent (trust refused, a command that could not run).
pub fn realize(
    effect: &PromptEffect,
    policy: &Policy,
    shell: Option<Arc<dyn Tool>>,
    dirs: &AmberDirs,
    workspace: &Path,
) -> Result<Realized, String> {
    if let Some(fingerprint) = &effect.trust {
        ensure_trusted(effect, fingerprint, policy, dirs, workspace)?;
    }
    let mut outputs = Vec::new();
    for snippet in shell_snippets(&effect.text) {
        let Some(tool) = &shell else {
            return Err(format!(
                "{} runs `{}`, but no `shell` tool is enabled (amber plugin list)",
                effect.command, snippet.command
            ));
        };
        let args = serde_json::json!({ "command": snippet.command });
        let output = match tool.call(&args) {
            Ok(out) => out.content,
            Err(e) => format!("(it failed: {e})"),
        };
        outputs.push((snippet, cut_output(&output, MAX_OUTPUT)));
    }
    let text = put_outputs(&effect.text, &outputs);
    // A command file's text, not the person's: inside the workspace only.
    let found = crate::mentions::attachments(workspace, &text, false);
    let mut notes = found.notes;
    let (images, image_notes) = crate::images::attach(&found.images, &*crate::images::prep());
    notes.extend(image_notes);
    Ok(Realized {
        prompt: text,
        attached: found.note,
        notes,
        images,
    })
}

/// A workspace file's commands run only once a person trusted the file
/// as it is now: asked through the policy's approver (the TUI's dialog,
/// the terminal's; headless, denied), and pinned when approved.
fn ensure_trusted(
    effect: &PromptEffect,
    fingerprint: &str,
    policy: &Policy,
    dirs: &AmberDirs,
    workspace: &Path,
) -> Result<(), String> {
    let mut store = TrustStore::load_commands(&dirs.data).map_err(|e| format!("{e:#}"))?;
    if store.is_trusted(fingerprint) {
        return Ok(());
    }
    let ask = Ask {
        requester: effect.source.clone(),
        kind: format!("trust {}", effect.command),
        detail: effect.commands.join("\n"),
        cwd: workspace.to_path_buf(),
        class: "a workspace command file that runs these commands; trusted until it changes"
            .into(),
        paths: Vec::new(),
        also: Vec::new(),
        open_paths: false,
        grants: Some("each command in the sandbox, asked about as the model's are".into()),
        group: None,
    };
    policy.ask_user(&ask).map_err(|e| {
        format!(
            "{} was not run: {e}. It comes with the workspace and runs commands, so it is trusted once, at a prompt a person answers",
            effect.command
        )
    })?;
    store.pin(
        fingerprint.to_string(),
        Trusted {
            workspace: workspace.display().to_string(),
            source: effect.source.clone(),
            event: "command".into(),
            command: effect.command.clone(),
        },
    );
    store.save().map_err(|e| format!("{e:#}"))
}

/// `output` cut to `max` bytes on a character boundary, with a line that
/// says so: what the model is given of a command's output.
pub fn cut_output(output: &str, max: usize) -> String {
    if output.len() <= max {
        return output.to_string();
    }
    let mut end = max;
    while !output.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n[cut: the output was longer]", &output[..end])
}
