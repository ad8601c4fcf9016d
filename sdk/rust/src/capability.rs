//! One trait per capability kind. Only what cannot have a sensible default
//! is required.

use crate::{
    BlockSpec, Calls, ChatRequest, CommandNode, CommandRoot, ErrorClass, FlavorSpec, HttpRequest,
    LanguageSpec, RenderContext, StreamChunk, Symbol, ToolError, ToolOutput, ToolSpec,
};

/// Tools the model can call.
pub trait ToolPlugin {
    /// The tools, in the order the host installs them.
    fn tools(&self) -> Vec<ToolSpec>;

    /// Runs tool `name`. The host has already checked `args` against the
    /// tool's schema.
    fn call(&mut self, name: &str, args: serde_json::Value) -> Result<ToolOutput, ToolError>;
}

/// A wire dialect: shapes requests and decodes streams. The host owns HTTP
/// and the API key.
pub trait ProviderPlugin {
    fn flavors(&self) -> Vec<FlavorSpec>;

    fn build_request(&mut self, req: ChatRequest) -> Result<HttpRequest, String>;

    /// Starts decoding one stream of `flavor`.
    fn new_decoder(&mut self, flavor: &str) -> Box<dyn Decoder>;

    /// 429, 5xx and "overloaded" are retryable by default.
    fn classify_error(&mut self, _flavor: &str, status: u16, body: &str) -> ErrorClass {
        let overloaded = body.contains("overloaded");
        ErrorClass {
            retryable: status == 429 || status >= 500 || overloaded,
            message: body.chars().take(500).collect(),
        }
    }
}

/// One server-sent event: the host frames the stream and hands a decoder
/// batches of these (they cross the boundary packed, see `sse-batch`).
/// Both fields borrow from the batch, so an event costs no copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SseEvent<'a> {
    /// The `event:` name; None for unnamed events.
    pub event: Option<&'a str>,
    pub data: &'a str,
}

/// The events of one batch as the host packed them (see `sse-batch`),
/// each borrowed from the batch's text. A span outside the text, or a
/// short last quad (which the host never sends), is skipped rather than
/// trusted.
#[derive(Debug, Clone)]
pub struct SseEvents<'a> {
    text: &'a str,
    spans: std::slice::Iter<'a, [u32; 4]>,
}

impl<'a> SseEvents<'a> {
    /// The events of `text` at `spans`: four numbers an event, name start,
    /// name length, data start, data length; a name of length 0 is none.
    pub fn new(text: &'a str, spans: &'a [u32]) -> Self {
        SseEvents {
            text,
            spans: spans.as_chunks::<4>().0.iter(),
        }
    }

    fn slice(&self, start: u32, len: u32) -> Option<&'a str> {
        let start = start as usize;
        self.text.get(start..start.checked_add(len as usize)?)
    }
}

impl<'a> Iterator for SseEvents<'a> {
    type Item = SseEvent<'a>;

    fn next(&mut self) -> Option<SseEvent<'a>> {
        loop {
            let quad = self.spans.next()?;
            if let (Some(name), Some(data)) =
                (self.slice(quad[0], quad[1]), self.slice(quad[2], quad[3]))
            {
                return Some(SseEvent {
                    event: (!name.is_empty()).then_some(name),
                    data,
                });
            }
        }
    }
}

/// Pushes a text delta onto `out`, joined to the chunk before it when that
/// is text as well. Deltas decoded in one batch reach the host together
/// anyway, so nothing is lost, and the decoder saves a string per event.
/// Empty text pushes nothing.
pub fn push_text(out: &mut Vec<StreamChunk>, text: &str) {
    if text.is_empty() {
        return;
    }
    match out.last_mut() {
        Some(StreamChunk::TextDelta(last)) => last.push_str(text),
        _ => out.push(StreamChunk::TextDelta(text.to_string())),
    }
}

/// Decoding state for one stream.
pub trait Decoder {
    /// Decodes one event, pushing the chunks it yields onto `out`. The glue
    /// calls it for each event of a batch, in order, with the event borrowed
    /// from the batch, and joins adjacent text (and argument) deltas itself.
    fn event(&mut self, event: &SseEvent<'_>, out: &mut Vec<StreamChunk>);

    /// Decodes a batch of events in order. The glue calls this once per
    /// batch; the default calls [`Decoder::event`] for each, and since it
    /// is compiled for each decoder, that call is direct (and inlined)
    /// rather than one dynamic call per event. Rarely worth overriding.
    fn events(&mut self, events: SseEvents<'_>, out: &mut Vec<StreamChunk>) {
        for event in events {
            self.event(&event, out);
        }
    }

    /// The stream ended; flush anything buffered.
    fn finish(&mut self) -> Vec<StreamChunk> {
        Vec::new()
    }
}

/// Slash-command subtrees. [`CommandSpec`](crate::CommandSpec) builds a
/// subtree and gives both the root and the node list.
pub trait CommandPlugin {
    /// The roots this plugin serves (`git` for `/git …`).
    fn roots(&self) -> Vec<CommandRoot>;
    /// The subtree under `root` in pre-order, the root node first.
    fn spec(&mut self, root: &str) -> Vec<CommandNode>;
    /// Runs the node at `path`, which starts with the root (`["git",
    /// "status"]`); `arg` is the rest of the typed line. The `Err` text is
    /// shown to the user as the command's error.
    fn run(&mut self, path: Vec<String>, arg: &str) -> Result<String, String>;
}

/// Prompt blocks.
pub trait PromptPlugin {
    fn blocks(&self) -> Vec<BlockSpec>;
    /// An empty string omits the block.
    fn render(&mut self, block: &str, ctx: RenderContext) -> Result<String, String>;
}

/// Language parsers.
pub trait ParserPlugin {
    fn languages(&self) -> Vec<LanguageSpec>;
    fn outline(&mut self, language: &str, source: &str) -> Result<Vec<Symbol>, String>;
    /// The calls of `name` in `source`; a parser that stops early sets
    /// `incomplete` to the reason.
    fn references(&mut self, _language: &str, _source: &str, _name: &str) -> Result<Calls, String> {
        Ok(Calls {
            spans: Vec::new(),
            incomplete: None,
        })
    }
}
