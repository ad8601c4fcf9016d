//! The prompt copy. Seed: "Prompt assembly": after the compression gate,
//! the sealed context is copied (never mutated); head blocks go right after
//! the system prompt, tail blocks after the conversation, each group in
//! ascending priority with ties in insertion order; a block that renders
//! empty is omitted, and one that fails cannot break the turn.

use std::sync::Arc;

use crate::ports::dialect::{Message, Part, Role};
use crate::ports::{BlockPosition, PromptBlock, RenderContext};

/// The blocks' texts, grouped and ordered, and the blocks that failed (by
/// name and cause).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Rendered {
    pub head: Vec<String>,
    pub tail: Vec<String>,
    pub failed: Vec<String>,
}

/// Renders every block. Blocks may be components that touch the
/// filesystem, so the engine calls this on a blocking thread.
pub fn render_blocks(blocks: &[Arc<dyn PromptBlock>], render: &RenderContext) -> Rendered {
    let mut ordered: Vec<&Arc<dyn PromptBlock>> = blocks.iter().collect();
    // A stable sort keeps insertion order among equal priorities.
    ordered.sort_by_key(|b| b.spec().priority);
    let mut out = Rendered::default();
    for block in ordered {
        let spec = block.spec();
        match block.render(render) {
            Ok(text) if text.trim().is_empty() => {}
            Ok(text) => match spec.position {
                BlockPosition::Head => out.head.push(text),
                BlockPosition::Tail => out.tail.push(text),
            },
            // The port's error names the plugin and the block.
            Err(e) => out.failed.push(format!("{e} (the block was left out)")),
        }
    }
    out
}

/// `messages` for a request to `flavor`: reasoning another flavor's
/// model produced is left out, since only its own vendor can take it
/// back (a session switched from Responses to Anthropic would otherwise
/// send Responses' encrypted items as Anthropic thinking). Reasoning of
/// no known flavor (older sessions) stays, for the dialect to filter by
/// its shape. Images are sent newest first while they keep within
/// [`MAX_REQUEST_IMAGES`] and [`MAX_REQUEST_IMAGE_BYTES`] (a vendor
/// refuses a request past its own limits, and the history's images are
/// sent again with every request); the older ones, and all of them for a
/// model without images (a session switched to it), are said in words.
pub fn for_model(mut messages: Vec<Message>, flavor: &str, images: bool) -> Vec<Message> {
    let (mut count, mut bytes) = (0usize, 0usize);
    for message in messages.iter_mut().rev() {
        message.parts.retain(|part| match part {
            Part::Reasoning(r) => r.flavor.as_deref().is_none_or(|f| f == flavor),
            _ => true,
        });
        let mut parts = Vec::with_capacity(message.parts.len());
        // Newest first within the message too, so the walk is one order.
        let mut kept: Vec<bool> = Vec::with_capacity(message.parts.len());
        for part in message.parts.iter().rev() {
            let keep = match part {
                Part::Image(image) if images => {
                    let size = image.data().map_or(0, <[u8]>::len);
                    let fits =
                        count < MAX_REQUEST_IMAGES && bytes + size <= MAX_REQUEST_IMAGE_BYTES;
                    if fits {
                        count += 1;
                        bytes += size;
                    }
                    fits
                }
                Part::Image(_) => false,
                _ => true,
            };
            kept.push(keep);
        }
        kept.reverse();
        for (part, keep) in std::mem::take(&mut message.parts).into_iter().zip(kept) {
            match part {
                Part::Image(image) if !keep => {
                    let why = if images {
                        "not sent again: a request carries the newest images only"
                    } else {
                        "this model does not take images"
                    };
                    let words = format!("[an image ({}) was here; {why}]", image.describe());
                    // After a tool result, in its content: a tool message
                    // carries no other text in some dialects.
                    match parts.last_mut() {
                        Some(Part::ToolResult(result)) => {
                            result.content.push('\n');
                            result.content.push_str(&words);
                        }
                        _ => parts.push(Part::Text { text: words }),
                    }
                }
                part => parts.push(part),
            }
        }
        message.parts = parts;
    }
    messages
}

/// Images one request carries at most (Anthropic takes 100, and 20 at
/// most at full size).
pub const MAX_REQUEST_IMAGES: usize = 20;

/// Image bytes one request carries at most: 15 MB, 20 MB as base64, well
/// within Anthropic's 32 MB request and OpenAI's 50 MB of images.
pub const MAX_REQUEST_IMAGE_BYTES: usize = 15 * 1000 * 1000;

