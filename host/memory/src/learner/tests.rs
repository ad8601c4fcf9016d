use amber_core::ports::SkillOp;

use super::*;
use crate::model::{ChangeKind, Status};
use crate::skills::{read_skill, SKILL_FILE};
use crate::store::ListFilter;

const THRESHOLD: u32 = 3;

/// A workspace and a data dir in one temporary folder, and a learner over
/// them.
fn scratch() -> (tempfile::TempDir, MemoryLearner) {
    let root = tempfile::tempdir().unwrap();
    let workspace = root.path().join("project");
    std::fs::create_dir(&workspace).unwrap();
    let learner = MemoryLearner::in_data_dir(&root.path().join("data"), &workspace, THRESHOLD);
    (root, learner)
}

fn memory(kind: MemoryKind, title: &str, content: &str) -> MemoryOp {
    MemoryOp {
        kind,
        title: title.into(),
        content: content.into(),
        tags: vec!["Build Cache".into()],
    }
}

fn ops(memory_ops: Vec<MemoryOp>, skill_ops: Vec<SkillOp>) -> LearnOps {
    LearnOps {
        memory_ops,
        skill_ops,
        session_id: Some("s-42".into()),
        model: "model-x".into(),
    }
}

fn upsert(name: &str) -> SkillOp {
    SkillOp::Upsert {
        name: name.into(),
        description: "Releasing: bump, \"tag\"\nand publish".into(),
        trigger: "cutting a release".into(),
        body: "1. Bump.\n2. Tag.".into(),
    }
}

fn records(learner: &MemoryLearner) -> Vec<crate::model::Record> {
    let store = Store::open(&learner.database).unwrap();
    store
        .list(&learner.namespace, &ListFilter::default())
        .unwrap()
}

#[test]
fn a_learner_can_be_shared_across_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<MemoryLearner>();
}

#[test]
fn memories_start_at_the_promote_threshold_as_candidates_with_their_provenance() {
    let (_root, learner) = scratch();
    let report = learner
        .apply(&ops(
            vec![
                memory(MemoryKind::Gotcha, "flock", "Wrap cargo in flock."),
                memory(MemoryKind::DomainNote, "ns", "A namespace is a project."),
            ],
            Vec::new(),
        ))
        .unwrap();
    assert_eq!(
        report,
        LearnReport {
            memories_written: 2,
            skills_written: 0
        }
    );
    let records = records(&learner);
    assert_eq!(records.len(), 2);
    for record in &records {
        assert_eq!(record.evidence, i64::from(THRESHOLD));
        assert_eq!(record.draft.status, Status::Candidate);
        let p = &record.draft.provenance;
        assert_eq!(
            (p.actor.as_deref(), p.session.as_deref(), p.model.as_deref()),
            (Some(LEARNER_ACTOR), Some("s-42"), Some("model-x"))
        );
        assert_eq!(record.draft.tags, ["build-cache"]);
        assert!(record.namespace.starts_with("project:/"));
    }
    let mut types: Vec<_> = records.iter().map(|r| r.draft.record_type).collect();
    types.sort();
    assert_eq!(types, [RecordType::Gotcha, RecordType::DomainNote]);
}

#[test]
fn the_same_content_again_only_raises_its_evidence_and_counts_as_written() {
    let (_root, learner) = scratch();
    let op = memory(MemoryKind::Gotcha, "flock", "Wrap cargo in flock.");
    learner.apply(&ops(vec![op.clone()], Vec::new())).unwrap();
    let mut again = ops(vec![op], Vec::new());
    again.session_id = Some("s-43".into());
    let report = learner.apply(&again).unwrap();
    assert_eq!(report.memories_written, 1);
    let records = records(&learner);
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].evidence, i64::from(THRESHOLD) + 1);
    let store = Store::open(&learner.database).unwrap();
    let history = store.history(records[0].id).unwrap();
    assert_eq!(
        history.iter().map(|r| r.change).collect::<Vec<_>>(),
        [ChangeKind::Created, ChangeKind::Evidence]
    );
}

#[test]
fn memory_kinds_map_to_the_record_types_of_the_same_word() {
    use MemoryKind::*;
    for kind in [
        Decision, Gotcha, Procedure, Concept, Belief, DomainNote, Summary,
    ] {
        assert_eq!(record_type(kind).as_str(), kind.as_str());
    }
}

