//! A session's conversation as a person saw it, for a front end to show
//! again on resume: the prompts as typed, the model's messages and the
//! tool results, and where the context was compacted. The chain a resume
//! verifies is the context the model reads next (after a compaction, a
//! summary); this is the whole history, read from the same records
//! (`resume` has checked them; this only reads).

use std::path::Path;

use super::{io_error, Record, SessionError};
use crate::ports::dialect::{Message, Part, Role};

/// One step of a session's conversation.
#[derive(Debug, Clone, PartialEq)]
pub enum Replayed {
    /// A prompt as the person typed it.
    Prompt(String),
    /// A message of the model (text, reasoning, tool calls) or a tool's
    /// results.
    Message(Message),
    /// The context was compacted here.
    Compacted,
    /// The conversation was rewound to the end of this turn here; what
    /// came after it is not shown.
    Rewound(usize),
}

/// The conversation recorded in the session file at `path`. A compaction's
/// rebuild (the summary and the messages it kept) is not conversation: it
/// shows as one [`Replayed::Compacted`]. A session written before prompts
/// were recorded shows its user messages' text instead; an unreadable
/// line ends the replay there.
pub fn transcript(path: &Path) -> Result<Vec<Replayed>, SessionError> {
    let text = std::fs::read_to_string(path).map_err(io_error(path))?;
    let records: Vec<Record> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map_while(|l| serde_json::from_str(l).ok())
        .collect();
    let has_prompts = records.iter().any(|r| matches!(r, Record::Prompt { .. }));
    // Each message of the chain has a step here, shown or not (a system
    // prompt, a user message whose prompt was recorded apart), so a pop
    // takes back the right one; prompts and compactions are no message.
    let mut steps: Vec<(bool, Option<Replayed>)> = Vec::new();
    let mut rebuilding = false;
    // Where each turn's head fell in `steps`, for a rewind to cut back to.
    let mut heads: Vec<usize> = Vec::new();
    for record in records {
        match record {
            Record::Rewound { turn } => {
                // Its `clear` came just before: the rewind, not a compaction.
                if matches!(steps.last(), Some((false, Some(Replayed::Compacted)))) {
                    steps.pop();
                }
                if let Some(at) = turn.checked_sub(1).and_then(|i| heads.get(i)).copied() {
                    steps.truncate(at);
                    // The turns after it keep their numbers (the file's
                    // heads), but show nothing now.
                    for later in heads.iter_mut().skip(turn) {
                        *later = (*later).min(at);
                    }
                }
                steps.push((false, Some(Replayed::Rewound(turn))));
                rebuilding = true;
            }
            Record::Prompt { text } => steps.push((false, Some(Replayed::Prompt(text)))),
            Record::Message { .. } if rebuilding => {}
            Record::Message { message, .. } => {
                let shown = match message.role {
                    Role::System => None,
                    // Its text is the prompt recorded apart; its images
                    // (`@shot.png`, `--image`) are shown after it.
                    Role::User if has_prompts => attached_images(&message),
                    Role::User => {
                        let typed = user_text(&message);
                        (!typed.trim().is_empty()).then_some(Replayed::Prompt(typed))
                    }
                    Role::Assistant | Role::Tool => Some(Replayed::Message(message)),
                };
                steps.push((true, shown));
            }
            // The silent confirm turn's question and answer, taken back.
            Record::Pop { .. } if !rebuilding => {
                if let Some(i) = steps.iter().rposition(|(message, _)| *message) {
                    steps.remove(i);
                }
            }
            Record::Clear => {
                if !rebuilding {
                    steps.push((false, Some(Replayed::Compacted)));
                }
                rebuilding = true;
            }
            Record::Head { .. } => {
                rebuilding = false;
                heads.push(steps.len());
            }
            Record::Pop { .. }
            | Record::Start(_)
            | Record::Hook(_)
            | Record::Settings(_)
            | Record::Child { .. }
            | Record::Todos { .. }
            | Record::Checkpoint { .. } => {}
        }
    }
    Ok(steps.into_iter().filter_map(|(_, step)| step).collect())
}

