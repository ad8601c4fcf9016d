//! Engine I: the context hash chain. `push` (canonical bytes + a blake3
//! link) against a bare blake3 of the same bytes, and verifying a chain of
//! 100k messages.

use std::time::Instant;

use amber_core::context::{canonical, verify, ContextChain, GENESIS};
use amber_core::ports::dialect::{Message, Part, Role};
use anyhow::Result;

use crate::measure::{median, per_call_us, Figure, Rows};

fn message(i: usize) -> Message {
    let text = format!("message {i}: please read src/lib.rs and tell me what the function `parse_config` does with empty input.");
    Message {
        role: if i.is_multiple_of(2) {
            Role::User
        } else {
            Role::Assistant
        },
        parts: vec![Part::Text { text }],
    }
}

pub fn run(rows: &mut Rows) -> Result<()> {
    let sample = message(7);
    let mut chain = ContextChain::new();
    let push = per_call_us(31, 2000, || {
        if chain.len() >= 10_000 {
            chain.clear();
        }
        std::hint::black_box(chain.push(sample.clone()));
    });
    let bytes = canonical(&sample);
    let bare = per_call_us(31, 2000, || {
        let mut hasher = blake3::Hasher::new();
        hasher.update(&GENESIS);
        hasher.update(&bytes);
        std::hint::black_box(hasher.finalize());
    });
    rows.push(
        Figure {
            name: "context_push",
            unit: "us",
            value: push,
            baseline: Some(("bare_blake3_same_bytes", bare)),
            goal_value: Some(1.0),
            goal_ratio: None,
        }
        .row(),
    )?;

    let mut long = ContextChain::new();
    for i in 0..100_000 {
        long.push(message(i));
    }
    let (messages, hashes) = (long.get_all().to_vec(), long.hashes().to_vec());
    let times: Vec<f64> = (0..5)
        .map(|_| {
            let start = Instant::now();
            verify(&messages, &hashes).expect("the chain verifies");
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    rows.push(
        Figure {
            name: "context_verify_100k",
            unit: "ms",
            value: median(times),
            baseline: None,
            goal_value: Some(50.0),
            goal_ratio: None,
        }
        .row(),
    )
}
