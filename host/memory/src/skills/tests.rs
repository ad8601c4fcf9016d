use super::*;

/// A workspace and a data dir in one temporary folder, and the workspace's
/// skill folders in the data dir.
fn scratch() -> (tempfile::TempDir, SkillFolders) {
    let root = tempfile::tempdir().unwrap();
    let workspace = root.path().join("project");
    std::fs::create_dir(&workspace).unwrap();
    let dir = skills_dir(&root.path().join("data"), &workspace);
    (root, SkillFolders::new(dir, &workspace))
}

fn stamp() -> Stamp {
    Stamp {
        session: Some("s-7".into()),
        model: Some("model-x".into()),
        at: 1_796_083_200,
    }
}

fn upsert(name: &str, description: &str) -> SkillOp {
    SkillOp::Upsert {
        name: name.into(),
        description: description.into(),
        trigger: "adding a provider dialect".into(),
        body: "\n\n1. Copy `anthropic.rs`.\n2. Run: `cargo test`.\n\n".into(),
    }
}

/// Every file under `dir`, relative to it.
fn files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(folder) = stack.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let relative = path.strip_prefix(dir).unwrap();
                out.push(relative.display().to_string());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_skills_dir_is_one_per_workspace_under_the_data_dir() {
    let root = tempfile::tempdir().unwrap();
    let (a, b) = (root.path().join("a"), root.path().join("b"));
    std::fs::create_dir(&a).unwrap();
    std::fs::create_dir(&b).unwrap();
    let data = root.path().join("data");
    let dir = skills_dir(&data, &a);
    assert_eq!(dir, skills_dir(&data, &a.join(".")));
    assert_ne!(dir, skills_dir(&data, &b));
    assert_eq!(dir.parent(), Some(data.join(SKILLS_FOLDER).as_path()));
    let key = dir.file_name().unwrap().to_str().unwrap();
    assert!(key.len() == 16 && key.bytes().all(|b| b.is_ascii_hexdigit()));
}

#[test]
fn an_upsert_writes_a_candidate_folder_that_reads_back() {
    let (root, folders) = scratch();
    let description = "Adding a dialect: copy one, \"rename\" it\nthen test";
    let outcome = folders
        .apply(&upsert("add-a-dialect", description), &stamp())
        .unwrap();
    let path = folders.dir().join("add-a-dialect").join(SKILL_FILE);
    assert_eq!(outcome, Outcome::Written(path.clone()));
    let skill = read_skill(&path).unwrap();
    assert_eq!(
        skill,
        Skill {
            name: "add-a-dialect".into(),
            description: description.into(),
            trigger: Some("adding a provider dialect".into()),
            candidate: true,
            deprecated: false,
            deprecated_reason: None,
            session: Some("s-7".into()),
            model: Some("model-x".into()),
            updated: Some(1_796_083_200),
            body: "1. Copy `anthropic.rs`.\n2. Run: `cargo test`.".into(),
        }
    );
    let named = std::fs::read_to_string(folders.dir().join(WORKSPACE_FILE)).unwrap();
    let workspace = root.path().join("project").canonicalize().unwrap();
    assert_eq!(named, format!("{}\n", workspace.display()));
    // No temporary file is left beside it.
    assert_eq!(
        files(folders.dir()),
        ["add-a-dialect/SKILL.md", WORKSPACE_FILE]
    );
    // A second upsert replaces it whole.
    folders
        .apply(&upsert("add-a-dialect", "Shorter."), &stamp())
        .unwrap();
    assert_eq!(read_skill(&path).unwrap().description, "Shorter.");
}

#[test]
fn a_deprecation_marks_the_skill_and_keeps_its_body() {
    let (_root, folders) = scratch();
    folders
        .apply(&upsert("old-way", "The old way."), &stamp())
        .unwrap();
    let later = Stamp {
        session: Some("s-8".into()),
        at: 1_796_083_260,
        ..stamp()
    };
    let deprecate = SkillOp::Deprecate {
        name: "old-way".into(),
        reason: Some("it breaks: see the \"new\" way".into()),
    };
    let path = folders.dir().join("old-way").join(SKILL_FILE);
    assert_eq!(
        folders.apply(&deprecate, &later).unwrap(),
        Outcome::Written(path.clone())
    );
    let skill = read_skill(&path).unwrap();
    assert!(skill.deprecated && skill.candidate);
    assert_eq!(
        skill.deprecated_reason.as_deref(),
        Some("it breaks: see the \"new\" way")
    );
    assert_eq!(skill.description, "The old way.");
    assert!(skill.body.starts_with("1. Copy"));
    assert_eq!(
        (skill.session.as_deref(), skill.updated),
        (Some("s-8"), Some(1_796_083_260))
    );
    // Upserting it again brings it back.
    folders
        .apply(&upsert("old-way", "Fixed."), &stamp())
        .unwrap();
    let skill = read_skill(&path).unwrap();
    assert!(!skill.deprecated && skill.deprecated_reason.is_none());
}

