//! The shell lexer and classifier on any command line: no panic, and a
//! line the lexer refuses is never classified as free to run.
#![no_main]

use std::path::Path;

use amber_core::shell::{lex, shell_classify};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    let lexed = lex::parse(line);
    let class = shell_classify(line, Path::new("/ws/sub"), Path::new("/ws"));
    if lexed.is_err() {
        assert!(
            !class.runs_free(),
            "a line the lexer refuses runs free: {line:?}"
        );
    }
});
