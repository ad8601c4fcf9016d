use std::os::unix::fs::{MetadataExt, PermissionsExt};

use super::*;

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().mode() & 0o7777
}

#[test]
fn a_new_file_is_made_and_an_old_one_keeps_its_mode() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("run.sh");
    write_atomic(&script, b"echo one\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o751)).unwrap();
    write_atomic(&script, b"echo two\n").unwrap();
    assert_eq!(std::fs::read_to_string(&script).unwrap(), "echo two\n");
    assert_eq!(mode(&script), 0o751);
    // Nothing is left beside it.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("run.sh")]);
}

#[test]
fn private_files_are_0600_and_private_if_new_keeps_a_users_choice() {
    let dir = tempfile::tempdir().unwrap();
    let grants = dir.path().join("grants.json");
    std::fs::write(&grants, "{}").unwrap();
    std::fs::set_permissions(&grants, std::fs::Permissions::from_mode(0o644)).unwrap();
    write_private(&grants, b"{\"a\":1}").unwrap();
    assert_eq!(mode(&grants), 0o600);

    let config = dir.path().join("config.toml");
    let if_new = Options {
        durable: true,
        mode: NewMode::PrivateIfNew,
    };
    write_with(&config, b"a = 1\n", if_new).unwrap();
    assert_eq!(mode(&config), 0o600);
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o640)).unwrap();
    write_with(&config, b"a = 2\n", if_new).unwrap();
    assert_eq!(mode(&config), 0o640);
}

#[test]
fn a_symlink_is_written_through_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("dotfiles/config.toml");
    std::fs::create_dir_all(real.parent().unwrap()).unwrap();
    std::fs::write(&real, "old").unwrap();
    let link = dir.path().join("config.toml");
    std::os::unix::fs::symlink("dotfiles/config.toml", &link).unwrap();
    write_atomic(&link, b"new").unwrap();
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
    // A dangling link makes the file it names.
    let dangling = dir.path().join("later.toml");
    std::os::unix::fs::symlink("dotfiles/later.toml", &dangling).unwrap();
    write_atomic(&dangling, b"made").unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("dotfiles/later.toml")).unwrap(),
        "made"
    );
}

#[test]
fn what_is_not_a_regular_file_is_refused_and_left() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("folder")).unwrap();
    let err = write_atomic(&dir.path().join("folder"), b"x").unwrap_err();
    assert!(describe(&err).contains("not a regular file"), "{err}");
    assert!(dir.path().join("folder").is_dir());
    let cap = Dir::open_ambient_dir(dir.path(), cap_std::ambient_authority()).unwrap();
    std::os::unix::fs::symlink("folder", dir.path().join("link")).unwrap();
    let err = replace_in(&cap, OsStr::new("link"), b"x", Options::STATE).unwrap_err();
    assert!(err.to_string().contains("symbolic link"), "{err}");
}

#[test]
fn concurrent_writers_never_leave_a_torn_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.json");
    let threads: Vec<_> = (0..8u8)
        .map(|i| {
            let path = path.clone();
            std::thread::spawn(move || {
                for _ in 0..20 {
                    write_atomic(&path, &vec![b'a' + i; 4096]).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(bytes.len(), 4096);
    assert!(bytes.iter().all(|b| *b == bytes[0]));
}
