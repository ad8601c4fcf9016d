//! What a session spent, turn by turn (docs/cost.md): `/cost` and `amber
//! sessions show` print one table, made here. The totals at each head are
//! recorded in the session; a turn's own is the difference from the head
//! before. A cost not known (a call without a price) shows as `—`, never
//! as a guess.

use std::fmt::Write;

use amber_core::engine::dollars;
use amber_core::ports::dialect::Usage;
use serde_json::{json, Value};

/// Each turn's own tokens and cost: the difference between its head's
/// totals and the one before.
pub fn per_turn(heads: &[(Usage, Option<f64>)]) -> Vec<(Usage, Option<f64>)> {
    let mut before = (Usage::default(), Some(0.0));
    heads
        .iter()
        .map(|(usage, cost)| {
            let own = Usage {
                input_tokens: usage.input_tokens.saturating_sub(before.0.input_tokens),
                output_tokens: usage.output_tokens.saturating_sub(before.0.output_tokens),
                cached_input_tokens: usage
                    .cached_input_tokens
                    .saturating_sub(before.0.cached_input_tokens),
                cache_write_tokens: usage
                    .cache_write_tokens
                    .saturating_sub(before.0.cache_write_tokens),
                reasoning_tokens: usage
                    .reasoning_tokens
                    .saturating_sub(before.0.reasoning_tokens),
            };
            let cost_now = match (cost, before.1) {
                (Some(now), Some(then)) => Some((now - then).max(0.0)),
                _ => None,
            };
            before = (*usage, *cost);
            (own, cost_now)
        })
        .collect()
}

fn shown(cost: Option<f64>) -> String {
    cost.map_or_else(|| "—".to_string(), dollars)
}

/// The table: one row per turn, then the session's totals. `unpriced`
/// names the model without a price, when there is one, and how to set it.
pub fn table(heads: &[(Usage, Option<f64>)], unpriced: Option<&str>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "turn        in    cached       out   cost");
    for (i, (usage, cost)) in per_turn(heads).iter().enumerate() {
        let _ = writeln!(
            out,
            "{:>4}  {:>8}  {:>8}  {:>8}   {}",
            i + 1,
            usage.input_tokens,
            usage.cached_input_tokens,
            usage.output_tokens,
            shown(*cost)
        );
    }
    let (total, cost) = heads
        .last()
        .copied()
        .unwrap_or((Usage::default(), Some(0.0)));
    let _ = writeln!(
        out,
        "total {:>8}  {:>8}  {:>8}   {}",
        total.input_tokens,
        total.cached_input_tokens,
        total.output_tokens,
        shown(cost)
    );
    if let Some(model) = unpriced {
        let _ = writeln!(
            out,
            "no price for {model}: costs show as — (set [prices.\"{model}\"] in config; docs/cost.md)"
        );
    }
    out
}

/// The same as data, for `--json` and `/cost`'s attached data.
pub fn data(heads: &[(Usage, Option<f64>)]) -> Value {
    let turns: Vec<Value> = per_turn(heads)
        .into_iter()
        .enumerate()
        .map(|(i, (usage, cost))| json!({"turn": i + 1, "usage": usage, "cost_usd": cost}))
        .collect();
    let (usage, cost) = heads
        .last()
        .copied()
        .unwrap_or((Usage::default(), Some(0.0)));
    json!({"turns": turns, "usage": usage, "cost_usd": cost})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn totals(input: u64, cost: Option<f64>) -> (Usage, Option<f64>) {
        (
            Usage {
                input_tokens: input,
                ..Usage::default()
            },
            cost,
        )
    }

    #[test]
    fn a_turn_is_the_difference_from_the_head_before_and_unknown_stays_unknown() {
        let heads = [
            totals(100, Some(0.01)),
            totals(250, Some(0.04)),
            totals(300, None),
        ];
        let turns = per_turn(&heads);
        assert_eq!(turns[1].0.input_tokens, 150);
        assert!((turns[1].1.unwrap() - 0.03).abs() < 1e-12);
        assert_eq!(turns[2].1, None);
        let text = table(&heads, Some("openai/gpt-4.1"));
        assert!(text.contains("   2       150"), "{text}");
        assert!(text.contains("total      300"), "{text}");
        assert!(text.contains("no price for openai/gpt-4.1"), "{text}");
    }
}
