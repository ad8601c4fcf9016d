//! The OpenAI responses dialect's decoder on any stream: no panic, and the
//! tool calls it reports keep the host's invariants.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let events = amber_fuzz::events(data);
    let decoder = amber_fuzz::responses_stream::ResponsesStream::default();
    let chunks = amber_fuzz::decode(decoder, &events);
    amber_fuzz::check_tool_calls(&chunks);
});
