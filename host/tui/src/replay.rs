//! A resumed session shown again: its recorded conversation
//! (`amber_core::session::transcript`) as transcript cells, the prompts
//! as typed, the replies, the thinking and the tool cards folded, and
//! where the context was compacted.

use amber_core::engine::Envelope;
use amber_core::ports::dialect::{Message, Part, Role};
use amber_core::session::Replayed;

use crate::cards::{CardStatus, ToolCard};
use crate::history::{Cell, NoticeKind};

/// The cells of a recorded conversation.
pub fn cells(replayed: Vec<Replayed>) -> Vec<Cell> {
    let mut cells = Vec::new();
    for step in replayed {
        match step {
            Replayed::Prompt(text) => cells.push(Cell::User(text)),
            Replayed::Compacted => cells.push(Cell::Notice {
                kind: NoticeKind::Info,
                text: "the context was compacted here".into(),
            }),
            Replayed::Rewound(turn) => cells.push(Cell::Notice {
                kind: NoticeKind::Info,
                text: format!("rewound to the end of turn {turn} here"),
            }),
            Replayed::Message(message) => message_cells(message, &mut cells),
        }
    }
    cells
}

fn message_cells(message: Message, cells: &mut Vec<Cell>) {
    for part in message.parts {
        match (message.role, part) {
            (Role::Assistant, Part::Text { text }) if !text.trim().is_empty() => {
                cells.push(Cell::Assistant(text))
            }
            (Role::Assistant, Part::Reasoning(reasoning)) if !reasoning.text.is_empty() => cells
                .push(Cell::Reasoning {
                    text: reasoning.text,
                    expanded: false,
                }),
            (Role::Assistant, Part::ToolCall(call)) => {
                cells.push(Cell::Tool(ToolCard::new(
                    call.id,
                    call.name,
                    call.arguments,
                    None,
                )));
            }
            (Role::Tool, Part::ToolResult(result)) => {
                // The card of its call, before it in the transcript.
                let card = cells.iter_mut().rev().find_map(|c| match c {
                    Cell::Tool(card) if card.id == result.call_id => Some(card),
                    _ => None,
                });
                if let Some(card) = card {
                    // The model read the result as an envelope: the card
                    // shows what the live card showed, its status and
                    // output, and a write's or an edit's diff.
                    match serde_json::from_str::<Envelope>(&result.content) {
                        Ok(envelope) => {
                            card.status = envelope.status.into();
                            card.output = envelope.output;
                            if let Some(diff) = envelope
                                .meta
                                .as_ref()
                                .and_then(|m| m.get("diff"))
                                .and_then(|d| d.as_str())
                            {
                                card.diff = Some(diff.to_string());
                            }
                        }
                        Err(_) => {
                            card.status = if result.is_error {
                                CardStatus::Error
                            } else {
                                CardStatus::Ok
                            };
                            card.output = result.content;
                        }
                    }
                }
            }
            // What the image was, not the image: a terminal shows no
            // pixels, and the bytes stay in the session's image store.
            (Role::User, Part::Image(image)) => cells.push(Cell::Notice {
                kind: NoticeKind::Info,
                text: format!("attached an image: {}", image.describe()),
            }),
            (Role::Tool, Part::Image(image)) => cells.push(Cell::Notice {
                kind: NoticeKind::Info,
                text: format!("the tool returned an image: {}", image.describe()),
            }),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use amber_core::ports::dialect::{ToolCall, ToolResult};

    #[test]
    fn a_prompt_a_call_its_result_and_a_reply_become_cells() {
        let call = Message {
            role: Role::Assistant,
            parts: vec![Part::ToolCall(ToolCall {
                id: "c1".into(),
                name: "read_file".into(),
                arguments: r#"{"path":"a.rs"}"#.into(),
            })],
        };
        let result = Message {
            role: Role::Tool,
            parts: vec![Part::ToolResult(ToolResult {
                call_id: "c1".into(),
                content: "fn main() {}".into(),
                is_error: false,
            })],
        };
        let cells = cells(vec![
            Replayed::Prompt("look".into()),
            Replayed::Message(call),
            Replayed::Message(result),
            Replayed::Message(Message::text(Role::Assistant, "it is empty")),
            Replayed::Compacted,
        ]);
        assert_eq!(cells.len(), 4);
        assert_eq!(cells[0], Cell::User("look".into()));
        match &cells[1] {
            Cell::Tool(card) => {
                assert_eq!(card.status, CardStatus::Ok);
                assert_eq!(card.output, "fn main() {}");
                assert!(!card.expanded);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(cells[2], Cell::Assistant("it is empty".into()));
        assert!(matches!(cells[3], Cell::Notice { .. }));
    }

    #[test]
    fn images_are_said_not_shown() {
        let image = || {
            Part::Image(amber_core::ports::Image::new(
                "image/png",
                vec![0; 2048],
                640,
                480,
            ))
        };
        let cells = cells(vec![
            Replayed::Message(Message {
                role: Role::User,
                parts: vec![image()],
            }),
            Replayed::Message(Message {
                role: Role::Tool,
                parts: vec![image()],
            }),
        ]);
        let texts: Vec<String> = cells
            .iter()
            .map(|c| match c {
                Cell::Notice { text, .. } => text.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            texts,
            [
                "attached an image: PNG 640×480, 2 KB",
                "the tool returned an image: PNG 640×480, 2 KB"
            ]
        );
    }

    #[test]
    fn a_results_envelope_gives_the_card_its_status_output_and_diff() {
        let call = Message {
            role: Role::Assistant,
            parts: vec![Part::ToolCall(ToolCall {
                id: "w1".into(),
                name: "edit_file".into(),
                arguments: "{}".into(),
            })],
        };
        let envelope = serde_json::json!({
            "status": "denied",
            "output": "the user declined this (`edit_file`)",
            "meta": {"diff": "@@ -1 +1 @@\n-a\n+b\n"},
        });
        let result = Message {
            role: Role::Tool,
            parts: vec![Part::ToolResult(ToolResult {
                call_id: "w1".into(),
                content: envelope.to_string(),
                is_error: true,
            })],
        };
        let cells = cells(vec![Replayed::Message(call), Replayed::Message(result)]);
        let Cell::Tool(card) = &cells[0] else {
            panic!("{cells:?}");
        };
        assert_eq!(card.status, CardStatus::Denied);
        assert_eq!(card.output, "the user declined this (`edit_file`)");
        assert!(card.diff.as_deref().is_some_and(|d| d.contains("+b")));
    }
}
