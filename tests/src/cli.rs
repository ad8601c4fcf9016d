//! Running the real `amber` binary in a scratch home: the environment
//! every CLI test needs, in one place.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::repo_root;

/// `bin` (the test's `env!("CARGO_BIN_EXE_amber")`) with its state in
/// `home`, `workspace` as the workspace, the shared compile cache, the
/// built guests as the bundle, and no provider keys or base URLs from the
/// caller's environment.
pub fn amber_command(bin: &str, home: &Path, workspace: &Path) -> Command {
    let bundle = crate::guests_dir();
    let mut cmd = Command::new(bin);
    cmd.env("AMBER_HOME", home)
        .env("AMBER_CACHE_DIR", repo_root().join("target/test-cache"))
        .env("AMBER_WORKSPACE", workspace)
        .env("AMBER_BUNDLE_DIR", bundle)
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("ANTHROPIC_BASE_URL")
        // Recall stays lexical unless a test hands it a model.
        .env_remove("AMBER_EMBEDDING_MODEL")
        .stdin(Stdio::null());
    cmd
}

/// The `amber` binary the workspace built, for tests of this crate, which
/// cannot name it with `env!("CARGO_BIN_EXE_amber")`: it sits beside the
/// test's own `deps/` folder (`cargo test --workspace` builds it first).
pub fn amber_bin() -> String {
    let exe = std::env::current_exe().expect("the test knows its own path");
    let profile: PathBuf = exe
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .expect("a test runs from target/<profile>/deps/");
    let bin = profile.join("amber");
    assert!(
        bin.is_file(),
        "{} is missing: build it first (cargo xtask test builds the workspace)",
        bin.display()
    );
    bin.to_string_lossy().into_owned()
}
