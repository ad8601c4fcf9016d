//! What a model call costs: prices per million tokens, as the user sets
//! them in config (`[prices."provider/model"]`, docs/cost.md). amber ships
//! none: prices change, and a figure without its source and date is a
//! guess. Without a price a call's cost is unknown, never invented.

use serde::{Deserialize, Serialize};

use crate::Usage;

/// US dollars per million tokens of each kind.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Price {
    /// Input tokens read uncached.
    pub input: f64,
    pub output: f64,
    /// Input tokens read from the provider's prompt cache.
    pub cache_read: f64,
    /// Input tokens written to the prompt cache.
    pub cache_write: f64,
}

impl Price {
    /// The cost of `usage` in US dollars. amber's `input_tokens` counts
    /// the whole prompt, its cached and cache-written parts included (the
    /// dialects normalise it so), and reasoning tokens are output.
    pub fn cost(&self, usage: &Usage) -> f64 {
        let cached = usage.cached_input_tokens;
        let written = usage.cache_write_tokens;
        let plain = usage
            .input_tokens
            .saturating_sub(cached)
            .saturating_sub(written);
        (plain as f64 * self.input
            + cached as f64 * self.cache_read
            + written as f64 * self.cache_write
            + usage.output_tokens as f64 * self.output)
            / 1_000_000.0
    }
}

/// Adds `more` to `total`: a cost not known makes the total not known
/// (a sum that left a call out would be an invented figure).
pub fn add_cost(total: &mut Option<f64>, more: Option<f64>) {
    *total = match (*total, more) {
        (Some(a), Some(b)) => Some(a + b),
        _ => None,
    };
}

/// A cost as people read it: `$0.0123`, `$1.23`.
pub fn dollars(cost: f64) -> String {
    if cost < 1.0 {
        format!("${cost:.4}")
    } else {
        format!("${cost:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_token_is_priced_once() {
        let price = Price {
            input: 3.0,
            output: 15.0,
            cache_read: 0.3,
            cache_write: 3.75,
        };
        let usage = Usage {
            input_tokens: 10_000,
            output_tokens: 1_000,
            cached_input_tokens: 6_000,
            cache_write_tokens: 2_000,
            reasoning_tokens: 500,
        };
        // 2,000 plain × 3 + 6,000 × 0.3 + 2,000 × 3.75 + 1,000 × 15, per million.
        let expected = (6_000.0 + 1_800.0 + 7_500.0 + 15_000.0) / 1_000_000.0;
        assert!((price.cost(&usage) - expected).abs() < 1e-12);
        let mut total = Some(0.5);
        add_cost(&mut total, Some(0.25));
        assert_eq!(total, Some(0.75));
        add_cost(&mut total, None);
        assert_eq!(total, None);
        add_cost(&mut total, Some(1.0));
        assert_eq!(total, None);
        assert_eq!(dollars(0.01234), "$0.0123");
        assert_eq!(dollars(12.345), "$12.35");
    }
}
