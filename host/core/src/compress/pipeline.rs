//! amber's compressor: the seed's "Compression pipeline", every arrow.
//!
//! It reads the snapshot (the live context is untouched: the agent alone
//! changes it, and only with what this returns), collapses tool-call
//! loops, asks the model to classify the segments, then asks it to
//! extract memories and skills in a request that replays the classify
//! request byte for byte and appends only the extract instruction, so the
//! provider's prompt cache (or a local server's KV cache) serves the
//! second from the first. It then applies the classification and enforces
//! headroom. Both requests ask for JSON in plain text, with no tools and no
//! response format, so nothing differs in the shared prefix; both mark its
//! end with `cache_breakpoint`.

use std::sync::Arc;
use std::time::Duration;

use super::collapse::collapse;
use super::headroom;
use super::parse;
use super::prompts::{self, Prompt};
use super::render::transcript;
use super::segment::{segment, Segment};
use super::tokens;
use crate::context::ContextSnapshot;
use crate::ports::compression::{
    CompressionError, CompressionResult, CompressionStats, Compressor, Stage,
};
use crate::ports::dialect::{ChatRequest, Message, Role, StreamChunk, Usage};
use crate::ports::{BoxFuture, ModelClient};

/// The share of the window a compressed context may use
/// (`agent.compress_target`).
pub const DEFAULT_TARGET: f64 = 0.5;

/// How long one of the two requests may take.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// What the compressor needs to know of the model it talks to.
#[derive(Debug, Clone, PartialEq)]
pub struct CompressorSettings {
    pub flavor: String,
    pub model: String,
    /// The model's context window in tokens (0: unknown, then only
    /// segments labelled prune are dropped).
    pub window: u64,
    /// The share of the window the compressed set may use, in (0, 1].
    pub target: f64,
    /// The cap on each reply, as the agent's turns have it.
    pub max_tokens: Option<u32>,
    pub timeout: Duration,
}

