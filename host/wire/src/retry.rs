//! Exponential backoff with jitter, honouring `Retry-After`.

use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included.
    pub max_attempts: u32,
    pub base_delay: Duration,
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 4,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
        }
    }
}

/// A cheap jitter source; retries need spread, not cryptography.
fn jitter_fraction() -> f64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let mut x = u64::from(nanos) ^ 0x9E37_79B9_7F4A_7C15;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    (x % 1000) as f64 / 1000.0
}

impl RetryPolicy {
    /// The wait before attempt `attempt + 1` (attempt counts from 1).
    /// A server's `Retry-After` wins, capped at `max_delay`; otherwise
    /// base · 2^(attempt-1), with up to half of it as jitter.
    pub fn delay(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(after) = retry_after {
            return after.min(self.max_delay);
        }
        let exp = self
            .base_delay
            .saturating_mul(1u32 << attempt.saturating_sub(1).min(16));
        let capped = exp.min(self.max_delay);
        capped.mul_f64(0.5 + 0.5 * jitter_fraction())
    }
}

/// Parses a `Retry-After` value: seconds, or an HTTP date (the wait until
/// it from `now`; a date past is no wait).
pub fn parse_retry_after(value: &str, now: std::time::SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Some(seconds) = seconds(value) {
        return Some(Duration::from_secs_f64(seconds));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or_default())
}

/// Parses `retry-after-ms`, which OpenAI and Anthropic send beside
/// `retry-after` with a finer wait.
pub fn parse_retry_after_ms(value: &str) -> Option<Duration> {
    seconds(value.trim()).map(|ms| Duration::from_secs_f64(ms / 1000.0))
}

/// A finite, non-negative number, bounded to a day so no header can make
/// a Duration overflow.
fn seconds(value: &str) -> Option<f64> {
    value
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(|s| s.min(86_400_000.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_is_capped_and_jittered_below_the_step() {
        let p = RetryPolicy {
            max_attempts: 5,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(350),
        };
        let d1 = p.delay(1, None);
        assert!(
            d1 >= Duration::from_millis(50) && d1 <= Duration::from_millis(100),
            "{d1:?}"
        );
        let d3 = p.delay(3, None);
        assert!(d3 <= Duration::from_millis(350), "{d3:?}");
    }

    #[test]
    fn retry_after_wins_but_is_capped() {
        let p = RetryPolicy::default();
        assert_eq!(
            p.delay(1, Some(Duration::from_secs(2))),
            Duration::from_secs(2)
        );
        assert_eq!(p.delay(1, Some(Duration::from_secs(3600))), p.max_delay);
    }

    #[test]
    fn retry_after_is_read_as_seconds_a_date_or_milliseconds() {
        let now = httpdate::parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT").unwrap();
        assert_eq!(
            parse_retry_after("1.5", now),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:30 GMT", now),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:00:00 GMT", now),
            Some(Duration::ZERO),
            "a date past is no wait"
        );
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("-3", now), None);
        assert_eq!(
            parse_retry_after_ms("250"),
            Some(Duration::from_millis(250))
        );
        assert!(
            parse_retry_after("1e300", now).is_some(),
            "huge values do not overflow"
        );
    }
}
