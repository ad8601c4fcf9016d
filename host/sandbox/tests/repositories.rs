//! Every `.git` of the workspace, through the real spawner and real git:
//! nested repositories are read-only under bubblewrap and put back under
//! Landlock, a repository a command creates keeps no hook and no key that
//! runs a program, and what other agents run things from is reported.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use amber_sandbox::{Backend, ChangeKind, ProtectedChange};
use common::{backends, profile, run, scene};

fn write_hook(path: &Path, body: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, body).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn lines(changes: &[ProtectedChange]) -> Vec<String> {
    changes.iter().map(ProtectedChange::describe).collect()
}

/// A nested repository (vendored) with the user's own hook, and one two
/// levels into a folder git ignores (still within the walk's reach).
fn nested(workspace: &Path) {
    let lib = workspace.join("vendor/lib/.git");
    std::fs::create_dir_all(lib.join("hooks")).unwrap();
    std::fs::write(lib.join("config"), "[core]\n\tbare = false\n").unwrap();
    write_hook(
        &lib.join("hooks/pre-commit"),
        "#!/bin/sh\ncargo fmt --check\n",
    );
    std::fs::write(workspace.join(".gitignore"), "target/\n").unwrap();
    std::fs::create_dir_all(workspace.join("target/pkg/.git")).unwrap();
}

const PLANT_NESTED: &str = "printf '#!/bin/sh\\necho pwned\\n' > vendor/lib/.git/hooks/post-checkout; chmod +x vendor/lib/.git/hooks/post-checkout; printf '#!/bin/sh\\necho pwned\\n' > vendor/lib/.git/hooks/pre-commit; printf '[core]\\n\\tfsmonitor = echo pwned\\n' >> vendor/lib/.git/config; printf 'x' > target/pkg/.git/config; true";

#[test]
fn a_nested_repository_is_read_only_under_bubblewrap_and_put_back_under_landlock() {
    for spawner in backends() {
        let scene = scene();
        nested(&scene.workspace);
        let lib = scene.workspace.join("vendor/lib/.git");
        let out = run(&spawner, &profile(&scene, true), PLANT_NESTED);
        let backend = spawner.backend();
        assert!(
            !lib.join("hooks/post-checkout").exists(),
            "{backend:?}: {out:?}"
        );
        assert_eq!(
            std::fs::read_to_string(lib.join("hooks/pre-commit")).unwrap(),
            "#!/bin/sh\ncargo fmt --check\n",
            "{backend:?}"
        );
        assert_eq!(
            std::fs::read_to_string(lib.join("config")).unwrap(),
            "[core]\n\tbare = false\n",
            "{backend:?}"
        );
        // Two levels into an ignored folder: found, so bound too.
        assert!(
            !scene.workspace.join("target/pkg/.git/config").exists(),
            "{backend:?}"
        );
        let changes = spawner.take_protected_changes();
        if matches!(backend, Backend::Bubblewrap(_)) {
            assert!(out.stderr.contains("Read-only file system"), "{out:?}");
            assert!(changes.is_empty(), "{changes:?}");
        } else {
            // Landlock cannot make them read-only: the snapshot puts them
            // back, and says so.
            let said = lines(&changes);
            for expected in [
                "removed the hook vendor/lib/.git/hooks/post-checkout, which the command made",
                "restored the hook vendor/lib/.git/hooks/pre-commit, which the command changed",
                "reverted core.fsmonitor in vendor/lib/.git/config",
            ] {
                assert!(said.iter().any(|l| l.contains(expected)), "{said:?}");
            }
            assert!(
                out.stderr.contains("[amber: git hooks and config keys"),
                "{out:?}"
            );
        }
    }
}

const CREATE_REPOSITORY: &str = "mkdir -p sub && cd sub && git init -q && printf '#!/bin/sh\\necho pwned\\n' > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout && git config core.fsmonitor 'echo pwned' && git config core.hooksPath /var/tmp && git config user.name Ada && git remote add origin https://example.com/r.git && echo made";

#[test]
fn a_repository_a_command_creates_keeps_no_hook_and_no_key_that_runs_a_program() {
    for spawner in backends() {
        let scene = scene();
        let out = run(&spawner, &profile(&scene, true), CREATE_REPOSITORY);
        let backend = spawner.backend();
        assert!(out.stdout.contains("made"), "{backend:?}: {out:?}");
        let gitdir = scene.workspace.join("sub/.git");
        assert!(!gitdir.join("hooks/post-checkout").exists(), "{backend:?}");
        // git's own samples stay: git never runs them.
        assert!(
            gitdir.join("hooks/pre-commit.sample").exists(),
            "{backend:?}"
        );
        let config = std::fs::read_to_string(gitdir.join("config")).unwrap();
        assert!(
            !config.contains("fsmonitor")
                && !config.contains("hooksPath")
                && !config.contains("hookspath"),
            "{backend:?}: {config}"
        );
        assert!(
            config.contains("Ada") && config.contains("https://example.com/r.git"),
            "{config}"
        );
        // git reads what amber wrote back.
        let name = std::process::Command::new("git")
            .args(["config", "user.name"])
            .current_dir(scene.workspace.join("sub"))
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&name.stdout), "Ada\n");
        // The model is told in the command's output, the user by the
        // spawner's changes.
        assert!(out.stderr.contains("post-checkout"), "{out:?}");
        let said = lines(&spawner.take_protected_changes());
        assert_eq!(
            said,
            [
                "removed the hook sub/.git/hooks/post-checkout, which the command made",
                "reverted core.fsmonitor, core.hookspath in sub/.git/config"
            ],
            "{backend:?}"
        );
    }
}