impl CompressorSettings {
    pub fn new(flavor: impl Into<String>, model: impl Into<String>, window: u64) -> Self {
        CompressorSettings {
            flavor: flavor.into(),
            model: model.into(),
            window,
            target: DEFAULT_TARGET,
            max_tokens: None,
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// The most tokens the compressed set may cost.
    pub fn target_tokens(&self) -> u64 {
        if self.window == 0 {
            return u64::MAX;
        }
        (self.window as f64 * self.target.clamp(0.0, 1.0)).floor() as u64
    }
}

/// The two requests of one cycle; `extract` starts with every message of
/// `classify`, in order, and adds one.
struct Requests {
    classify: ChatRequest,
    extract: ChatRequest,
}

/// The compression pipeline over a model client.
pub struct ModelCompressor {
    model: Arc<dyn ModelClient>,
    settings: CompressorSettings,
    /// What its calls spent since [`Compressor::take_spent`].
    spent: std::sync::Mutex<Usage>,
}

impl ModelCompressor {
    pub fn new(model: Arc<dyn ModelClient>, settings: CompressorSettings) -> Self {
        ModelCompressor {
            model,
            settings,
            spent: std::sync::Mutex::new(Usage::default()),
        }
    }

    /// The classify and extract requests for these segments.
    fn requests(
        &self,
        segments: &[Segment],
        focus: Option<&str>,
        classify_prompt: &Prompt,
        extract_prompt: &Prompt,
    ) -> Requests {
        let mut instruction = classify_prompt.text.to_string();
        if let Some(focus) = focus.map(str::trim).filter(|f| !f.is_empty()) {
            instruction.push_str(&format!(
                "\n\nThe user asked to keep the compacted context focused on: {focus}\n\
                 Label what serves that core, and what does not context or prune."
            ));
        }
        let messages = vec![
            Message::text(Role::System, prompts::SYSTEM),
            Message::text(
                Role::User,
                format!("<transcript>\n{}</transcript>", transcript(segments)),
            ),
            Message::text(Role::User, instruction),
        ];
        // The last message both requests share.
        let shared = (messages.len() - 1) as u32;
        let classify = ChatRequest {
            flavor: self.settings.flavor.clone(),
            model: self.settings.model.clone(),
            messages,
            tools: Vec::new(),
            max_tokens: self.settings.max_tokens,
            temperature: None,
            cache_breakpoint: Some(shared),
        };
        let mut extract = classify.clone();
        extract
            .messages
            .push(Message::text(Role::User, extract_prompt.text));
        Requests { classify, extract }
    }

    /// One of the two requests: its reply's text, within the timeout; what
    /// it spent is counted whatever comes of the cycle.
    async fn ask(&self, stage: Stage, request: ChatRequest) -> Result<String, CompressionError> {
        // Nothing of a compression cycle is streamed to the user.
        let mut ignore = |_: &StreamChunk| {};
        match tokio::time::timeout(
            self.settings.timeout,
            self.model.stream(request, &mut ignore),
        )
        .await
        {
            Err(_) => Err(CompressionError::Timeout {
                stage,
                secs: self.settings.timeout.as_secs(),
            }),
            Ok(Err(source)) => Err(CompressionError::Model { stage, source }),
            Ok(Ok(reply)) => {
                self.spent
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .add(&reply.usage);
                Ok(reply.text)
            }
        }
    }

    async fn run(
        &self,
        snapshot: &ContextSnapshot,
        focus: Option<&str>,
    ) -> Result<CompressionResult, CompressionError> {
        let segmented = segment(&snapshot.messages);
        let tokens_before = segmented.tokens();
        if segmented.segments.is_empty() {
            return Ok(CompressionResult {
                messages: snapshot.messages.clone(),
                memory_ops: Vec::new(),
                skill_ops: Vec::new(),
                stats: CompressionStats {
                    tokens_before,
                    tokens_after: tokens_before,
                    ..CompressionStats::default()
                },
            });
        }
        let system = segmented.system;
        let collapsed = collapse(segmented.segments);
        let segments = collapsed.segments;

        let classify_prompt = prompts::classify().map_err(built_in)?;
        let extract_prompt = prompts::extract().map_err(built_in)?;
        let requests = self.requests(&segments, focus, classify_prompt, extract_prompt);
        let reply = self.ask(Stage::Classify, requests.classify).await?;
        let classification = parse::classification(&reply, classify_prompt)?;
        let reply = self.ask(Stage::Extract, requests.extract).await?;
        let extraction = parse::extraction(&reply, extract_prompt)?;

        let labels = headroom::resolve(&segments, &classification.labels());
        let summary = classification.summary.as_deref();
        // The note's cost with the most segments it could name: the real
        // count has no more digits.
        let note_cost = tokens::estimate(&note(segments.len(), summary));
        let fixed = system.as_ref().map_or(0, tokens::estimate);
        let plan = headroom::enforce(
            &segments,
            &labels,
            fixed,
            note_cost,
            self.settings.target_tokens(),
        )
        .map_err(|over| CompressionError::OverTarget {
            tokens: over.tokens,
            target: over.target,
            percent: (self.settings.target * 100.0).round() as u32,
        })?;

        let kept = plan.keep.iter().filter(|k| **k).count();
        let mut messages: Vec<Message> = system.into_iter().collect();
        let mut tokens_after = plan.tokens;
        if plan.pruned > 0 {
            let note = note(plan.pruned, summary);
            // The plan paid for the longest note; this one may be shorter.
            tokens_after = tokens_after - note_cost + tokens::estimate(&note);
            messages.push(note);
        }
        for (segment, keep) in segments.into_iter().zip(&plan.keep) {
            if *keep {
                messages.extend(segment.into_messages());
            }
        }
        Ok(CompressionResult {
            messages,
            memory_ops: extraction.memories,
            skill_ops: extraction.skills,
            stats: CompressionStats {
                tokens_before,
                tokens_after,
                kept,
                collapsed: collapsed.collapsed,
                pruned: plan.pruned,
            },
        })
    }
}

impl Compressor for ModelCompressor {
    fn compress<'a>(
        &'a self,
        snapshot: &'a ContextSnapshot,
        focus: Option<&'a str>,
    ) -> BoxFuture<'a, Result<CompressionResult, CompressionError>> {
        Box::pin(self.run(snapshot, focus))
    }

