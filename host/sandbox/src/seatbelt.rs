//! macOS: a Seatbelt profile for `sandbox-exec`, the same walls as on
//! Linux: reads everywhere but the home folder (its toolchains excepted)
//! and amber's own folders, writes only to the workspace (not `.git` or
//! `.amber`), the private temporary folder and approved folders, and no
//! network unless approved.
//!
//! Written and documented, not tested: this machine is Linux
//! (docs/sandbox.md). The spawner uses it only on macOS.

use std::path::Path;

use crate::profile::Profile;

fn quoted(path: &Path) -> String {
    let text = path.display().to_string();
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The profile text for `sandbox-exec -p`.
pub fn profile_text(profile: &Profile, private_tmp: &Path) -> String {
    let mut lines = vec![
        "(version 1)".to_string(),
        "(deny default)".into(),
        "(allow process-exec process-fork signal (target same-sandbox))".into(),
        "(allow sysctl-read mach-lookup ipc-posix-shm)".into(),
        "(allow file-read*)".into(),
    ];
    if let Some(home) = &profile.home {
        lines.push(format!("(deny file-read* (subpath {}))", quoted(home)));
        for dir in profile.home_parts().0 {
            lines.push(format!("(allow file-read* (subpath {}))", quoted(&dir)));
        }
    }
    for dir in &profile.hidden {
        lines.push(format!("(deny file-read* (subpath {}))", quoted(dir)));
    }
    for dir in profile.read_dirs.iter().chain(&profile.private_dirs) {
        lines.push(format!("(allow file-read* (subpath {}))", quoted(dir)));
    }
    lines.push(format!(
        "(allow file-read* (subpath {}))",
        quoted(&profile.workspace)
    ));
    let mut writable = vec![private_tmp.to_path_buf()];
    if profile.workspace_writable {
        writable.push(profile.workspace.clone());
    }
    writable.extend(profile.write_dirs.iter().cloned());
    writable.extend(profile.private_dirs.iter().cloned());
    for dir in &writable {
        lines.push(format!("(allow file-write* (subpath {}))", quoted(dir)));
    }
    for dir in profile.protected() {
        lines.push(format!("(deny file-write* (subpath {}))", quoted(&dir)));
    }
    lines.push("(allow file-write* (literal \"/dev/null\"))".into());
    if profile.network {
        lines.push("(allow network*)".into());
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_profile_denies_by_default_and_writes_only_the_workspace() {
        let ws = tempfile::tempdir().unwrap();
        std::fs::create_dir(ws.path().join(".git")).unwrap();
        let profile = Profile::new(ws.path(), true);
        let text = profile_text(&profile, Path::new("/private/tmp/amber-1"));
        assert!(text.starts_with("(version 1)\n(deny default)"));
        assert!(text.contains(&format!(
            "(allow file-write* (subpath {}))",
            quoted(ws.path())
        )));
        assert!(text.contains(&format!(
            "(deny file-write* (subpath {}))",
            quoted(&ws.path().join(".git"))
        )));
        assert!(!text.contains("network*"));
    }
}
