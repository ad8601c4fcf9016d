//! Slash commands written as Markdown files, as Claude Code and Codex
//! users keep them: the file's name is the command (`frontend/test.md` is
//! `/frontend:test`), its front matter says what it is (`description`,
//! `argument-hint`, `model`, `allowed-tools`), and its body is the prompt,
//! with `$ARGUMENTS` and `$1`…`$9` put in, `@path` files attached, and
//! `!` command lines run in the sandbox with their output put in their
//! place. They join the command tree as a feed (`feeds.rs`), so the drawer,
//! completion, `/help` and the man pages show them with their source.
//!
//! Where they are read from, later shadowing earlier by name: amber's own
//! (`/init`, `/review`, in `bundled_commands/`), the user's
//! `~/.codex/prompts/`, `~/.claude/commands/` and amber's own
//! `<config>/commands/`, then the workspace's `.claude/commands/` and
//! `.amber/commands/`. A workspace file that runs commands is a
//! repository's code: it runs only once the person trusted it (its
//! fingerprint covers its text, so a change asks again), as workspace
//! hooks do; a file that only expands text needs no trust.

use std::path::{Path, PathBuf};

use amber_core::commands::PromptEffect;

use crate::frontmatter;

/// Where a command file was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Shipped with amber (`/init`, `/review`): any file of the same name
    /// replaces it.
    Bundled,
    /// `~/.codex/prompts/`.
    Codex,
    /// `~/.claude/commands/`.
    ClaudeUser,
    /// `<config>/commands/`.
    User,
    /// The workspace's `.claude/commands/`.
    ClaudeWorkspace,
    /// The workspace's `.amber/commands/`.
    Workspace,
}

impl Origin {
    pub fn describe(self) -> &'static str {
        match self {
            Origin::Bundled => "amber's own",
            Origin::Codex => "user, Codex prompts",
            Origin::ClaudeUser => "user, Claude Code",
            Origin::User => "user",
            Origin::ClaudeWorkspace => "workspace, Claude Code",
            Origin::Workspace => "workspace",
        }
    }

    /// A workspace's files come with a repository: one that runs commands
    /// must be trusted first.
    pub fn is_workspace(self) -> bool {
        matches!(self, Origin::ClaudeWorkspace | Origin::Workspace)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileCommand {
    /// `fix`, or `frontend:test` for `frontend/test.md`.
    pub name: String,
    pub path: PathBuf,
    pub origin: Origin,
    pub description: String,
    pub argument_hint: Option<String>,
    /// The model the file asks for (shown; the turn runs on the session's).
    pub model: Option<String>,
    pub allowed_tools: Vec<String>,
    pub body: String,
}

/// A file that is not a command, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub path: PathBuf,
    pub reason: String,
}

/// The folders read, in order: later ones shadow earlier ones by name.
pub fn folders(config: &Path, workspace: &Path, home: Option<&Path>) -> Vec<(PathBuf, Origin)> {
    let mut folders = Vec::new();
    if let Some(home) = home {
        folders.push((home.join(".codex/prompts"), Origin::Codex));
        folders.push((home.join(".claude/commands"), Origin::ClaudeUser));
    }
    folders.push((config.join("commands"), Origin::User));
    folders.push((workspace.join(".claude/commands"), Origin::ClaudeWorkspace));
    folders.push((workspace.join(".amber/commands"), Origin::Workspace));
    folders
}

/// Files a folder holds at most: a runaway folder is not read whole.
const MAX_FILES: usize = 500;
/// Bytes a command file holds at most.
const MAX_FILE: u64 = 256 * 1024;

/// The command files amber ships, each replaced by a file of the same
/// name in any folder (`review.md` of your own is your `/review`).
const BUNDLED: &[(&str, &str)] = &[
    ("init", include_str!("bundled_commands/init.md")),
    ("review", include_str!("bundled_commands/review.md")),
];

/// Every command found in `folders` after the bundled ones, the later
/// shadowing the earlier, and the files skipped with their reason.
pub fn discover(folders: &[(PathBuf, Origin)]) -> (Vec<FileCommand>, Vec<Skipped>) {
    let mut found: std::collections::BTreeMap<String, FileCommand> = Default::default();
    let mut skipped = Vec::new();
    for (name, text) in BUNDLED {
        let path = PathBuf::from(format!("(amber)/{name}.md"));
        match parse(&path, name.to_string(), text, Origin::Bundled) {
            Ok(command) => {
                found.insert(command.name.clone(), command);
            }
            Err(reason) => skipped.push(Skipped { path, reason }),
        }
    }
    for (folder, origin) in folders {
        let mut files = Vec::new();
        markdown_files(folder, folder, &mut files, 0);
        for (path, name) in files.into_iter().take(MAX_FILES) {
            match read(&path, name, *origin) {
                Ok(command) => {
                    found.insert(command.name.clone(), command);
                }
                Err(reason) => skipped.push(Skipped { path, reason }),
            }
        }
    }
    (found.into_values().collect(), skipped)
}

