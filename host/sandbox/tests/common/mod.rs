//! What the sandbox's integration tests share: both Linux backends, a
//! scene outside `/tmp` (so the walls themselves are tested), a run.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]
#![allow(dead_code)]

pub mod processes;

use std::time::Duration;

use amber_sandbox::{
    Backend, BackendChoice, CommandOutput, CommandSpec, Confinement, Profile, Spawner,
};

pub fn backends() -> Vec<Spawner> {
    let bwrap = Spawner::detect(BackendChoice::Bubblewrap);
    assert!(
        matches!(bwrap.backend(), Backend::Bubblewrap(_)),
        "bubblewrap is needed for these tests (cargo xtask test installs it): {}",
        bwrap.backend().describe()
    );
    let landlock = Spawner::detect(BackendChoice::Landlock);
    assert!(
        matches!(landlock.backend(), Backend::Landlock(_)),
        "this kernel should have Landlock: {}",
        landlock.backend().describe()
    );
    vec![bwrap, landlock]
}

pub fn run(spawner: &Spawner, profile: &Profile, command: &str) -> CommandOutput {
    spawner
        .run(&CommandSpec {
            command,
            cwd: &profile.workspace,
            env: vec![("PATH".into(), std::env::var_os("PATH").unwrap_or_default())],
            timeout: Duration::from_secs(20),
            output_cap: 64 * 1024,
            confinement: Confinement::Sandboxed(profile.clone()),
        })
        .unwrap()
}

pub struct Scene {
    _root: tempfile::TempDir,
    pub workspace: std::path::PathBuf,
    pub outside: std::path::PathBuf,
    pub home: std::path::PathBuf,
}

/// A workspace with a `.git`, a folder beside it and a fake home with a
/// key and a toolchain folder.
pub fn scene() -> Scene {
    // Not under /tmp, which the sandbox replaces anyway (and where a CI
    // clone may live): here a write outside must meet the read-only
    // filesystem, and the home must be hidden by the sandbox itself.
    let root = tempfile::tempdir_in("/var/tmp").unwrap();
    let base = root.path().canonicalize().unwrap();
    let workspace = base.join("ws");
    let outside = base.join("outside");
    let home = base.join("home");
    for dir in [
        &workspace.join(".git"),
        &outside,
        &home.join(".ssh"),
        &home.join(".cargo"),
    ] {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(workspace.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(home.join(".ssh/id_rsa"), "PRIVATE-KEY-MATERIAL\n").unwrap();
    std::fs::write(home.join(".cargo/config.toml"), "[build]\n").unwrap();
    std::fs::write(
        home.join(".cargo/credentials.toml"),
        "token = \"cargo-secret\"\n",
    )
    .unwrap();
    Scene {
        _root: root,
        workspace,
        outside,
        home,
    }
}

pub fn profile(scene: &Scene, writable: bool) -> Profile {
    let mut profile = Profile::new(&scene.workspace, writable);
    profile.home = Some(scene.home.clone());
    profile
}

/// A command that connects to the Unix socket `socket` and prints
/// `connected`, or `socket: …` / `connect: …` with the kernel's error.
pub fn unix_connect_probe(socket: &std::path::Path) -> String {
    format!(
        r#"perl -MSocket -e 'socket(S, PF_UNIX, SOCK_STREAM, 0) or die "socket: $!\n"; connect(S, pack_sockaddr_un("{}")) or die "connect: $!\n"; print "connected\n"' 2>&1; true"#,
        socket.display()
    )
}