/// Builds the request's messages from the context and the rendered
/// blocks. `system` stands in when the history does not start with a
/// system message, so the copy always does.
pub fn assemble(context: &[Message], system: &str, rendered: &Rendered) -> Vec<Message> {
    let mut messages = Vec::with_capacity(context.len() + rendered.head.len() + 2);
    let rest = match context.first() {
        Some(first) if first.role == Role::System => {
            messages.push(first.clone());
            &context[1..]
        }
        _ => {
            messages.push(Message::text(Role::System, system));
            context
        }
    };
    messages.extend(
        rendered
            .head
            .iter()
            .map(|t| Message::text(Role::System, t.clone())),
    );
    messages.extend(rest.iter().cloned());
    if !rendered.tail.is_empty() {
        messages.push(Message::text(Role::User, rendered.tail.join("\n\n")));
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::dialect::Part;
    use crate::ports::{BlockSpec, PortError};

    struct Block(BlockSpec, Result<String, PortError>);

    impl PromptBlock for Block {
        fn spec(&self) -> &BlockSpec {
            &self.0
        }
        fn render(&self, _: &RenderContext) -> Result<String, PortError> {
            self.1.clone()
        }
    }

    fn block(
        name: &str,
        position: BlockPosition,
        priority: i32,
        out: Result<&str, &str>,
    ) -> Arc<dyn PromptBlock> {
        let spec = BlockSpec {
            name: name.into(),
            position,
            priority,
        };
        Arc::new(Block(
            spec,
            out.map(String::from).map_err(|e| PortError(e.into())),
        ))
    }

    fn texts(messages: &[Message]) -> Vec<String> {
        messages
            .iter()
            .map(|m| match &m.parts[0] {
                Part::Text { text } => format!("{:?}:{text}", m.role),
                _ => String::new(),
            })
            .collect()
    }

    #[test]
    fn blocks_land_by_position_and_priority_and_the_context_is_untouched() {
        let context = vec![
            Message::text(Role::System, "sys"),
            Message::text(Role::User, "hi"),
        ];
        let blocks = [
            block("t", BlockPosition::Tail, 0, Ok("tail")),
            block("h2", BlockPosition::Head, 5, Ok("second")),
            block("h1", BlockPosition::Head, 1, Ok("first")),
            block("h1b", BlockPosition::Head, 1, Ok("first-tie")),
            block("empty", BlockPosition::Head, 0, Ok("  ")),
            block(
                "broken",
                BlockPosition::Head,
                0,
                Err("prompt block `broken` trapped"),
            ),
        ];
        let rendered = render_blocks(&blocks, &RenderContext::default());
        let out = assemble(&context, "unused", &rendered);
        assert_eq!(
            texts(&out),
            [
                "System:sys",
                "System:first",
                "System:first-tie",
                "System:second",
                "User:hi",
                "User:tail"
            ]
        );
        assert_eq!(
            rendered.failed,
            ["prompt block `broken` trapped (the block was left out)"]
        );
        assert_eq!(context.len(), 2);
    }

    #[test]
    fn a_history_without_a_system_message_gets_one_in_the_copy() {
        let context = vec![Message::text(Role::User, "hi")];
        let out = assemble(&context, "sys", &Rendered::default());
        assert_eq!(texts(&out), ["System:sys", "User:hi"]);
    }

    #[test]
    fn reasoning_of_another_flavor_is_left_out_of_a_request() {
        use crate::ports::dialect::Reasoning;
        let reasoning = |flavor: Option<&str>| {
            Part::Reasoning(Reasoning {
                text: format!("{flavor:?}"),
                flavor: flavor.map(String::from),
                ..Reasoning::default()
            })
        };
        let message = Message {
            role: Role::Assistant,
            parts: vec![
                reasoning(Some("openai-responses")),
                reasoning(Some("anthropic-messages")),
                reasoning(None),
                Part::Text { text: "done".into() },
            ],
        };
        let sent = for_model(vec![message], "anthropic-messages", true);
        let texts: Vec<String> = sent[0]
            .parts
            .iter()
            .map(|p| match p {
                Part::Reasoning(r) => r.text.clone(),
                Part::Text { text } => text.clone(),
                _ => String::new(),
            })
            .collect();
        assert_eq!(texts, ["Some(\"anthropic-messages\")", "None", "done"]);
    }

    fn image(n: u8) -> crate::ports::Image {
        crate::ports::Image::new("image/png", vec![n; 10], 4, 2)
    }

    fn tool_message(n: u8) -> Message {
        Message {
            role: Role::Tool,
            parts: vec![
                Part::ToolResult(crate::ports::dialect::ToolResult {
                    call_id: format!("c{n}"),
                    content: "shot".into(),
                    is_error: false,
                }),
                Part::Image(image(n)),
            ],
        }
    }

    #[test]
    fn the_newest_images_are_sent_and_the_older_ones_said_in_words() {
        let messages: Vec<Message> = (0..MAX_REQUEST_IMAGES as u8 + 2).map(tool_message).collect();
        let sent = for_model(messages, "openai-chat", true);
        let images = |m: &Message| m.parts.iter().filter(|p| matches!(p, Part::Image(_))).count();
        assert_eq!(sent.iter().map(images).sum::<usize>(), MAX_REQUEST_IMAGES);
        assert_eq!(images(&sent[0]), 0);
        assert_eq!(images(&sent[2]), 1);
        // The words go into the result a tool message carries.
        let Part::ToolResult(result) = &sent[0].parts[0] else {
            panic!("{:?}", sent[0])
        };
        assert!(result.content.contains("not sent again"), "{}", result.content);
        assert_eq!(sent[0].parts.len(), 1);
    }

    #[test]
    fn a_model_without_images_reads_of_them_where_each_was() {
        let user = Message {
            role: Role::User,
            parts: vec![Part::Text { text: "look".into() }, Part::Image(image(1))],
        };
        let sent = for_model(vec![user, tool_message(2)], "openai-chat", false);
        let Part::Text { text } = &sent[0].parts[1] else {
            panic!("{:?}", sent[0])
        };
        assert!(text.contains("PNG 4×2") && text.contains("does not take images"), "{text}");
        let Part::ToolResult(result) = &sent[1].parts[0] else {
            panic!("{:?}", sent[1])
        };
        assert!(result.content.contains("does not take images"), "{}", result.content);
        assert_eq!(sent[1].parts.len(), 1);
    }
}
