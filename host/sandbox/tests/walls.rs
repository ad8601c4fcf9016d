//! The sandbox's walls, through the real spawner on this machine, with
//! each Linux backend: bubblewrap (which `cargo xtask test` installs) and
//! Landlock with seccomp.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

mod common;

use std::path::Path;
use std::time::Duration;

use amber_sandbox::{Backend, BackendChoice, CommandSpec, Confinement, Profile, Spawner};
use common::{backends, profile, run, scene, unix_connect_probe};

#[test]
fn a_workspace_holding_the_home_and_a_grant_of_slash_are_refused() {
    let spawner = Spawner::detect(BackendChoice::Bubblewrap);
    let scene = scene();
    let mut above = Profile::new(scene.workspace.parent().unwrap(), true);
    above.home = Some(scene.home.clone());
    let err = spawner
        .run(&CommandSpec {
            command: "true",
            cwd: scene.workspace.parent().unwrap(),
            env: Vec::new(),
            timeout: Duration::from_secs(5),
            output_cap: 1024,
            confinement: Confinement::Sandboxed(above),
        })
        .unwrap_err()
        .to_string();
    assert!(err.contains("holds your home folder"), "{err}");
    let mut slash = profile(&scene, true);
    slash.write_dirs.push("/".into());
    let err = spawner
        .run(&CommandSpec {
            command: "true",
            cwd: &scene.workspace,
            env: Vec::new(),
            timeout: Duration::from_secs(5),
            output_cap: 1024,
            confinement: Confinement::Sandboxed(slash),
        })
        .unwrap_err()
        .to_string();
    assert!(err.contains("access to / would open"), "{err}");
}

#[test]
fn a_host_unix_socket_in_run_is_out_of_reach() {
    // Where the host keeps them: D-Bus, agents, docker.
    let socket = Path::new("/run").join(format!("amber-test-{}.sock", std::process::id()));
    let _ = std::fs::remove_file(&socket);
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    for spawner in backends() {
        let scene = scene();
        let probe = unix_connect_probe(&socket);
        let out = run(&spawner, &profile(&scene, true), &probe);
        assert!(
            !out.stdout.contains("connected"),
            "{:?}: {out:?}",
            spawner.backend()
        );
    }
    std::fs::remove_file(&socket).unwrap();
}

#[test]
fn writes_inside_the_workspace_work_and_outside_fail_with_the_kernels_error() {
    for spawner in backends() {
        let scene = scene();
        let target = scene.outside.join("x");
        let out = run(
            &spawner,
            &profile(&scene, true),
            &format!("echo in > made.txt && echo out > {}", target.display()),
        );
        assert_eq!(
            std::fs::read_to_string(scene.workspace.join("made.txt")).unwrap(),
            "in\n"
        );
        assert!(!target.exists(), "{:?}: wrote outside", spawner.backend());
        assert_ne!(out.exit_code, Some(0));
        assert!(
            [
                "Read-only file system",
                "Permission denied",
                "Directory nonexistent"
            ]
            .iter()
            .any(|e| out.stderr.contains(e)),
            "{:?}: {}",
            spawner.backend(),
            out.stderr
        );
    }
}

#[test]
fn the_home_folder_is_hidden_but_its_toolchains_and_credentials_are_masked() {
    for spawner in backends() {
        let scene = scene();
        let home = scene.home.display();
        let out = run(
            &spawner,
            &profile(&scene, true),
            &format!(
                "cat {home}/.ssh/id_rsa; cat {home}/.cargo/config.toml; cat {home}/.cargo/credentials.toml; true"
            ),
        );
        assert!(
            !out.stdout.contains("PRIVATE-KEY-MATERIAL"),
            "{:?}: {}",
            spawner.backend(),
            out.stdout
        );
        assert!(
            out.stdout.contains("[build]"),
            "{:?}: {out:?}",
            spawner.backend()
        );
        if matches!(spawner.backend(), Backend::Bubblewrap(_)) {
            assert!(!out.stdout.contains("cargo-secret"), "{}", out.stdout);
        }
    }
}