/// The images a user message carried, as a message of them alone.
fn attached_images(message: &Message) -> Option<Replayed> {
    let images: Vec<Part> = message
        .parts
        .iter()
        .filter(|p| matches!(p, Part::Image(_)))
        .cloned()
        .collect();
    if images.is_empty() {
        return None;
    }
    Some(Replayed::Message(Message {
        role: Role::User,
        parts: images,
    }))
}

fn user_text(message: &Message) -> String {
    message.texts().collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::ContextChain;
    use crate::session::SessionWriter;

    fn text(role: Role, t: &str) -> Message {
        Message::text(role, t)
    }

    #[test]
    fn prompts_replies_and_a_compaction_replay_without_the_rebuild() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut chain = ContextChain::new();
        let mut w = SessionWriter::open(&path).unwrap();
        w.push(&mut chain, text(Role::System, "sys")).unwrap();
        w.prompt("fix it").unwrap();
        w.push(&mut chain, text(Role::User, "note\nfix it"))
            .unwrap();
        w.push(&mut chain, text(Role::Assistant, "done")).unwrap();
        // The silent confirm turn, taken back.
        w.push(&mut chain, text(Role::User, "are you finished?"))
            .unwrap();
        w.push(&mut chain, text(Role::Assistant, "yes")).unwrap();
        w.pop(&mut chain).unwrap();
        w.pop(&mut chain).unwrap();
        w.end_turn(&chain).unwrap();
        w.clear(&mut chain).unwrap();
        w.push(&mut chain, text(Role::System, "sys")).unwrap();
        w.push(&mut chain, text(Role::User, "summary")).unwrap();
        w.end_turn(&chain).unwrap();
        w.prompt("and again").unwrap();
        w.push(&mut chain, text(Role::User, "and again")).unwrap();
        w.push(&mut chain, text(Role::Assistant, "again done"))
            .unwrap();
        w.end_turn(&chain).unwrap();
        let replayed = transcript(&path).unwrap();
        assert_eq!(
            replayed,
            vec![
                Replayed::Prompt("fix it".into()),
                Replayed::Message(text(Role::Assistant, "done")),
                Replayed::Compacted,
                Replayed::Prompt("and again".into()),
                Replayed::Message(text(Role::Assistant, "again done")),
            ]
        );
    }

    #[test]
    fn the_images_a_prompt_carried_are_shown_after_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut chain = ContextChain::new();
        let mut w = SessionWriter::open(&path).unwrap();
        let image = Part::Image(crate::ports::Image::new("image/png", b"png".to_vec(), 4, 3));
        w.prompt("what is this?").unwrap();
        let asked = Message {
            role: Role::User,
            parts: vec![
                Part::Text {
                    text: "what is this?".into(),
                },
                image,
            ],
        };
        w.push(&mut chain, asked).unwrap();
        w.end_turn(&chain).unwrap();
        let replayed = transcript(&path).unwrap();
        assert_eq!(replayed.len(), 2, "{replayed:?}");
        assert_eq!(replayed[0], Replayed::Prompt("what is this?".into()));
        let Replayed::Message(shown) = &replayed[1] else {
            panic!("{replayed:?}")
        };
        assert!(
            matches!(&shown.parts[..], [Part::Image(i)] if (i.width, i.height) == (4, 3)),
            "{shown:?}"
        );
    }

    #[test]
    fn an_older_session_shows_its_user_messages() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let mut chain = ContextChain::new();
        let mut w = SessionWriter::open(&path).unwrap();
        w.push(&mut chain, text(Role::User, "hi")).unwrap();
        w.push(&mut chain, text(Role::Assistant, "hello")).unwrap();
        w.end_turn(&chain).unwrap();
        assert_eq!(
            transcript(&path).unwrap(),
            vec![
                Replayed::Prompt("hi".into()),
                Replayed::Message(text(Role::Assistant, "hello")),
            ]
        );
    }
}
