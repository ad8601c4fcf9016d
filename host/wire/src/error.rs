//! The typed errors of the wire. Each says what happened and, where the
//! user can fix it, what to do.

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
    #[error("{provider} failed after {attempts} attempt(s): {message}")]
    Http {
        provider: String,
        status: u16,
        message: String,
        retryable: bool,
        attempts: u32,
    },
    #[error("cannot reach {provider} at {url}: {reason}")]
    Connect {
        provider: String,
        url: String,
        reason: String,
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
            },
            other => other,
        }
    }

    /// True when trying again may succeed.
    pub fn is_retryable(&self) -> bool {
        match self {
            ApiError::Http { retryable, .. } | ApiError::Provider { retryable, .. } => *retryable,
            ApiError::Connect { .. } | ApiError::Timeout { .. } | ApiError::Stream { .. } => true,
            _ => false,
        }
    }
}
