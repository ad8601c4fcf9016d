//! The `shell` tool's command: recursive deletes outside the workspace and
//! reads of `.env` files.
//!
//! This is a tokeniser, not a shell parser, and its limits are deliberate:
//! - commands are split on `;`, `&`, `|`, newlines, parentheses and
//!   backquotes, even inside quotes, so a quoted `;` splits too (which can
//!   only deny more, never less);
//! - quotes are dropped, not interpreted, and no variable but `$HOME` and
//!   `$PWD` is known: a path through any other is taken as outside;
//! - `cd` and `pushd` move the folder later relative paths start from, in
//!   the order written, whatever the operators between;
//! - the program is the first word after `NAME=value` assignments and the
//!   wrappers below (with their options), so `sudo -u root rm …` is missed,
//!   and so are `eval`, `sh -c '…'`, `find -delete`, scripts and aliases.
//!
//! The OS sandbox and the approval policy stay the real boundary; this
//! catches the common mistakes before they reach the user's approval.

use crate::place::{is_env_file, Base, Place};

/// Words that run the next word as the program.
const WRAPPERS: &[&str] = &[
    "sudo", "doas", "env", "command", "builtin", "exec", "nohup", "nice", "time", "xargs",
];

/// Programs that print or load a file named on their command line.
const READERS: &[&str] = &["cat", "less", "head", "tail", "more", "grep", "source", "."];

/// Which way a redirection's word goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Redirect {
    In,
    Out,
}

/// One word of a command, quotes removed.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Word {
    text: String,
    /// Set for the word after `<` or `>`, which is a file, not an argument.
    redirect: Option<Redirect>,
}

/// The deny reason for `command`, or None, with `workspace` the folder the
/// command starts in.
pub(crate) fn check(command: &str, workspace: &Place) -> Option<String> {
    let mut cwd = workspace.clone();
    for words in segments(command) {
        let Some((program, args)) = program(&words) else {
            continue;
        };
        match program {
            "cd" | "pushd" => cwd = change_dir(&cwd, args),
            "rm" => {
                if let Some(reason) = recursive_delete(args, &cwd, workspace) {
                    return Some(reason);
                }
            }
            reader if READERS.contains(&reader) => {
                if let Some(file) = args
                    .iter()
                    .filter(|w| w.redirect != Some(Redirect::Out))
                    .find(|w| names_env_file(&w.text))
                {
                    return Some(format!(
                        "`{program} {}` reads an environment file, which usually holds secrets; \
                         read `.env.example` for the variable names instead",
                        file.text
                    ));
                }
            }
            _ => {}
        }
    }
    None
}

/// The program a segment runs, its name without a folder or a leading
/// `\`, and the words after it.
fn program(words: &[Word]) -> Option<(&str, &[Word])> {
    let mut rest = words;
    let mut wrapped = false;
    while let Some((first, tail)) = rest.split_first() {
        let text = first.text.as_str();
        let skip = first.redirect.is_some()
            || is_assignment(text)
            || (wrapped && text.starts_with('-'))
            || WRAPPERS.contains(&text);
        if !skip {
            let name = text.trim_start_matches('\\');
            let name = name.rsplit('/').next().unwrap_or(name);
            return Some((name, tail));
        }
        wrapped |= WRAPPERS.contains(&text);
        rest = tail;
    }
    None
}

/// `NAME=value` before a command sets its environment.
fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

/// Where `cd ARGS` leaves the shell: home without a folder, unknown after
/// `cd -`.
fn change_dir(cwd: &Place, args: &[Word]) -> Place {
    let target = args
        .iter()
        .find(|w| w.redirect.is_none() && (w.text == "-" || !w.text.starts_with('-')));
    match target.map(|w| w.text.as_str()) {
        None => Place::resolve(cwd, "~"),
        Some("-") => Place {
            base: Base::Unknown("OLDPWD".to_string()),
            comps: Vec::new(),
        },
        Some(dir) => Place::resolve(cwd, dir),
    }
}

/// The deny reason when `rm ARGS` is recursive and a target is outside
/// the workspace. Options may come after targets (GNU rm takes them
/// anywhere), and `--` ends them.
fn recursive_delete(args: &[Word], cwd: &Place, workspace: &Place) -> Option<String> {
    let mut recursive = false;
    let mut targets = Vec::new();
    let mut options_done = false;
    for word in args.iter().filter(|w| w.redirect.is_none()) {
        let text = word.text.as_str();
        if options_done || text == "-" || !text.starts_with('-') {
            targets.push(text);
        } else if text == "--" {
            options_done = true;
        } else if let Some(long) = text.strip_prefix("--") {
            recursive |= long == "recursive";
        } else {
            recursive |= text.contains(['r', 'R']);
        }
    }
    if !recursive {
        return None;
    }
    targets.into_iter().find_map(|target| {
        let place = Place::resolve(cwd, target);
        let outside = match &place.base {
            _ if place.is_under(workspace) => return None,
            Base::Root => format!("`{}`", place.display()),
            Base::Home => "your home folder".to_string(),
            Base::Unknown(name) => format!("`${name}`, whose value the guard cannot know"),
        };
        Some(format!(
            "`rm -r {target}` would delete outside the workspace (it resolves under {outside}); \
             delete recursively only inside the workspace, by a path relative to it"
        ))
    })
}

