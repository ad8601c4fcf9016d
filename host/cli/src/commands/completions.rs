//! Shell completion and man pages.
//!
//! `amber completions bash|zsh|fish` prints a small script that asks the
//! binary at completion time (`amber complete --shell S --index N --
//! WORDS`, hidden), so what completes is what this amber knows now: its
//! clap commands through clap_complete's dynamic engine, and after a
//! leading `/` the slash-command tree with every plugin subtree enabled
//! since the script was installed.
//!
//! `amber man [DIR]` writes the man pages (clap_mangen): `amber.1` and
//! one per subcommand, and `amber-commands.7` for the slash commands.

use std::ffi::OsString;
use std::path::Path;

use amber_app::session::SessionOptions;
use amber_app::App;
use amber_core::commands::{builtin_tree, Node};
use amber_core::project::ProjectRoot;
use anyhow::{Context, Result};
use clap::ValueEnum;

#[derive(Clone, Copy, ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

/// The registration script for `shell`.
pub fn script(shell: Shell) -> &'static str {
    match shell {
        Shell::Bash => {
            r#"# amber completion for bash: eval "$(amber completions bash)"
_amber() {
    local IFS=$'\n'
    COMPREPLY=( $(amber complete --shell bash --index "${COMP_CWORD}" -- "${COMP_WORDS[@]}" 2>/dev/null) )
}
complete -o default -F _amber amber
"#
        }
        Shell::Zsh => {
            r#"#compdef amber
# amber completion for zsh: amber completions zsh > "${fpath[1]}/_amber"
_amber() {
    local -a candidates
    candidates=("${(@f)$(amber complete --shell zsh --index $((CURRENT - 1)) -- "${words[@]}" 2>/dev/null)}")
    _describe 'amber' candidates
}
compdef _amber amber
"#
        }
        Shell::Fish => {
            r#"# amber completion for fish: amber completions fish > ~/.config/fish/completions/amber.fish
complete -c amber -f -a '(amber complete --shell fish --index (count (commandline -opc)) -- (commandline -opc) (commandline -ct))'
"#
        }
    }
}

/// One candidate as `shell` reads it: bash the value alone, zsh
/// `value:help`, fish `value<TAB>help`.
fn format(shell: Shell, value: &str, help: &str) -> String {
    let help = help.lines().next().unwrap_or_default();
    match shell {
        Shell::Bash => value.to_string(),
        Shell::Zsh if help.is_empty() => value.replace(':', "\\:"),
        Shell::Zsh => format!("{}:{help}", value.replace(':', "\\:")),
        Shell::Fish if help.is_empty() => value.to_string(),
        Shell::Fish => format!("{value}\t{help}"),
    }
}

/// Prints the candidates for the word at `index` of `words` (`words[0]`
/// is the program). Never fails loudly: a shell asking mid-typing gets
/// no candidates rather than an error.
pub fn complete(
    host: &amber_app::host::Host,
    shell: Shell,
    index: usize,
    words: Vec<String>,
    cli: clap::Command,
    project: Option<&ProjectRoot>,
) {
    let index = index.min(words.len());
    let mut words = words;
    if words.len() == index {
        words.push(String::new());
    }
    let out = match words.get(1) {
        Some(first) if first.starts_with('/') && index >= 1 => {
            slash_candidates(host, &words[1..=index], project)
        }
        _ => clap_candidates(cli, &words, index),
    };
    for (value, help) in out {
        println!("{}", format(shell, &value, &help));
    }
}

/// Candidates from the live slash tree (plugins loaded, so their
/// subtrees complete too); the first word keeps its slash.
fn slash_candidates(
    host: &amber_app::host::Host,
    words: &[String],
    project: Option<&ProjectRoot>,
) -> Vec<(String, String)> {
    let line = words.join(" ");
    let first = words.len() == 1;
    let candidates = match project.map(|p| App::open(host, p.clone(), SessionOptions::default())) {
        Some(Ok(mut app)) => app.complete(&line),
        // No workspace or no host: the documented tree still completes.
        _ => {
            let set: amber_core::commands::CommandSet<()> =
                amber_core::commands::CommandSet::new(builtin_tree());
            set.complete(&line)
        }
    };
    candidates
        .into_iter()
        .map(|c| {
            let value = if first {
                format!("/{}", c.name)
            } else {
                c.name
            };
            (value, c.help)
        })
        .collect()
}

/// clap_complete's dynamic engine over amber's clap commands.
fn clap_candidates(
    mut cli: clap::Command,
    words: &[String],
    index: usize,
) -> Vec<(String, String)> {
    let args: Vec<OsString> = words.iter().map(OsString::from).collect();
    let cwd = std::env::current_dir().ok();
    let candidates =
        clap_complete::engine::complete(&mut cli, args, index, cwd.as_deref()).unwrap_or_default();
    candidates
        .into_iter()
        .filter(|c| !c.is_hide_set())
        .map(|c| {
            let value = c.get_value().to_string_lossy().into_owned();
            let help = c.get_help().map(|h| h.to_string()).unwrap_or_default();
            (value, help)
        })
        .collect()
}

/// Writes `amber.1`, a page per subcommand and `amber-commands.7` into
/// `dir`; with no dir, prints `amber.1` (`amber man | man -l -`).
pub fn man(cli: clap::Command, dir: Option<&Path>) -> Result<()> {
    let Some(dir) = dir else {
        let mut out = std::io::stdout().lock();
        clap_mangen::Man::new(cli).render(&mut out)?;
        return Ok(());
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut written = Vec::new();
    let mut page = |name: String, cmd: clap::Command| -> Result<()> {
        let mut buffer = Vec::new();
        clap_mangen::Man::new(cmd)
            .title(&name)
            .render(&mut buffer)?;
        let file = dir.join(format!("{name}.1"));
        std::fs::write(&file, buffer)
            .with_context(|| format!("cannot write {}", file.display()))?;
        written.push(file);
        Ok(())
    };
    let cli = cli.name("amber");
    for sub in cli.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("amber-{}", sub.get_name());
        page(
            name.clone(),
            sub.clone().display_name(name.clone()).bin_name(name),
        )?;
    }
    page("amber".into(), cli)?;
    let file = dir.join("amber-commands.7");
    std::fs::write(&file, slash_page(&builtin_tree()))
        .with_context(|| format!("cannot write {}", file.display()))?;
    written.push(file);
    for file in written {
        println!("{}", file.display());
    }
    Ok(())
}

/// The slash commands as a roff page: every documented node, its help and
/// man text, from completions.json.
fn slash_page(tree: &Node) -> String {
    let mut out = String::from(
        ".TH AMBER-COMMANDS 7\n.SH NAME\namber-commands \\- amber's slash commands\n.SH DESCRIPTION\n\
         Typed in a session, or from the shell as \\fBamber /COMMAND\\fR. Plugins add subtrees of \
         their own; \\fB/help\\fR lists what is there now.\n.SH COMMANDS\n",
    );
    // Pre-order, siblings by name: the root itself is not a command.
    for (path, node) in tree.walk().skip(1) {
        out.push_str(&format!(
            ".TP\n\\fB/{}\\fR\n{}\n",
            path.join(" "),
            roff(&node.help)
        ));
        if let Some(man) = &node.man {
            out.push_str(&format!("{}\n", roff(man)));
        }
    }
    out
}

/// Text safe in roff: a backslash doubled, a leading dot or quote escaped.
fn roff(text: &str) -> String {
    text.replace('\\', "\\\\")
        .lines()
        .map(|l| {
            if l.starts_with('.') || l.starts_with('\'') {
                format!("\\&{l}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
