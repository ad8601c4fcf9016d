//! Why a model call failed, typed at the port. The engine ends a run on
//! it with the cause kept, and a script reading `session.failed` can
//! branch on `kind` (wait on `rate_limited`, fix the key on `auth`)
//! without parsing the message, which is written for people.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelErrorKind {
    /// No key is set for the provider.
    MissingKey,
    /// The server refused the key (401 or 403).
    Auth,
    /// 429: too many requests, or a quota.
    RateLimited,
    /// A 5xx or overloaded answer, still failing after the retries.
    Server,
    /// Another refusal of the request itself (400, 404, 413, ...).
    Request,
    /// The server could not be reached.
    Connect,
    /// The server sent nothing for too long.
    Timeout,
    /// The stream broke off or could not be read.
    Stream,
    /// The provider reported an error inside the stream.
    Provider,
    /// The dialect plugin failed, or none serves the flavor.
    Dialect,
    /// The reply passed the size cap (`[wire] max_reply_mib`).
    ReplyTooLarge,
    /// Ctrl-C or a cancel token.
    Cancelled,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{message}")]
pub struct ModelError {
    pub kind: ModelErrorKind,
    /// The HTTP status, when the server answered with one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// True when the same request may succeed later.
    pub retryable: bool,
    /// How long the server asked to wait before trying again, when it said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
    /// What happened and what to do, for a person.
    pub message: String,
}

impl ModelError {
    /// An error of `kind` with its message and nothing else known.
    pub fn new(kind: ModelErrorKind, message: impl Into<String>) -> Self {
        ModelError {
            kind,
            status: None,
            retryable: false,
            retry_after_ms: None,
            message: message.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialises_for_scripts_without_empty_fields() {
        let mut e = ModelError::new(ModelErrorKind::RateLimited, "slow down");
        e.status = Some(429);
        e.retryable = true;
        let json = serde_json::to_value(&e).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"kind": "rate_limited", "status": 429, "retryable": true, "message": "slow down"})
        );
        assert_eq!(e.to_string(), "slow down");
    }
}