/// Whether a word names an environment file, also as `--opt=FILE`.
fn names_env_file(word: &str) -> bool {
    let path = match word.split_once('=') {
        Some((option, value)) if option.starts_with('-') => value,
        _ => word,
    };
    path.trim_end_matches('/')
        .rsplit('/')
        .next()
        .is_some_and(is_env_file)
}

/// The command's simple commands, each as its words. See the module doc
/// for what this does not understand.
fn segments(command: &str) -> Vec<Vec<Word>> {
    let mut lexer = Lexer::default();
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {}
            c if c.is_whitespace() && c != '\n' => lexer.end_word(),
            '&' if chars.peek() == Some(&'>') => {
                // `&>` sends both streams to a file.
                chars.next();
                lexer.redirect(Redirect::Out);
            }
            ';' | '&' | '|' | '\n' | '(' | ')' | '`' => lexer.end_segment(),
            '<' | '>' => {
                // `>>`, `>&2`, `<<`: one operator.
                while chars.next_if(|&n| n == c || n == '&').is_some() {}
                lexer.redirect(if c == '<' {
                    Redirect::In
                } else {
                    Redirect::Out
                });
            }
            c => lexer.word.push(c),
        }
    }
    lexer.end_segment();
    lexer.segments
}

#[derive(Default)]
struct Lexer {
    segments: Vec<Vec<Word>>,
    words: Vec<Word>,
    word: String,
    pending: Option<Redirect>,
}

impl Lexer {
    fn end_word(&mut self) {
        if !self.word.is_empty() {
            self.words.push(Word {
                text: std::mem::take(&mut self.word),
                redirect: self.pending.take(),
            });
        }
    }

    fn redirect(&mut self, to: Redirect) {
        // A number right before the operator is its file descriptor.
        if self.word.chars().all(|c| c.is_ascii_digit()) {
            self.word.clear();
        }
        self.end_word();
        self.pending = Some(to);
    }

    fn end_segment(&mut self) {
        self.end_word();
        self.pending = None;
        if !self.words.is_empty() {
            self.segments.push(std::mem::take(&mut self.words));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn denied(command: &str) -> Option<String> {
        check(command, &Place::absolute("/workspace"))
    }

    fn texts(command: &str) -> Vec<Vec<String>> {
        segments(command)
            .into_iter()
            .map(|ws| ws.into_iter().map(|w| w.text).collect())
            .collect()
    }

    #[test]
    fn commands_split_on_operators_and_redirections_leave_the_arguments() {
        assert_eq!(
            texts("a 'b c'&&d|e; f 2>/dev/null"),
            vec![
                vec!["a", "b", "c"],
                vec!["d"],
                vec!["e"],
                vec!["f", "/dev/null"]
            ]
        );
        let words = &segments("rm -rf build 2>/dev/null")[0];
        assert_eq!(words[3].redirect, Some(Redirect::Out));
    }

    #[test]
    fn recursive_deletes_outside_the_workspace_are_denied() {
        for command in [
            "rm -rf /",
            "rm -r ~/projects",
            "rm -fr ../sibling",
            "rm --recursive /etc",
            "rm -R $HOME/.cache",
            "rm -rf \"${HOME}\"",
            "cd /tmp && rm -rf build",
            "make; sudo rm -rf /usr/local/lib",
            "FOO=1 /bin/rm -vrf /var/data",
            "rm build -rf /opt/x",
            "rm -rf -- /srv",
            "rm -rf $OUT_DIR",
            "echo ok | xargs rm -rf /tmp/x",
        ] {
            let reason = denied(command);
            assert!(reason.is_some(), "{command} was allowed");
        }
        let reason = denied("rm -rf ~/x").unwrap_or_default();
        assert!(reason.contains("home folder"), "{reason}");
    }

    #[test]
    fn deletes_inside_the_workspace_and_plain_rm_are_allowed() {
        for command in [
            "rm -rf target",
            "rm -rf ./build dist/",
            "rm -rf /workspace/tmp",
            "rm -rf src/../target",
            "rm /etc/passwd",
            "rm -f ~/x",
            "rm -rf build 2>/dev/null",
            "cd sub && rm -rf ../target",
            "echo rm -rf /",
            "grep -r rm /etc",
        ] {
            assert_eq!(denied(command), None, "{command}");
        }
    }

    #[test]
    fn reading_an_env_file_is_denied_but_its_templates_are_not() {
        for command in [
            "cat .env",
            "head -n 3 app/.env.local",
            "grep KEY < .env",
            "source .env",
            ". ./.env.production",
            "ls && less '.env'",
            "grep --file=.env x",
        ] {
            assert!(denied(command).is_some(), "{command} was allowed");
        }
        for command in [
            "cat .env.example",
            "tail .env.sample",
            "echo KEY=1 > .env",
            "cp .env.example .env",
            "cat .envrc",
        ] {
            assert_eq!(denied(command), None, "{command}");
        }
    }
}