#[test]
fn a_git_file_pointing_at_a_folder_the_command_filled_is_followed() {
    for spawner in backends() {
        let scene = scene();
        let command = "mkdir -p evil/hooks wt && printf '#!/bin/sh\\necho pwned\\n' > evil/hooks/post-checkout && chmod +x evil/hooks/post-checkout && printf '[core]\\n\\tsshCommand = evil\\n' > evil/config && printf 'gitdir: ../evil\\n' > wt/.git";
        run(&spawner, &profile(&scene, true), command);
        assert!(
            !scene.workspace.join("evil/hooks/post-checkout").exists(),
            "{:?}",
            spawner.backend()
        );
        let config = std::fs::read_to_string(scene.workspace.join("evil/config")).unwrap();
        assert!(!config.contains("sshCommand"), "{config}");
        let changes = spawner.take_protected_changes();
        assert!(
            changes
                .iter()
                .all(|c| c.kind == ChangeKind::Reverted && c.path == "evil"),
            "{changes:?}"
        );
    }
}

#[test]
fn files_other_agents_run_things_from_are_reported_when_created_changed_or_removed() {
    for spawner in backends() {
        let scene = scene();
        std::fs::write(scene.workspace.join(".mcp.json"), "{}").unwrap();
        std::fs::create_dir_all(scene.workspace.join(".codex")).unwrap();
        let command = "mkdir -p .claude && echo '{\"hooks\":{}}' > .claude/settings.json && echo '{\"mcpServers\":{\"x\":{}}}' > .mcp.json && rm -r .codex && mkdir -p pkg/.amber && echo x > pkg/.amber/config.toml";
        run(&spawner, &profile(&scene, true), command);
        let said = lines(&spawner.take_protected_changes());
        assert_eq!(
            said,
            [
                "created .claude/settings.json (Claude Code's hooks and permissions)",
                "changed .mcp.json (MCP servers other agents start)",
                "created pkg/.amber (amber's project folder: config, hooks, commands)",
                "removed .codex (Codex's project folder)",
            ],
            "{:?}",
            spawner.backend()
        );
    }
}

#[test]
fn a_moved_repository_keeps_its_own_hooks_and_a_pointer_out_of_the_workspace_is_removed() {
    for spawner in backends() {
        let scene = scene();
        nested(&scene.workspace);
        let outside = scene.outside.join("repo");
        std::fs::create_dir_all(&outside).unwrap();
        let command = format!(
            "mv vendor/lib vendor/lib2; mkdir -p wt && printf 'gitdir: {}\\n' > wt/.git",
            outside.display()
        );
        let out = run(&spawner, &profile(&scene, true), &command);
        let backend = spawner.backend();
        // The same repository under another name: its own hook stays.
        let moved = scene.workspace.join("vendor/lib2/.git");
        assert!(
            moved.join("hooks/pre-commit").exists(),
            "{backend:?}: {out:?}"
        );
        assert!(
            !scene.workspace.join("wt/.git").exists(),
            "{backend:?}: {out:?}"
        );
        let said = lines(&spawner.take_protected_changes());
        assert_eq!(
            said,
            ["removed wt/.git, which the command made and which leads out of the workspace or to no repository"],
            "{backend:?}"
        );
    }
}

#[test]
fn a_repository_hidden_by_setting_its_folders_time_back_is_still_found() {
    for spawner in backends() {
        let scene = scene();
        std::fs::create_dir_all(scene.workspace.join("sub")).unwrap();
        // A first command, so the walk has the tree cached.
        run(&spawner, &profile(&scene, true), "true");
        let command = "stamp=$(stat -c %y sub) && cd sub && git init -q && printf '#!/bin/sh\\n' > .git/hooks/post-merge && chmod +x .git/hooks/post-merge && touch -d \"$stamp\" . && echo hidden";
        let out = run(&spawner, &profile(&scene, true), command);
        assert!(out.stdout.contains("hidden"), "{out:?}");
        assert!(
            !scene.workspace.join("sub/.git/hooks/post-merge").exists(),
            "{:?}",
            spawner.backend()
        );
        spawner.take_protected_changes();
    }
}
