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

impl ApiError {
    /// True when trying again may succeed.
    pub fn is_retryable(&self) -> bool {
        match self {
            ApiError::Http { retryable, .. } | ApiError::Provider { retryable, .. } => *retryable,
            ApiError::Connect { .. } | ApiError::Timeout { .. } | ApiError::Stream { .. } => true,
            _ => false,
        }
    }
}
