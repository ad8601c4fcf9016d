//! The typed errors of the wire. Each says what happened and, where the
//! user can fix it, what to do.

use amber_core::ports::{ModelError, ModelErrorKind};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApiError {
    #[error("no API key: set {key_env} (provider `{provider}`)")]
    MissingKey { provider: String, key_env: String },
    #[error("{provider} refused the request ({message}); check {key_env}")]
    Auth {
        provider: String,
        status: u16,
        message: String,
        key_env: String,
    },
    #[error("{provider} failed after {}: {message}", amber_core::text::count(*.attempts as usize, "attempt"))]
    Http {
        provider: String,
        status: u16,
        message: String,
        retryable: bool,
        attempts: u32,
        /// What the server's `retry-after-ms` or `Retry-After` asked for.
        retry_after_ms: Option<u64>,
    },
    #[error("cannot reach {provider} at {url}: {reason}")]
    Connect {
        provider: String,
        url: String,
        reason: String,
        /// False when the request could not even be built (a base URL
        /// without a scheme): trying again cannot help.
        retryable: bool,
    },
    #[error("{provider} sent nothing for {ms} ms {phase}")]
    Timeout {
        provider: String,
        phase: String,
        ms: u128,
    },
    #[error("the stream from {provider} broke off: {reason}")]
    Stream { provider: String, reason: String },
    #[error("{provider} reported an error in the stream: {kind}: {message}")]
    Provider {
        provider: String,
        kind: String,
        message: String,
        retryable: bool,
    },
    #[error("the {flavor} dialect failed: {message}")]
    Dialect { flavor: String, message: String },
    #[error(
        "no dialect serves flavor `{flavor}`: is its provider plugin disabled? (see `amber plugin list`)"
    )]
    NoDialect { flavor: String },
    #[error(
        "providers.{preset}.flavor: no dialect serves flavor `{flavor}` (the installed ones serve: {served}; a provider plugin adds more)"
    )]
    UnknownFlavor {
        preset: String,
        flavor: String,
        served: String,
    },
    #[error("the reply from {provider} passed {limit_mib} MiB and was stopped there ([wire] max_reply_mib)")]
    ReplyTooLarge { provider: String, limit_mib: u64 },
    #[error("cancelled")]
    Cancelled,
}

/// An error and every cause under it, joined: reqwest's own message says
/// "error sending request" and leaves "connection refused", the DNS
/// failure or the TLS reason to its sources.
pub fn with_causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

impl ApiError {
    /// The error of a retryable response whose server asks for a longer
    /// wait than amber will sleep: trying sooner would only be refused
    /// again, so the caller gives up and says how long to wait.
    pub fn asked_to_wait(self, wait: std::time::Duration, limit: std::time::Duration) -> Self {
        match self {
            ApiError::Http {
                provider,
                status,
                message,
                retryable,
                attempts,
                retry_after_ms,
            } => ApiError::Http {
                provider,
                status,
                message: format!(
                    "{message} (the server asks to wait {:.0} s before trying again, longer than amber waits between attempts, {:.0} s)",
                    wait.as_secs_f64().ceil(),
                    limit.as_secs_f64()
                ),
                retryable,
                attempts,
                retry_after_ms,
            },
            other => other,
        }
    }

    /// True when trying again may succeed.
    pub fn is_retryable(&self) -> bool {
        match self {
            ApiError::Http { retryable, .. } | ApiError::Provider { retryable, .. } => *retryable,
            ApiError::Connect { retryable, .. } => *retryable,
            ApiError::Timeout { .. } | ApiError::Stream { .. } => true,
            _ => false,
        }
    }
}

/// The engine's view of a failed call: the kind a script branches on,
/// with this error's message for people.
impl From<ApiError> for ModelError {
    fn from(e: ApiError) -> Self {
        let retryable = e.is_retryable();
        let (kind, status, retry_after_ms) = match &e {
            ApiError::MissingKey { .. } => (ModelErrorKind::MissingKey, None, None),
            ApiError::Auth { status, .. } => (ModelErrorKind::Auth, Some(*status), None),
            ApiError::Http {
                status,
                retry_after_ms,
                ..
            } => {
                let kind = match status {
                    429 => ModelErrorKind::RateLimited,
                    s if *s >= 500 => ModelErrorKind::Server,
                    _ => ModelErrorKind::Request,
                };
                (kind, Some(*status), *retry_after_ms)
            }
            ApiError::Connect { .. } => (ModelErrorKind::Connect, None, None),
            ApiError::Timeout { .. } => (ModelErrorKind::Timeout, None, None),
            ApiError::Stream { .. } => (ModelErrorKind::Stream, None, None),
            ApiError::Provider { .. } => (ModelErrorKind::Provider, None, None),
            ApiError::Dialect { .. }
            | ApiError::NoDialect { .. }
            | ApiError::UnknownFlavor { .. } => (ModelErrorKind::Dialect, None, None),
            ApiError::ReplyTooLarge { .. } => (ModelErrorKind::ReplyTooLarge, None, None),
            ApiError::Cancelled => (ModelErrorKind::Cancelled, None, None),
        };
        ModelError {
            kind,
            status,
            retryable,
            retry_after_ms,
            message: e.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn http(status: u16, retryable: bool, retry_after_ms: Option<u64>) -> ApiError {
        ApiError::Http {
            provider: "openai".into(),
            status,
            message: "refused".into(),
            retryable,
            attempts: 1,
            retry_after_ms,
        }
    }

    #[test]
    fn the_engine_sees_each_failure_as_its_kind() {
        let e = ModelError::from(http(429, true, Some(2500)));
        assert_eq!(
            (e.kind, e.status, e.retryable, e.retry_after_ms),
            (ModelErrorKind::RateLimited, Some(429), true, Some(2500))
        );
        assert_eq!(e.message, "openai failed after 1 attempt: refused");
        let kind = |e: ApiError| ModelError::from(e).kind;
        assert_eq!(kind(http(503, true, None)), ModelErrorKind::Server);
        assert_eq!(kind(http(529, true, None)), ModelErrorKind::Server);
        assert_eq!(kind(http(400, false, None)), ModelErrorKind::Request);
        let auth = ModelError::from(ApiError::Auth {
            provider: "openai".into(),
            status: 401,
            message: "bad key".into(),
            key_env: "OPENAI_API_KEY".into(),
        });
        assert_eq!(
            (auth.kind, auth.status, auth.retryable),
            (ModelErrorKind::Auth, Some(401), false)
        );
        assert!(auth.message.contains("check OPENAI_API_KEY"));
        assert_eq!(kind(ApiError::Cancelled), ModelErrorKind::Cancelled);
        let connect = |retryable| {
            ModelError::from(ApiError::Connect {
                provider: "ollama".into(),
                url: "localhost:11434".into(),
                reason: "builder error".into(),
                retryable,
            })
        };
        // A base URL without a scheme cannot be sent: trying again is no use.
        assert_eq!(
            (connect(false).kind, connect(false).retryable),
            (ModelErrorKind::Connect, false)
        );
        assert!(connect(true).retryable);
        assert_eq!(
            kind(ApiError::NoDialect { flavor: "x".into() }),
            ModelErrorKind::Dialect
        );
    }

    #[test]
    fn asking_to_wait_keeps_the_wait() {
        let e = http(429, true, Some(3_600_000)).asked_to_wait(
            std::time::Duration::from_secs(3600),
            std::time::Duration::from_secs(30),
        );
        let e = ModelError::from(e);
        assert_eq!(e.retry_after_ms, Some(3_600_000));
        assert!(e.message.contains("asks to wait 3600 s"), "{}", e.message);
    }
}
