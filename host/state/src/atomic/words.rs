//! An I/O error in words a person reads: "no space left on device", not
//! "No space left on device (os error 28)" (or WASI's "I/O error (os error
//! 29)"). The OS's own message, lower-cased, without the number; callers
//! add the path and what was being done to it.

/// The error's words without "(os error N)", starting lower-case.
pub fn describe(e: &std::io::Error) -> String {
    let text = e.to_string();
    let text = match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => &text[..at],
        _ => &text,
    };
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        // A capitalised word is lowered; "I/O error" keeps its capital.
        (Some(first), Some(second)) if first.is_uppercase() && second.is_lowercase() => first
            .to_lowercase()
            .chain(text[first.len_utf8()..].chars())
            .collect(),
        _ => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn os_errors_read_as_words() {
        let full = std::io::Error::from_raw_os_error(libc::ENOSPC);
        assert_eq!(describe(&full), "no space left on device");
        // glibc's words; WASI's libc says "I/O error", which stays as is.
        let io = std::io::Error::from_raw_os_error(libc::EIO);
        assert_eq!(describe(&io), "input/output error");
        assert_eq!(describe(&std::io::Error::other("I/O error")), "I/O error");
        assert_eq!(describe(&std::io::Error::other("Refused")), "refused");
    }
}