#[test]
fn deprecating_an_unknown_skill_creates_nothing() {
    let (root, folders) = scratch();
    let deprecate = SkillOp::Deprecate {
        name: "never-was".into(),
        reason: None,
    };
    assert_eq!(
        folders.apply(&deprecate, &stamp()).unwrap(),
        Outcome::Unknown
    );
    assert!(!folders.dir().exists());
    assert!(!root.path().join("data").exists());
}

#[test]
fn bad_names_are_refused_and_nothing_is_written() {
    let (root, folders) = scratch();
    let long = "a".repeat(MAX_NAME_BYTES + 1);
    for name in [
        "../x", "A", "", "-x", "a/b", "a.b", "a b", "x\n", "é", "..", &long,
    ] {
        let e = folders.apply(&upsert(name, "d"), &stamp()).unwrap_err();
        assert!(matches!(e, SkillError::Name { .. }), "{name:?}: {e}");
        let deprecate = SkillOp::Deprecate {
            name: name.into(),
            reason: None,
        };
        assert!(folders.apply(&deprecate, &stamp()).is_err(), "{name:?}");
    }
    assert!(check_name(&"a".repeat(MAX_NAME_BYTES)).is_ok());
    assert!(check_name("0-fix-it-").is_ok());
    assert_eq!(files(root.path()), Vec::<String>::new());
    let e = check_name("../x").unwrap_err().to_string();
    assert!(e.contains("\"../x\"") && e.contains("lowercase"), "{e}");
}

#[test]
fn an_empty_or_oversized_field_is_refused_naming_it() {
    let (_root, folders) = scratch();
    let e = folders
        .apply(&upsert("x", "  "), &stamp())
        .unwrap_err()
        .to_string();
    assert_eq!(e, "skill `x`: description is empty");
    let big = "d".repeat(MAX_DESCRIPTION_BYTES + 1);
    let e = folders
        .apply(&upsert("x", &big), &stamp())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("description is 2049 bytes; the limit is 2048"),
        "{e}"
    );
    assert!(!folders.dir().exists());
}

#[test]
fn a_persons_skill_is_left_as_it_is() {
    let (_root, folders) = scratch();
    let folder = folders.dir().join("house-style");
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join(SKILL_FILE);
    let adopted = "---\nname: house-style\ndescription: Ours.\n---\nKeep it.\n";
    std::fs::write(&path, adopted).unwrap();
    let deprecate = SkillOp::Deprecate {
        name: "house-style".into(),
        reason: None,
    };
    for op in [upsert("house-style", "Theirs."), deprecate] {
        assert_eq!(
            folders.apply(&op, &stamp()).unwrap(),
            Outcome::PersonOwned(path.clone())
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), adopted);
    }
    // So is one amber cannot read.
    std::fs::write(&path, "no front matter").unwrap();
    assert_eq!(
        folders
            .apply(&upsert("house-style", "Theirs."), &stamp())
            .unwrap(),
        Outcome::PersonOwned(path.clone())
    );
    std::fs::write(&path, b"\xff\xfe").unwrap();
    assert_eq!(
        folders
            .apply(&upsert("house-style", "Theirs."), &stamp())
            .unwrap(),
        Outcome::PersonOwned(path)
    );
}

#[cfg(unix)]
#[test]
fn a_link_in_place_of_a_skill_folder_is_refused() {
    let (root, folders) = scratch();
    let outside = root.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::create_dir_all(folders.dir()).unwrap();
    std::os::unix::fs::symlink(&outside, folders.dir().join("sneaky")).unwrap();
    let e = folders.apply(&upsert("sneaky", "d"), &stamp()).unwrap_err();
    assert!(matches!(e, SkillError::NotAFolder { .. }), "{e}");
    assert!(files(&outside).is_empty());
}

#[test]
fn a_folder_that_cannot_be_made_is_an_error_naming_it() {
    let root = tempfile::tempdir().unwrap();
    // A file where the data dir should be: even root cannot make folders
    // inside it.
    let data = root.path().join("data");
    std::fs::write(&data, "a file").unwrap();
    let folders = SkillFolders::new(skills_dir(&data, root.path()), root.path());
    let e = folders
        .apply(&upsert("x", "d"), &stamp())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with(&format!(
            "cannot create the folder {}",
            folders.dir().display()
        )),
        "{e}"
    );
}
