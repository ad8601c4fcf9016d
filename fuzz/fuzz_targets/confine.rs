//! Path confinement on any input: what it accepts is absolute, inside the
//! root, free of `.` and `..`, and accepted again unchanged.
#![no_main]

use std::path::{Component, Path};

use amber_core::confine;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let root = Path::new("/ws");
    let Ok(resolved) = confine(root, input) else {
        return;
    };
    assert!(
        resolved.starts_with(root),
        "{input:?} resolved to {resolved:?}"
    );
    assert!(
        resolved
            .components()
            .all(|c| matches!(c, Component::RootDir | Component::Normal(_))),
        "{input:?} resolved to {resolved:?}, which is not normal"
    );
    let again = confine(root, &resolved.to_string_lossy());
    assert_eq!(
        again.as_ref(),
        Ok(&resolved),
        "not idempotent for {input:?}"
    );
});
