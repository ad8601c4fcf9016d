//! Assembles stream chunks into one reply, the way every dialect's chunks
//! are meant to be read (see the normalised shape in docs/dialects.md).

use std::collections::BTreeMap;

use amber_core::ports::dialect::{ModelReply, Reasoning, StopReason, StreamChunk, ToolCall, Usage};

#[derive(Debug, Default)]
pub struct ReplyAssembler {
    text: String,
    reasoning: Vec<Reasoning>,
    calls: BTreeMap<u32, ToolCall>,
    usage: Usage,
    stop: Option<StopReason>,
}

impl ReplyAssembler {
    pub fn push(&mut self, chunk: &StreamChunk) {
        match chunk {
            StreamChunk::TextDelta(t) => self.text.push_str(t),
            StreamChunk::ReasoningDelta(r) => self.merge_reasoning(r.clone()),
            StreamChunk::ToolCallStart { index, id, name } => {
                let call = ToolCall {
                    id: id.clone(),
                    name: name.clone(),
                    arguments: String::new(),
                };
                self.calls.insert(*index, call);
            }
            StreamChunk::ToolCallDelta { index, arguments } => {
                self.calls
                    .entry(*index)
                    .or_insert_with(|| ToolCall {
                        id: String::new(),
                        name: String::new(),
                        arguments: String::new(),
                    })
                    .arguments
                    .push_str(arguments);
            }
            StreamChunk::ToolCallEnd(_) => {}
            StreamChunk::Usage(u) => self.usage = *u,
            StreamChunk::Stop(s) => self.stop = Some(*s),
            StreamChunk::Error { .. } | StreamChunk::Restart { .. } => {}
        }
    }

    fn merge_reasoning(&mut self, delta: Reasoning) {
        let continues = self.reasoning.last().is_some_and(|last| {
            last.id == delta.id && last.signature.is_none() && last.encrypted.is_none()
        });
        match self.reasoning.last_mut() {
            Some(last) if continues => {
                last.text.push_str(&delta.text);
                last.signature = delta.signature.or(last.signature.take());
                last.encrypted = delta.encrypted.or(last.encrypted.take());
            }
            _ => self.reasoning.push(delta),
        }
    }

    /// Whether the stream said why it stopped; a stream without a stop
    /// reason was cut.
    pub fn is_complete(&self) -> bool {
        self.stop.is_some()
    }

    pub fn finish(self) -> ModelReply {
        let tool_calls = self
            .calls
            .into_values()
            .map(|mut c| {
                if c.arguments.trim().is_empty() {
                    c.arguments = "{}".into();
                }
                c
            })
            .collect();
        ModelReply {
            text: self.text,
            reasoning: self.reasoning,
            tool_calls,
            usage: self.usage,
            stop: self.stop,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_assemble_by_index_in_order_and_reasoning_keeps_its_signature() {
        let mut a = ReplyAssembler::default();
        let chunks = [
            StreamChunk::ReasoningDelta(Reasoning {
                text: "think".into(),
                ..Default::default()
            }),
            StreamChunk::ReasoningDelta(Reasoning {
                signature: Some("sig".into()),
                ..Default::default()
            }),
            StreamChunk::ToolCallStart {
                index: 1,
                id: "b".into(),
                name: "second".into(),
            },
            StreamChunk::ToolCallStart {
                index: 0,
                id: "a".into(),
                name: "first".into(),
            },
            StreamChunk::ToolCallDelta {
                index: 0,
                arguments: "{\"x\":".into(),
            },
            StreamChunk::ToolCallDelta {
                index: 0,
                arguments: "1}".into(),
            },
            StreamChunk::Stop(StopReason::ToolUse),
        ];
        for c in &chunks {
            a.push(c);
        }
        assert!(a.is_complete());
        let reply = a.finish();
        assert_eq!(reply.reasoning.len(), 1);
        assert_eq!(reply.reasoning[0].signature.as_deref(), Some("sig"));
        let calls: Vec<(&str, &str)> = reply
            .tool_calls
            .iter()
            .map(|c| (c.id.as_str(), c.arguments.as_str()))
            .collect();
        assert_eq!(calls, [("a", "{\"x\":1}"), ("b", "{}")]);
    }
}