/// The `.md` files below `folder` (three levels at most), with their
/// command names.
fn markdown_files(root: &Path, folder: &Path, out: &mut Vec<(PathBuf, String)>, depth: usize) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() && depth < 3 {
            markdown_files(root, &path, out, depth + 1);
        } else if path.extension().is_some_and(|e| e == "md") && path.is_file() {
            let Ok(relative) = path.with_extension("").strip_prefix(root).map(Path::to_path_buf)
            else {
                continue;
            };
            let name = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(":");
            out.push((path, name));
        }
    }
}

fn read(path: &Path, name: String, origin: Origin) -> Result<FileCommand, String> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ':' | '.'))
    {
        return Err(format!(
            "`{name}` is not a command name (letters, digits, - _ . and folders)"
        ));
    }
    let size = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
    if size > MAX_FILE {
        return Err(format!("{size} bytes; a command file holds at most {MAX_FILE}"));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read it: {e}"))?;
    parse(path, name, &text, origin)
}

fn parse(path: &Path, name: String, text: &str, origin: Origin) -> Result<FileCommand, String> {
    let doc = frontmatter::parse(text).map_err(|e| e.to_string())?;
    let description = doc
        .text("description")
        .filter(|d| !d.trim().is_empty())
        .unwrap_or_else(|| first_line(&doc.body));
    let argument_hint = match doc.fields.get("argument-hint") {
        Some(frontmatter::Value::List(items)) => {
            Some(items.iter().map(|i| format!("[{i}]")).collect::<Vec<_>>().join(" "))
        }
        Some(frontmatter::Value::Text(text)) => Some(text.clone()),
        None => None,
    };
    Ok(FileCommand {
        name,
        path: path.to_path_buf(),
        origin,
        description,
        argument_hint,
        model: doc.text("model"),
        allowed_tools: doc.list("allowed-tools"),
        body: doc.body,
    })
}

fn first_line(body: &str) -> String {
    let line = body
        .lines()
        .map(|l| l.trim().trim_start_matches('#').trim())
        .find(|l| !l.is_empty())
        .unwrap_or("a prompt from a file");
    amber_core::text::one_line(line, 72)
}

impl FileCommand {
    /// The commands its body runs: lines that start with `!`, and
    /// `` !`command` `` inline, as Claude Code writes them.
    pub fn commands(&self) -> Vec<String> {
        shell_snippets(&self.body)
            .into_iter()
            .map(|s| s.command)
            .collect()
    }

    /// Whether it must be trusted before it runs: a workspace file that
    /// runs commands.
    pub fn needs_trust(&self) -> bool {
        self.origin.is_workspace() && (!self.commands().is_empty() || self.may_form_commands())
    }

    /// Whether arguments put in could make a command line: a line that
    /// starts with `$1`…`$9` or `$ARGUMENTS` and then `!`, or `!$…`.
    fn may_form_commands(&self) -> bool {
        self.body.lines().any(|line| {
            let rest = line.trim_start_matches(|c: char| c == '$' || c.is_ascii_digit());
            let rest = rest.strip_prefix("ARGUMENTS").unwrap_or(rest);
            (line.starts_with('$') && rest.starts_with('!')) || line.contains("!$") || line.contains("!`$")
        })
    }

    /// What trust is pinned to: the file's path and text.
    pub fn fingerprint(&self) -> String {
        let mut hasher = blake3::Hasher::new();
        hasher.update(b"amber-command-file\0");
        hasher.update(self.path.to_string_lossy().as_bytes());
        hasher.update(b"\0");
        hasher.update(self.body.as_bytes());
        hasher.finalize().to_hex()[..16].to_string()
    }

