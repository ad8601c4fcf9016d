//! A slash command's words and outcome at the shell: the line rebuilt
//! from the words (quoted back where needed), `--json` taken out, the
//! outcome printed and turned into an exit code. Shared by `amber /…`
//! (`slash`) and `amber /compact` (`compact`).

use std::process::ExitCode;

use amber_core::commands::Outcome;
use anyhow::Result;

/// Exit status of an unknown command, as for a usage error.
const EXIT_UNKNOWN: u8 = 2;

/// Prints an outcome: its JSON, or its text (an error's on stderr).
pub fn print(outcome: &Outcome, json: bool) -> Result<()> {
    if json {
        return super::print_json(outcome);
    }
    match outcome {
        Outcome::Man {
            unmatched: Some(_), ..
        } => errln!("amber: {}", outcome.text().trim_end()),
        Outcome::Ok { .. } | Outcome::Man { .. } => {
            let text = outcome.text();
            if !text.is_empty() {
                outln!("{}", text.trim_end());
            }
        }
        Outcome::Unknown { .. } | Outcome::Error { .. } => {
            errln!("amber: {}", outcome.text().trim_end())
        }
    }
    Ok(())
}

/// 0 for a reply or a man page, 1 for a command error, 2 for an unknown
/// command, a word the command does not have (`/set nosuch 1`, which
/// prints the page and the nearest name) or a value it does not take (as
/// for a usage error).
pub fn exit_code(outcome: &Outcome) -> ExitCode {
    match outcome {
        Outcome::Man {
            unmatched: Some(_), ..
        } => ExitCode::from(EXIT_UNKNOWN),
        Outcome::Ok { .. } | Outcome::Man { .. } => ExitCode::SUCCESS,
        Outcome::Unknown { .. } => ExitCode::from(EXIT_UNKNOWN),
        Outcome::Error { usage: true, .. } => ExitCode::from(EXIT_UNKNOWN),
        Outcome::Error { .. } => ExitCode::FAILURE,
    }
}

/// `--json` taken out of the words, wherever it stands.
pub fn take_json(words: Vec<String>, json: bool) -> (bool, Vec<String>) {
    let mut json = json;
    let words = words
        .into_iter()
        .filter(|word| {
            let is_json = word == "--json";
            json |= is_json;
            !is_json
        })
        .collect();
    (json, words)
}

/// The command line as typed in a session: each word quoted back when it
/// needs it, so `amber /set model "my model"` means what it says.
pub fn line(words: &[String]) -> String {
    words.iter().map(|w| quote(w)).collect::<Vec<_>>().join(" ")
}

fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| !c.is_whitespace() && !matches!(c, '\'' | '"' | '\\'));
    if plain {
        return word.to_string();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use amber_core::commands::tokenize;

    #[test]
    fn words_come_back_as_they_were_typed() {
        let words: Vec<String> = vec!["/set".into(), "model".into(), "my 'odd' model".into()];
        assert_eq!(
            tokenize(&line(&words)).unwrap(),
            vec!["/set", "model", "my 'odd' model"]
        );
    }

    #[test]
    fn json_is_ambers_wherever_it_stands() {
        let (json, words) = take_json(
            vec!["/plugins".into(), "--json".into(), "list".into()],
            false,
        );
        assert!(json);
        assert_eq!(line(&words), "/plugins list");
    }
}
