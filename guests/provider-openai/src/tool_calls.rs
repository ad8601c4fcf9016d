//! The tool calls of one response, so every dialect emits the normalised
//! shape: one start per call, indexes in call order, arguments that are a
//! JSON object, and one end per started call.

use amber_sdk::{StreamChunk, ToolCallDelta, ToolCallStart};

#[derive(Default)]
pub struct ToolCalls {
    calls: Vec<Call>,
}

#[derive(Default)]
struct Call {
    /// The wire's handle for the call: a chat delta index or a Responses
    /// item id.
    key: String,
    id: String,
    name: String,
    started: bool,
    /// Arguments that arrived before the name, held until the start.
    held: String,
    has_arguments: bool,
    ended: bool,
}

impl ToolCalls {
    /// The call `key` names that has not ended yet.
    pub fn find(&self, key: &str) -> Option<u32> {
        let at = self.calls.iter().rposition(|c| c.key == key && !c.ended)?;
        u32::try_from(at).ok()
    }

    /// Opens a new call under `key`; it starts once it has a name.
    pub fn open(&mut self, key: &str) -> u32 {
        self.calls.push(Call {
            key: key.to_string(),
            ..Call::default()
        });
        u32::try_from(self.calls.len() - 1).unwrap_or(u32::MAX)
    }

    /// The vendor's id for the call, empty when it has not said.
    pub fn id(&self, index: u32) -> &str {
        self.call(index).map_or("", |c| c.id.as_str())
    }

    /// Records the id and name as they arrive; the call starts when the
    /// name is known.
    pub fn identify(&mut self, index: u32, id: &str, name: &str, out: &mut Vec<StreamChunk>) {
        let Some(call) = self.call_mut(index) else {
            return;
        };
        if call.id.is_empty() {
            call.id = id.to_string();
        }
        if call.name.is_empty() {
            call.name = name.to_string();
        }
        if !call.name.is_empty() {
            self.start(index, out);
        }
    }

    /// A piece of the call's arguments.
    pub fn append(&mut self, index: u32, piece: &str, out: &mut Vec<StreamChunk>) {
        let Some(call) = self.call_mut(index) else {
            return;
        };
        if piece.is_empty() || call.ended {
            return;
        }
        if !call.started {
            call.held.push_str(piece);
            return;
        }
        call.has_arguments |= !piece.trim().is_empty();
        out.push(StreamChunk::ToolCallDelta(ToolCallDelta {
            index,
            arguments: piece.to_string(),
        }));
    }

    /// The call's whole arguments, from an event that repeats them; used
    /// only when no pieces arrived before it.
    pub fn fill(&mut self, index: u32, arguments: &str, out: &mut Vec<StreamChunk>) {
        let empty = self
            .call(index)
            .is_some_and(|c| !c.has_arguments && c.held.trim().is_empty());
        if empty {
            self.append(index, arguments, out);
        }
    }

    /// Ends the call once, giving it `{}` when no arguments came.
    pub fn end(&mut self, index: u32, out: &mut Vec<StreamChunk>) {
        match self.call(index) {
            Some(call) if !call.ended => {}
            _ => return,
        }
        // A call whose name never came still ends, so its id is answered.
        self.start(index, out);
        if let Some(call) = self.call_mut(index) {
            call.ended = true;
            if !call.has_arguments {
                out.push(StreamChunk::ToolCallDelta(ToolCallDelta {
                    index,
                    arguments: "{}".to_string(),
                }));
            }
        }
        out.push(StreamChunk::ToolCallEnd(index));
    }

    /// Ends every open call, in call order.
    pub fn end_all(&mut self, out: &mut Vec<StreamChunk>) {
        for index in 0..self.calls.len() {
            self.end(u32::try_from(index).unwrap_or(u32::MAX), out);
        }
    }

    /// Whether the response called any tool.
    pub fn any(&self) -> bool {
        !self.calls.is_empty()
    }

    fn start(&mut self, index: u32, out: &mut Vec<StreamChunk>) {
        let Some(call) = self.call_mut(index) else {
            return;
        };
        if call.started {
            return;
        }
        call.started = true;
        if call.id.is_empty() {
            // The engine pairs results with calls by id, so it must exist.
            call.id = format!("call_{index}");
        }
        out.push(StreamChunk::ToolCallStart(ToolCallStart {
            index,
            id: call.id.clone(),
            name: call.name.clone(),
        }));
        let held = std::mem::take(&mut call.held);
        self.append(index, &held, out);
    }

    fn call(&self, index: u32) -> Option<&Call> {
        self.calls.get(usize::try_from(index).ok()?)
    }

    fn call_mut(&mut self, index: u32) -> Option<&mut Call> {
        self.calls.get_mut(usize::try_from(index).ok()?)
    }
}
