//! The host's SSE framing (eventsource-stream over the HTTP body, as the
//! wire client frames it) on any bytes cut at any points: no panic, and
//! the events do not depend on where the network split the body.
#![no_main]

use eventsource_stream::Eventsource;
use futures_util::{stream, StreamExt};

/// The events of `pieces` as (event, data, id) triples, or the first error.
fn frame(pieces: Vec<Vec<u8>>) -> Result<Vec<(String, String, String)>, String> {
    let body = stream::iter(pieces.into_iter().map(Ok::<_, std::io::Error>));
    futures_executor::block_on(async {
        let mut events = body.eventsource();
        let mut out = Vec::new();
        while let Some(event) = events.next().await {
            let event = event.map_err(|e| e.to_string())?;
            out.push((event.event, event.data, event.id));
        }
        Ok(out)
    })
}

libfuzzer_sys::fuzz_target!(|input: (Vec<u8>, Vec<u16>)| {
    let (body, cuts) = input;
    let mut cuts: Vec<usize> = cuts
        .iter()
        .map(|c| usize::from(*c) % (body.len() + 1))
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut pieces = Vec::new();
    let mut at = 0;
    for cut in cuts {
        pieces.push(body[at..cut].to_vec());
        at = cut;
    }
    pieces.push(body[at..].to_vec());
    let whole = frame(vec![body.clone()]);
    let split = frame(pieces);
    // A body that frames whole frames the same however TCP cut it: a
    // multi-byte character split across two reads included.
    if let Ok(whole) = whole {
        assert_eq!(
            Ok(whole),
            split,
            "the events depend on where the body was cut"
        );
    }
});