    fn take_spent(&self) -> Usage {
        std::mem::take(&mut *self.spent.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

fn built_in(reason: prompts::BrokenPrompt) -> CompressionError {
    CompressionError::Invalid(format!(
        "amber's built-in compression prompt is broken: {reason}"
    ))
}

/// The note that opens a compacted context when segments were dropped: how
/// many, and the model's summary of what was not core.
fn note(dropped: usize, summary: Option<&str>) -> Message {
    let (segments, were) = if dropped == 1 {
        ("segment", "was")
    } else {
        ("segments", "were")
    };
    let mut text = format!(
        "[amber] This conversation was compacted to fit the model's context window: \
         {dropped} earlier {segments} of it {were} removed."
    );
    if let Some(summary) = summary.map(str::trim).filter(|s| !s.is_empty()) {
        text.push_str("\n\nWhat the compacted part held, in brief:\n");
        text.push_str(summary);
    }
    Message::text(Role::User, text)
}

/// A small fake of the ModelClient port for the compression tests here and
/// the engine's: scripted replies, each with the same usage, and every
/// request it was sent. Past its replies it fails as an overloaded server
/// would.
#[cfg(test)]
pub(crate) mod fake {
    use std::collections::VecDeque;
    use std::sync::Mutex;

    use crate::ports::dialect::{ChatRequest, ModelReply, StreamChunk, ToolCall, Usage};
    use crate::ports::{BoxFuture, ModelClient, ModelError, ModelErrorKind};

    pub enum Reply {
        Text(String),
        /// Text after reasoning (an encrypted item, as Responses sends).
        Thought(String, crate::ports::dialect::Reasoning),
        Calls(Vec<ToolCall>),
        Fail(ModelErrorKind),
        /// Never answers.
        Hang,
    }

    pub fn text(t: &str) -> Reply {
        Reply::Text(t.to_string())
    }

    pub struct FakeModel {
        replies: Mutex<VecDeque<Reply>>,
        usage: Usage,
        pub sent: Mutex<Vec<ChatRequest>>,
    }

    impl FakeModel {
        /// Replies in order, each reporting `input_tokens` as counted.
        pub fn new(replies: Vec<Reply>, input_tokens: u64) -> Self {
            FakeModel {
                replies: Mutex::new(replies.into()),
                usage: Usage {
                    input_tokens,
                    ..Usage::default()
                },
                sent: Mutex::new(Vec::new()),
            }
        }

        pub fn sent(&self) -> Vec<ChatRequest> {
            self.sent.lock().unwrap().clone()
        }
    }

    impl ModelClient for FakeModel {
        fn stream<'a>(
            &'a self,
            request: ChatRequest,
            on_chunk: &'a mut (dyn FnMut(&StreamChunk) + Send),
        ) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
            Box::pin(async move {
                self.sent.lock().unwrap().push(request);
                let next = self.replies.lock().unwrap().pop_front();
                let reply = match next {
                    None => return Err(ModelError::new(ModelErrorKind::Server, "overloaded")),
                    Some(Reply::Fail(kind)) => {
                        return Err(ModelError::new(kind, "the server said 500"))
                    }
                    Some(Reply::Hang) => std::future::pending().await,
                    Some(Reply::Text(text)) => {
                        on_chunk(&StreamChunk::TextDelta(text.clone()));
                        ModelReply {
                            text,
                            ..ModelReply::default()
                        }
                    }
                    Some(Reply::Calls(tool_calls)) => ModelReply {
                        tool_calls,
                        ..ModelReply::default()
                    },
                    Some(Reply::Thought(text, reasoning)) => ModelReply {
                        text,
                        reasoning: vec![reasoning],
                        ..ModelReply::default()
                    },
                };
                Ok(ModelReply {
                    usage: self.usage,
                    ..reply
                })
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fake::{text, FakeModel, Reply};
    use super::*;
    use crate::compress::segment::tests::{assistant, call, result};
    use crate::context::ContextChain;
    use crate::ports::dialect::Part;
    use crate::ports::{MemoryKind, ModelErrorKind};

    const EXTRACT_NOTHING: &str = "{\"memories\": [], \"skills\": []}";

    fn snapshot(messages: Vec<Message>) -> ContextSnapshot {
        let mut chain = ContextChain::new();
        messages.into_iter().for_each(|m| {
            chain.push(m);
        });
        chain.snapshot()
    }

    /// system; 1 user; 2..=6 a five-read loop (→ one); 7 assistant text;
    /// 8 user; 9 an edit with its result.
    fn session() -> Vec<Message> {
        let mut history = vec![
            Message::text(Role::System, "sys"),
            Message::text(Role::User, "find the bug in src/lib.rs"),
        ];
        for i in 0..5 {
            let id = format!("r{i}");
            history.push(assistant(vec![call(
                &id,
                "read_file",
                &format!("{{\"path\":\"src/lib.rs\",\"offset\":{i}}}"),
            )]));
            history.push(result(&id, &"file text ".repeat(50)));
        }
        history.push(Message::text(Role::Assistant, "It is in parse_args."));
        history.push(Message::text(Role::User, "fix it"));
        history.push(assistant(vec![call(
            "e",
            "edit_file",
            "{\"path\":\"src/lib.rs\",\"old_string\":\"a\",\"new_string\":\"b\"}",
        )]));
        history.push(result("e", "diff"));
        history
    }

    fn compressor(model: Arc<FakeModel>, window: u64) -> ModelCompressor {
        ModelCompressor::new(model, CompressorSettings::new("openai-chat", "m", window))
    }

    #[tokio::test]
    async fn a_cycle_collapses_classifies_extracts_and_drops_what_it_may() {
        let history = session();
        let model = Arc::new(FakeModel::new(
            vec![
                // After collapse: 1 user, 2 the read (last of five), 3 the
                // answer, 4 user, 5 the edit.
                text("```json\n{\"core\": [1, 3], \"prune\": [2], \"summary\": \"Read src/lib.rs.\"}\n```"),
                text("{\"memories\": [{\"type\": \"gotcha\", \"title\": \"parse_args\", \"content\": \"parse_args drops the last flag\"}], \"skills\": []}"),
            ],
            0,
        ));
        let result = compressor(model.clone(), 100_000)
            .compress(&snapshot(history.clone()), None)
            .await
            .unwrap();
        assert_eq!(result.stats.collapsed, 4);
        assert_eq!(result.stats.pruned, 1);
        assert_eq!(result.stats.kept, 4);
        assert_eq!(result.stats.tokens_before, tokens::estimate_all(&history));
        assert_eq!(
            result.stats.tokens_after,
            tokens::estimate_all(&result.messages)
        );
        assert!(result.stats.tokens_after < result.stats.tokens_before);
        let mut expected = vec![
            history[0].clone(),
            Message::text(
                Role::User,
                "[amber] This conversation was compacted to fit the model's context window: \
                 1 earlier segment of it was removed.\n\nWhat the compacted part held, in brief:\nRead src/lib.rs.",
            ),
        ];
        expected.extend(history[1..2].iter().cloned());
        expected.extend(history[12..].iter().cloned());
        assert_eq!(result.messages, expected);
        assert_eq!(result.memory_ops.len(), 1);
        assert_eq!(result.memory_ops[0].kind, MemoryKind::Gotcha);
        assert!(result.skill_ops.is_empty());
        // The live context is not the compressor's to change: it only
        // read a snapshot. Two requests went out.
        assert_eq!(model.sent().len(), 2);
    }

    #[tokio::test]
    async fn the_extract_request_replays_the_classify_request_byte_for_byte() {
        let model = Arc::new(FakeModel::new(
            vec![text("{\"context\": []}"), text(EXTRACT_NOTHING)],
            0,
        ));
        compressor(model.clone(), 100_000)
            .compress(&snapshot(session()), Some("the parser"))
            .await
            .unwrap();
        let sent = model.sent();
        let (classify, extract) = (&sent[0], &sent[1]);
        let n = classify.messages.len();
        assert_eq!(extract.messages.len(), n + 1);
        assert_eq!(
            serde_json::to_string(&extract.messages[..n]).unwrap(),
            serde_json::to_string(&classify.messages).unwrap()
        );
        // The same tools (none), format and settings, and the same mark on
        // the last shared message.
        let without_messages = |r: &ChatRequest| ChatRequest {
            messages: Vec::new(),
            ..r.clone()
        };
        assert_eq!(without_messages(classify), without_messages(extract));
        assert_eq!(classify.cache_breakpoint, Some(n as u32 - 1));
        assert!(classify.tools.is_empty());
        // Only the extract instruction is new.
        assert_eq!(
            extract.messages[n],
            Message::text(Role::User, prompts::extract().unwrap().text)
        );
        // The focus words are in the shared part.
        let Part::Text { text } = &classify.messages[n - 1].parts[0] else {
            panic!("not text")
        };
        assert!(text.ends_with("focused on: the parser\nLabel what serves that core, and what does not context or prune."));
    }

    #[tokio::test]
    async fn a_malformed_classify_reply_fails_before_the_extract_request() {
        let model = Arc::new(FakeModel::new(vec![text("Sure, here: {core: 1,2}")], 0));
        let err = compressor(model.clone(), 100_000)
            .compress(&snapshot(session()), None)
            .await
            .unwrap_err();
        assert!(
            matches!(
                err,
                CompressionError::Parse {
                    stage: Stage::Classify,
                    ..
                }
            ),
            "{err:?}"
        );
        assert_eq!(model.sent().len(), 1);
    }

    #[tokio::test]
    async fn an_extract_request_that_fails_fails_the_cycle() {
        let model = Arc::new(FakeModel::new(
            vec![text("{\"core\": [1]}"), Reply::Fail(ModelErrorKind::Server)],
            0,
        ));
        let err = compressor(model, 100_000)
            .compress(&snapshot(session()), None)
            .await
            .unwrap_err();
        assert!(
            matches!(&err, CompressionError::Model { stage: Stage::Extract, source } if source.kind == ModelErrorKind::Server),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "the extract request failed: the server said 500"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_request_that_never_answers_times_out() {
        let model = Arc::new(FakeModel::new(vec![Reply::Hang], 0));
        let mut settings = CompressorSettings::new("openai-chat", "m", 100_000);
        settings.timeout = Duration::from_secs(30);
        let err = ModelCompressor::new(model, settings)
            .compress(&snapshot(session()), None)
            .await
            .unwrap_err();
        assert_eq!(
            err,
            CompressionError::Timeout {
                stage: Stage::Classify,
                secs: 30
            }
        );
    }

    #[tokio::test]
    async fn a_set_still_over_the_target_fails() {
        let history = session();
        // Everything core, in a window whose half cannot hold it even
        // collapsed.
        let window = tokens::estimate_all(&history) / 4;
        let model = Arc::new(FakeModel::new(
            vec![text("{\"core\": [1, 2, 3, 4, 5]}"), text(EXTRACT_NOTHING)],
            0,
        ));
        let err = compressor(model, window)
            .compress(&snapshot(history), None)
            .await
            .unwrap_err();
        match err {
            CompressionError::OverTarget {
                tokens,
                target,
                percent,
            } => {
                assert_eq!(target, window / 2);
                assert!(tokens > target);
                assert_eq!(percent, 50);
            }
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn a_history_with_only_its_system_message_asks_nothing() {
        let model = Arc::new(FakeModel::new(Vec::new(), 0));
        let history = vec![Message::text(Role::System, "sys")];
        let result = compressor(model.clone(), 100)
            .compress(&snapshot(history.clone()), None)
            .await
            .unwrap();
        assert_eq!(result.messages, history);
        assert!(model.sent().is_empty());
    }

    #[test]
    fn the_target_is_a_share_of_the_window_and_unbounded_without_one() {
        let mut settings = CompressorSettings::new("f", "m", 1000);
        assert_eq!(settings.target_tokens(), 500);
        settings.target = 0.8;
        assert_eq!(settings.target_tokens(), 800);
        settings.window = 0;
        assert_eq!(settings.target_tokens(), u64::MAX);
    }
}
