//! Path confinement on any input: what it accepts is absolute, inside the
//! root, free of `.` and `..`, accepted again unchanged, and never passes
//! above the root on the way (`../a/../ws` and `/ws/../ws/x` end inside,
//! but a symlink's `..` may lead elsewhere than the lexical parent).
#![no_main]

use std::path::{Component, Path, PathBuf};

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
    // The walk, component by component: until it reaches the root it may
    // only pass the root's ancestors; once there, it never leaves.
    let mut at = if Path::new(input).is_absolute() {
        PathBuf::from("/")
    } else {
        root.to_path_buf()
    };
    let mut entered = at.starts_with(root);
    for component in Path::new(input).components() {
        match component {
            Component::RootDir => at = PathBuf::from("/"),
            Component::ParentDir => {
                at.pop();
            }
            Component::Normal(name) => at.push(name),
            Component::CurDir | Component::Prefix(_) => {}
        }
        if at.starts_with(root) {
            entered = true;
        } else {
            assert!(
                !entered && root.starts_with(&at),
                "{input:?} passes through {at:?} on the way to {resolved:?}"
            );
        }
    }
    let again = confine(root, &resolved.to_string_lossy());
    assert_eq!(
        again.as_ref(),
        Ok(&resolved),
        "not idempotent for {input:?}"
    );
});