#[test]
fn an_invalid_memory_refuses_the_cycle_naming_it() {
    let (root, learner) = scratch();
    let e = learner
        .apply(&ops(
            vec![
                memory(MemoryKind::Gotcha, "fine", "A good memory."),
                memory(MemoryKind::Gotcha, "empty", "   "),
            ],
            vec![upsert("cut-a-release")],
        ))
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "learner: memory 2 of 2 (\"empty\"): invalid content: it is empty; nothing was learned"
    );
    // Neither the database nor a skill folder was made.
    assert!(!root.path().join("data").exists());
}

#[test]
fn a_bad_skill_name_refuses_the_cycle_and_nothing_is_written_anywhere() {
    let (root, learner) = scratch();
    for name in ["../x", "A", ""] {
        let e = learner
            .apply(&ops(
                vec![memory(MemoryKind::Gotcha, "fine", "A good memory.")],
                vec![upsert("good-one"), upsert(name)],
            ))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("learner: invalid skill name") && e.ends_with("nothing was learned"),
            "{e}"
        );
    }
    let mut left = Vec::new();
    for entry in std::fs::read_dir(root.path()).unwrap().flatten() {
        left.push(entry.file_name().to_string_lossy().into_owned());
    }
    assert_eq!(left, ["project"]);
    assert_eq!(
        std::fs::read_dir(root.path().join("project"))
            .unwrap()
            .count(),
        0
    );
}

#[test]
fn skills_are_upserted_and_deprecated_and_counted() {
    let (_root, learner) = scratch();
    let report = learner
        .apply(&ops(Vec::new(), vec![upsert("cut-a-release")]))
        .unwrap();
    assert_eq!(
        report,
        LearnReport {
            memories_written: 0,
            skills_written: 1
        }
    );
    // A cycle with skills only never makes the database.
    assert!(!learner.database.exists());
    let path = learner.skills.dir().join("cut-a-release").join(SKILL_FILE);
    let skill = read_skill(&path).unwrap();
    assert_eq!(skill.description, "Releasing: bump, \"tag\"\nand publish");
    assert_eq!(skill.trigger.as_deref(), Some("cutting a release"));
    assert!(skill.candidate && !skill.deprecated);
    assert_eq!(
        (skill.session.as_deref(), skill.model.as_deref()),
        (Some("s-42"), Some("model-x"))
    );
    let deprecate = |name: &str| SkillOp::Deprecate {
        name: name.into(),
        reason: Some("tags are signed now".into()),
    };
    let report = learner
        .apply(&ops(
            Vec::new(),
            vec![deprecate("cut-a-release"), deprecate("unknown")],
        ))
        .unwrap();
    assert_eq!(report.skills_written, 1);
    let skill = read_skill(&path).unwrap();
    assert!(skill.deprecated);
    assert_eq!(
        skill.deprecated_reason.as_deref(),
        Some("tags are signed now")
    );
    assert!(!learner.skills.dir().join("unknown").exists());
}

#[test]
fn a_skill_that_cannot_be_written_names_the_path_and_what_was_kept() {
    let root = tempfile::tempdir().unwrap();
    let workspace = root.path().join("project");
    std::fs::create_dir(&workspace).unwrap();
    // A file where the skills folder should be.
    let blocked = root.path().join("blocked");
    std::fs::write(&blocked, "a file").unwrap();
    let learner = MemoryLearner::new(
        root.path().join("data").join(DATABASE_FILE),
        &workspace,
        THRESHOLD,
        blocked.join("skills"),
    );
    let e = learner
        .apply(&ops(
            vec![memory(MemoryKind::Gotcha, "flock", "Wrap cargo in flock.")],
            vec![upsert("cut-a-release")],
        ))
        .unwrap_err()
        .to_string();
    let named = format!(
        "learner: cannot create the folder {}",
        blocked.join("skills").display()
    );
    assert!(e.starts_with(&named), "{e}");
    assert!(e.ends_with("; kept 1 memory and 0 skills"), "{e}");
    assert_eq!(records(&learner).len(), 1);
}

#[test]
fn a_database_that_cannot_be_opened_is_named_and_nothing_is_learned() {
    let root = tempfile::tempdir().unwrap();
    let blocked = root.path().join("blocked");
    std::fs::write(&blocked, "a file").unwrap();
    let learner = MemoryLearner::new(
        blocked.join(DATABASE_FILE),
        root.path(),
        THRESHOLD,
        root.path().join("skills"),
    );
    let e = learner
        .apply(&ops(
            vec![memory(MemoryKind::Gotcha, "flock", "Wrap cargo in flock.")],
            vec![upsert("cut-a-release")],
        ))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(&blocked.display().to_string()) && e.ends_with("nothing was learned"),
        "{e}"
    );
    assert!(!root.path().join("skills").exists());
}