#[test]
fn there_is_no_network_unless_granted() {
    // A server of the host's, on its loopback: the sandbox must not reach it.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let probe = format!(
        r#"perl -e 'use Socket; socket(S, PF_INET, SOCK_STREAM, 0) or die "socket: $!\n"; connect(S, sockaddr_in({port}, inet_aton("127.0.0.1"))) or die "connect: $!\n"; print "connected\n"' 2>&1; true"#
    );
    for spawner in backends() {
        let scene = scene();
        let out = run(&spawner, &profile(&scene, true), &probe);
        assert!(
            !out.stdout.contains("connected"),
            "{:?}: {out:?}",
            spawner.backend()
        );
        assert!(
            [
                "refused",
                "Network is unreachable",
                "Operation not permitted",
                "Permission denied"
            ]
            .iter()
            .any(|e| out.stdout.contains(e)),
            "{:?}: {}",
            spawner.backend(),
            out.stdout
        );
        let mut granted = profile(&scene, true);
        granted.network = true;
        let out = run(&spawner, &granted, &probe);
        assert!(
            out.stdout.contains("connected"),
            "{:?}: {}",
            spawner.backend(),
            out.stdout
        );
    }
}

#[test]
fn git_is_read_only_and_read_mode_makes_the_workspace_read_only() {
    let spawner = Spawner::detect(BackendChoice::Bubblewrap);
    let scene = scene();
    let out = run(
        &spawner,
        &profile(&scene, true),
        "echo bad > .git/HEAD; echo ok > file",
    );
    assert_eq!(
        std::fs::read_to_string(scene.workspace.join(".git/HEAD")).unwrap(),
        "ref: refs/heads/main\n"
    );
    assert!(
        out.stderr.contains("Read-only file system"),
        "{}",
        out.stderr
    );
    assert!(scene.workspace.join("file").exists());
    for spawner in backends() {
        let out = run(&spawner, &profile(&scene, false), "echo x > read-mode.txt");
        assert!(
            !scene.workspace.join("read-mode.txt").exists(),
            "{:?}",
            spawner.backend()
        );
        assert_ne!(out.exit_code, Some(0));
    }
}

#[test]
fn the_command_cannot_see_or_signal_amber() {
    let me = std::process::id();
    for spawner in backends() {
        let scene = scene();
        let out = run(
            &spawner,
            &profile(&scene, true),
            &format!("cat /proc/{me}/environ | tr '\\0' '\\n' | grep -c PATH; kill -0 {me} && echo signalled; true"),
        );
        assert!(
            !out.stdout.contains("signalled"),
            "{:?}: {out:?}",
            spawner.backend()
        );
        if matches!(spawner.backend(), Backend::Bubblewrap(_)) {
            // Its own PID namespace: amber's pid is not there at all.
            assert!(out.stderr.contains("No such file"), "{}", out.stderr);
        }
    }
}

#[test]
fn an_approved_escalation_opens_exactly_the_folder_granted() {
    for spawner in backends() {
        let scene = scene();
        let mut granted = profile(&scene, true);
        granted.write_dirs.push(scene.outside.clone());
        let other = scene.home.join("elsewhere.txt");
        run(
            &spawner,
            &granted,
            &format!(
                "echo yes > {}/granted.txt; echo no > {}",
                scene.outside.display(),
                other.display()
            ),
        );
        assert!(
            scene.outside.join("granted.txt").exists(),
            "{:?}",
            spawner.backend()
        );
        assert!(!other.exists());
    }
}

#[test]
fn tmp_is_private_to_the_command() {
    let marker = Path::new("/tmp").join(format!("amber-sandbox-marker-{}", std::process::id()));
    std::fs::write(&marker, "host").unwrap();
    for spawner in backends() {
        let scene = scene();
        let out = run(
            &spawner,
            &profile(&scene, true),
            &format!(
                "cat {} 2>&1; echo t > \"${{TMPDIR:-/tmp}}/mine\" && echo wrote",
                marker.display()
            ),
        );
        assert!(
            !out.stdout.contains("host"),
            "{:?}: {}",
            spawner.backend(),
            out.stdout
        );
        assert!(
            out.stdout.contains("wrote"),
            "{:?}: {out:?}",
            spawner.backend()
        );
    }
    std::fs::remove_file(marker).unwrap();
}

#[test]
fn a_workspace_inside_the_home_stays_visible_and_writable_while_the_rest_of_the_home_is_hidden() {
    for spawner in backends() {
        let scene = scene();
        let project = scene.home.join("src/project");
        std::fs::create_dir_all(&project).unwrap();
        let mut inside = Profile::new(&project, true);
        inside.home = Some(scene.home.clone());
        let out = run(
            &spawner,
            &inside,
            &format!(
                "echo made > made.txt && cat {}/.ssh/id_rsa; true",
                scene.home.display()
            ),
        );
        assert_eq!(
            std::fs::read_to_string(project.join("made.txt")).unwrap(),
            "made\n",
            "{:?}: {out:?}",
            spawner.backend()
        );
        assert!(
            !out.stdout.contains("PRIVATE-KEY-MATERIAL"),
            "{:?}",
            spawner.backend()
        );
    }
}
