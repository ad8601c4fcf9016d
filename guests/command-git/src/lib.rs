//! `/git`: read-only git for the person at the keyboard. `status`, `diff`,
//! `log` and `blame` each run one fixed git command through the host's
//! `exec` import, in the workspace root, where the host classifies and
//! approves it like any other command. Arguments are revisions and paths,
//! each shell-quoted; options are refused, so nothing typed after `/git`
//! can make git write (`--output`) or run a program (`--ext-diff`).
//! Seed: "Command binding".
use amber_sdk::prelude::*;

const ROOT: &str = "git";

#[derive(Default)]
struct Git;

impl Plugin for Git {
    fn manifest() -> Manifest {
        amber_sdk::manifest!(id: "git").permission(
            Permission::Exec,
            "to run read-only git commands (status, diff, log, blame) in the workspace when you type /git",
        )
    }
}

/// The subtree: every node documented, `about` documented only.
fn tree() -> CommandSpec {
    CommandSpec::new(ROOT, "Read-only git: status, diff, log, blame")
        .man(
            "/git SUBCOMMAND [ARGS]\n\n\
             Runs read-only git commands in the workspace root and shows what they print.\n\n\
             /git status              the branch and the changed files\n\
             /git diff [REV] [PATH]…  a summary of the unstaged changes, then the diff\n\
             /git log [REV] [PATH]…   the last 20 commits, one line each\n\
             /git blame FILE          who last changed each line of FILE\n\
             /git about               what these commands do and do not do",
        )
        .child(
            CommandSpec::new("status", "The branch and the changed files")
                .man(
                    "/git status [PATH]…\n\n\
                     Runs `git status --short --branch`: the first line names the branch and how far it is \
                     from its upstream, then one line per changed or untracked file (XY PATH, where X is \
                     the index and Y the working tree). Paths limit the listing.",
                )
                .with_handler(),
        )
        .child(
            CommandSpec::new("diff", "The unstaged changes: a summary, then the diff")
                .man(
                    "/git diff [--cached] [REV]… [PATH]…\n\n\
                     Runs `git diff --patch-with-stat` (a summary, then the diff) with the revisions and paths you give. \
                     Without any, it shows what you changed and have not staged; --cached (or --staged) \
                     shows what is staged instead.",
                )
                .with_handler(),
        )
        .child(
            CommandSpec::new("log", "The last 20 commits, one line each")
                .man(
                    "/git log [REV] [PATH]…\n\n\
                     Runs `git log --oneline -n 20`: the abbreviated hash and the subject of each commit, \
                     newest first. A revision (a branch, a tag, A..B) or paths narrow it.",
                )
                .with_handler(),
        )
        .child(
            CommandSpec::new("blame", "Who last changed each line of a file")
                .man(
                    "/git blame FILE\n\n\
                     Runs `git blame -- FILE`: for each line of FILE, the commit, the author and the date \
                     of its last change. Everything after `blame` is the one path, spaces included.",
                )
                .with_handler(),
        )
        .child(CommandSpec::new("about", "What amber's git commands do").man(
            "amber's /git commands are read-only. Each runs one fixed git command (status, diff, log \
             or blame) in the workspace root through the exec permission, so your policy sees and \
             approves it as it would any other command. They never stage, commit, check out, fetch or \
             push, and they accept revisions and paths but no options. Ask the agent, or use a shell, \
             for anything that changes the repository.",
        ))
}

/// Options a subcommand takes, beyond revisions and paths.
fn allowed_options(sub: &str) -> &'static [&'static str] {
    match sub {
        "diff" => &["--cached", "--staged"],
        _ => &[],
    }
}

/// The words of `arg`, refusing options other than `allowed`.
fn words<'a>(sub: &str, arg: &'a str) -> Result<Vec<&'a str>, String> {
    let allowed = allowed_options(sub);
    let words: Vec<&str> = arg.split_whitespace().collect();
    match words
        .iter()
        .find(|w| w.starts_with('-') && !allowed.contains(w))
    {
        Some(option) => Err(format!(
            "`{option}` is not accepted: /git {sub} takes revisions and paths{} (see /git about)",
            match allowed {
                [] => String::new(),
                some => format!(" and {}", some.join(", ")),
            }
        )),
        None => Ok(words),
    }
}

/// `word` quoted for `sh -c`: single quotes, each inner one closed,
/// escaped and reopened.
fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// Runs `git FIXED EXTRA…` in the workspace root; the trimmed stdout, or
/// git's own complaint.
fn git(fixed: &str, extra: &[&str]) -> Result<String, String> {
    let mut command = format!("git {fixed}");
    for word in extra {
        command.push(' ');
        command.push_str(&quote(word));
    }
    let out = amber_sdk::exec::run(&command, None, None)?;
    if out.timed_out {
        return Err(format!("`{command}` timed out and was stopped"));
    }
    if out.exit_code != Some(0) {
        let said = out.stderr.trim();
        return Err(match (said.is_empty(), out.exit_code) {
            (false, _) => said.to_string(),
            (true, Some(code)) => format!("`{command}` exited with code {code}"),
            (true, None) => format!("`{command}` was killed"),
        });
    }
    let mut text = out.stdout.trim_end().to_string();
    if out.truncated {
        text.push_str("\n[the host cut the middle of a very long output]");
    }
    Ok(text)
}

fn status(arg: &str) -> Result<String, String> {
    let paths = words("status", arg)?;
    let mut extra = vec!["--"];
    extra.extend(paths);
    let out = git("status --short --branch", &extra)?;
    // The first line is the branch (`## main...origin/main`); files follow.
    if out.lines().skip(1).all(|l| l.trim().is_empty()) {
        Ok(format!("{out}\nclean: nothing to commit")
            .trim()
            .to_string())
    } else {
        Ok(out)
    }
}

fn diff(arg: &str) -> Result<String, String> {
    let extra = words("diff", arg)?;
    // One run of git: the summary, a blank line, then the patch.
    let out = git("diff --patch-with-stat", &extra)?;
    if out.is_empty() {
        return Ok("no changes".into());
    }
    Ok(out)
}

fn log(arg: &str) -> Result<String, String> {
    let extra = words("log", arg)?;
    let out = git("log --oneline -n 20", &extra)?;
    Ok(if out.is_empty() {
        "no commits".into()
    } else {
        out
    })
}

fn blame(arg: &str) -> Result<String, String> {
    if arg.is_empty() {
        return Err("usage: /git blame FILE".into());
    }
    git("blame --", &[arg])
}

impl CommandPlugin for Git {
    fn roots(&self) -> Vec<CommandRoot> {
        vec![tree().root()]
    }

    fn spec(&mut self, root: &str) -> Vec<CommandNode> {
        if root == ROOT {
            tree().nodes()
        } else {
            Vec::new()
        }
    }

    fn run(&mut self, path: Vec<String>, arg: &str) -> Result<String, String> {
        let arg = arg.trim();
        let sub = match path.as_slice() {
            [root, sub] if root == ROOT => sub.as_str(),
            _ => "",
        };
        match sub {
            "status" => status(arg),
            "diff" => diff(arg),
            "log" => log(arg),
            "blame" => blame(arg),
            _ => Err(format!(
                "`/{}` does not run; try /git status, diff, log or blame",
                path.join(" ")
            )),
        }
    }
}

amber_sdk::export!(Git: command);
