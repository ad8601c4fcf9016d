//! The OpenAI chat dialect's decoder on any stream: no panic, and the tool
//! calls it reports keep the host's invariants (`check_tool_calls`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let events = amber_fuzz::events(data);
    let chunks = amber_fuzz::decode(amber_fuzz::chat_stream::ChatStream::default(), &events);
    amber_fuzz::check_tool_calls(&chunks);
});