    /// The man page: what it does, where it is, what it sends.
    pub fn man(&self) -> String {
        let mut page = format!(
            "{}\n\nFrom {} ({}).",
            self.description,
            self.path.display(),
            self.origin.describe()
        );
        if let Some(hint) = &self.argument_hint {
            page.push_str(&format!("\nArguments: {hint}"));
        }
        if let Some(model) = &self.model {
            page.push_str(&format!("\nModel it names: {model} (the session's model runs it)"));
        }
        if !self.allowed_tools.is_empty() {
            page.push_str(&format!("\nTools it names: {}", self.allowed_tools.join(", ")));
        }
        let commands = self.commands();
        if !commands.is_empty() {
            page.push_str(&format!(
                "\nRuns, in the sandbox, before it sends: {}{}",
                commands.join("; "),
                if self.needs_trust() {
                    " (asks for trust first: a workspace file)"
                } else {
                    ""
                }
            ));
        }
        page.push_str(&format!("\n\nThe prompt:\n{}", self.body.trim_end()));
        page
    }

    /// What `/name ARGS` asks of the front end: the prompt with its
    /// arguments put in, the commands to run first, and the trust to ask.
    pub fn effect(&self, args: &str) -> PromptEffect {
        let text = substitute_quoting_commands(&self.body, args);
        let commands: Vec<String> = shell_snippets(&text)
            .into_iter()
            .map(|s| s.command)
            .collect();
        // Trust is decided on what will run: arguments put in can make a
        // command line the file as written did not have (`$9!sh x.sh`).
        let runs = !commands.is_empty() || !self.commands().is_empty();
        PromptEffect {
            command: format!("/{}", self.name),
            text,
            commands,
            source: self.path.display().to_string(),
            trust: (self.origin.is_workspace() && runs).then(|| self.fingerprint()),
        }
    }
}

/// `$ARGUMENTS` as given, `$1`…`$9` the words (quotes group words).
pub fn substitute(body: &str, args: &str) -> String {
    substitute_with(body, args.trim(), &split_words(args))
}

/// [`substitute`], with what goes into a command (a `!` line, an inline
/// `` !`…` ``) shell-quoted word by word: an argument is data to the
/// command, never more shell (`/review 'main; rm -rf x'`).
pub fn substitute_quoting_commands(body: &str, args: &str) -> String {
    let words: Vec<String> = split_words(args).iter().map(|w| shell_quote(w)).collect();
    let quoted_args = words.join(" ");
    let mut out = Vec::new();
    for line in body.split('\n') {
        if line.starts_with('!') && !line.starts_with("!`") {
            out.push(substitute_with(line, &quoted_args, &words));
            continue;
        }
        // Inline commands quoted, the prose around them as typed.
        let mut done = String::new();
        let mut rest = line;
        while let Some(at) = rest.find("!`") {
            let after = &rest[at + 2..];
            let Some(end) = after.find('`') else {
                break;
            };
            done.push_str(&substitute(&rest[..at], args));
            done.push_str("!`");
            done.push_str(&substitute_with(&after[..end], &quoted_args, &words));
            done.push('`');
            rest = &after[end + 1..];
        }
        done.push_str(&substitute(rest, args));
        out.push(done);
    }
    out.join("\n")
}

