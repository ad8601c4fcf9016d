//! A reader that closes early (`amber grep fn | head -1`) ends amber
//! quietly with status 0, as Unix tools end, handled here once for the
//! whole binary.
//!
//! Rust ignores SIGPIPE, so a write to a closed pipe is an EPIPE error.
//! `println!` turns that error into a panic, and a `?` on a write carries
//! it up to `main` as an error. [`exit_quietly_on_closed_stdout`] turns
//! the panic into a clean exit; [`is_closed_pipe`] lets `main` do the same
//! with the error. Every other panic and error is left as it was.

use std::panic::PanicHookInfo;

/// Installs the panic hook; call it first thing in `main`.
pub fn exit_quietly_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if is_print_to_closed_pipe(info) {
            amber_sandbox::shutdown();
            std::process::exit(0);
        }
        default(info);
    }));
}

/// The panic `println!` raises when stdout's reader is gone.
fn is_print_to_closed_pipe(info: &PanicHookInfo<'_>) -> bool {
    let payload = info.payload();
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("");
    message.starts_with("failed printing to stdout") && message.contains("Broken pipe")
}

/// Whether `error` is, at bottom, a write to a closed pipe.
pub fn is_closed_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            || cause
                .downcast_ref::<serde_json::Error>()
                .and_then(|e| e.io_error_kind())
                .is_some_and(|kind| kind == std::io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_pipe_under_context_is_recognised_and_other_errors_are_not() {
        let pipe = std::io::Error::from(std::io::ErrorKind::BrokenPipe);
        let error = anyhow::Error::new(pipe).context("cannot write the listing");
        assert!(is_closed_pipe(&error));
        let other = anyhow::Error::new(std::io::Error::from(std::io::ErrorKind::NotFound));
        assert!(!is_closed_pipe(&other));
        assert!(!is_closed_pipe(&anyhow::anyhow!(
            "Broken pipe, in words only"
        )));
    }
}