/// `text` with `$ARGUMENTS` as `all` and `$1`…`$9` as `words`.
fn substitute_with(text: &str, all: &str, words: &[String]) -> String {
    let mut out = String::with_capacity(text.len() + all.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix("ARGUMENTS") {
            out.push_str(all);
            rest = tail;
        } else if let Some(digit) = after.chars().next().filter(|c| ('1'..='9').contains(c)) {
            let i = digit as usize - '1' as usize;
            out.push_str(words.get(i).map(String::as_str).unwrap_or(""));
            rest = &after[1..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// `word` as one shell word: as it is when it is plain, else in single
/// quotes.
fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./:=@%+,".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

fn split_words(args: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    for c in args.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => current.push(c),
            (None, '"' | '\'') => quote = Some(c),
            (None, c) if c.is_whitespace() => {
                if !current.is_empty() {
                    words.push(std::mem::take(&mut current));
                }
            }
            (None, c) => current.push(c),
        }
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// A command in a prompt, and the text it stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snippet {
    /// What is replaced by the output: the `!…` line or `` !`…` ``.
    pub raw: String,
    pub command: String,
}

/// The commands of `text`: a line whose first character is `!`, and
/// `` !`command` `` anywhere.
pub fn shell_snippets(text: &str) -> Vec<Snippet> {
    let mut snippets = Vec::new();
    for line in text.lines() {
        if let Some(command) = line.strip_prefix('!') {
            if !command.starts_with('`') && !command.trim().is_empty() {
                snippets.push(Snippet {
                    raw: line.to_string(),
                    command: command.trim().to_string(),
                });
                continue;
            }
        }
        let mut rest = line;
        while let Some(at) = rest.find("!`") {
            let after = &rest[at + 2..];
            let Some(end) = after.find('`') else {
                break;
            };
            let command = &after[..end];
            if !command.trim().is_empty() {
                snippets.push(Snippet {
                    raw: format!("!`{command}`"),
                    command: command.trim().to_string(),
                });
            }
            rest = &after[end + 1..];
        }
    }
    snippets
}

/// `text` with each snippet's first occurrence replaced by its output.
pub fn put_outputs(text: &str, outputs: &[(Snippet, String)]) -> String {
    let mut text = text.to_string();
    for (snippet, output) in outputs {
        let shown = format!("$ {}\n{}", snippet.command, output.trim_end());
        text = text.replacen(&snippet.raw, &shown, 1);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn files_become_commands_and_later_folders_shadow_earlier() {
        let home = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        let config = home.path().join("config");
        write(home.path(), ".claude/commands/fix.md", "user fix $ARGUMENTS");
        write(home.path(), ".codex/prompts/explain.md", "Explain $1 then $2");
        write(ws.path(), ".claude/commands/fix.md", "---\ndescription: Fix it\n---\nworkspace fix $ARGUMENTS\n!git status\n");
        write(ws.path(), ".claude/commands/frontend/test.md", "Run the frontend tests");
        write(ws.path(), ".amber/commands/broken.md", "---\nnot a field\n---\n");
        let folders = folders(&config, ws.path(), Some(home.path()));
        let (commands, skipped) = discover(&folders);
        let names: Vec<&str> = commands.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["explain", "fix", "frontend:test", "init", "review"]);
        let fix = &commands[1];
        assert_eq!(fix.origin, Origin::ClaudeWorkspace);
        assert_eq!(fix.description, "Fix it");
        assert!(fix.needs_trust());
        assert_eq!(fix.commands(), ["git status"]);
        assert!(!commands[0].needs_trust());
        assert_eq!(commands[2].description, "Run the frontend tests");
        assert_eq!(skipped.len(), 1);
        assert!(skipped[0].reason.contains("line 2"), "{skipped:?}");
        let effect = fix.effect("the widget");
        assert_eq!(effect.text, "workspace fix the widget\n!git status\n");
        assert_eq!(effect.commands, ["git status"]);
        assert_eq!(effect.trust, Some(fix.fingerprint()));
    }

    #[test]
    fn a_command_that_arguments_could_form_needs_trust_too() {
        let command = |body: &str, origin| FileCommand {
            name: "hello".into(),
            path: PathBuf::from("/ws/.claude/commands/hello.md"),
            origin,
            description: String::new(),
            argument_hint: None,
            model: None,
            allowed_tools: Vec::new(),
            body: body.into(),
        };
        let sneaky = command("Say hi.\n$9!sh .claude/x.sh\n", Origin::ClaudeWorkspace);
        assert!(sneaky.commands().is_empty());
        assert!(sneaky.needs_trust());
        let effect = sneaky.effect("");
        assert_eq!(effect.commands, ["sh .claude/x.sh"]);
        assert_eq!(effect.trust, Some(sneaky.fingerprint()));
        // Text only, or the user's own: no trust.
        assert!(!command("Say hi to $1.", Origin::Workspace).needs_trust());
        assert_eq!(command("$9!ls", Origin::ClaudeUser).effect("").trust, None);
    }

    #[test]
    fn arguments_are_data_to_the_commands_they_go_into() {
        let body = "Review $1.\n!git diff $1...HEAD\nAnd !`git log $ARGUMENTS` too";
        let text = substitute_quoting_commands(body, "'main; touch pwned'");
        assert_eq!(
            text,
            "Review main; touch pwned.\n!git diff 'main; touch pwned'...HEAD\nAnd !`git log 'main; touch pwned'` too"
        );
        assert_eq!(substitute_quoting_commands("!git diff $1", "main"), "!git diff main");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
    }

    #[test]
    fn arguments_and_snippets_are_put_in_place() {
        assert_eq!(substitute("a $1 b $2 c $ARGUMENTS $9 $x", "one 'two words'"), "a one b two words c one 'two words'  $x");
        let text = "Status:\n!git status\nAnd !`git log -1` too";
        let snippets = shell_snippets(text);
        assert_eq!(
            snippets.iter().map(|s| s.command.as_str()).collect::<Vec<_>>(),
            ["git status", "git log -1"]
        );
        let outputs: Vec<(Snippet, String)> = snippets
            .into_iter()
            .zip(["clean\n".to_string(), "abc123".to_string()])
            .collect();
        assert_eq!(
            put_outputs(text, &outputs),
            "Status:\n$ git status\nclean\nAnd $ git log -1\nabc123 too"
        );
    }
}
