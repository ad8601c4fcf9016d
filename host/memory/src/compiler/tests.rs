use super::input::*;
use super::*;

fn memory(record: i64, section: Section, title: &str, content: &str) -> MemoryItem {
    MemoryItem {
        record,
        revision: 1,
        section,
        title: title.into(),
        content: content.into(),
        tokens: None,
    }
}

fn reasons(c: &Compiled) -> Vec<(String, String)> {
    c.manifest
        .omitted
        .iter()
        .map(|o| (o.reference.clone(), o.reason.clone()))
        .collect()
}

fn refs(c: &Compiled) -> Vec<String> {
    c.manifest
        .selected
        .iter()
        .map(|s| s.reference.clone())
        .collect()
}

#[test]
fn sections_come_in_the_seed_order_after_state_and_session() {
    let mut input = CompileInput::new("fix the build");
    input.memory.items = vec![
        memory(1, Section::Corrective, "c", "corrects"),
        memory(2, Section::Support, "s", "supports"),
        memory(3, Section::Procedure, "p", "procedure"),
        memory(4, Section::Domain, "d", "domain"),
        memory(5, Section::Belief, "b", "belief"),
        memory(6, Section::Concept, "k", "concept"),
    ];
    input.repository = vec![RepositoryFact {
        source: "Cargo.toml".into(),
        fingerprint: "abc".into(),
        authority: DERIVED_REPOSITORY.into(),
        text: "a workspace of 8 crates".into(),
    }];
    input.session = vec![SessionItem {
        id: "s1".into(),
        text: "the user prefers small commits".into(),
    }];
    input.required = vec![StateItem {
        key: "release".into(),
        version: 3,
        epoch: "e1".into(),
        value: "frozen".into(),
    }];
    let c = compile(&input).unwrap();
    assert_eq!(
        refs(&c),
        [
            "state:release@3/e1",
            "session:s1",
            "memory:3@r1",
            "memory:6@r1",
            "memory:5@r1",
            "memory:4@r1",
            "memory:2@r1",
            "memory:1@r1",
            "repo:Cargo.toml#abc"
        ]
    );
    let order: Vec<usize> = [
        "## Required state",
        "## This session",
        "## Procedures",
        "## Concepts",
        "## Beliefs",
        "## Domain notes",
        "## Decisions",
        "## Corrections",
        "## Repository facts",
    ]
    .iter()
    .map(|h| c.rendered.find(h).unwrap())
    .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{}", c.rendered);
}

#[test]
fn required_items_fail_closed_when_they_cannot_fit() {
    let mut input = CompileInput::new("t");
    input.budget = 20;
    input.required = vec![StateItem {
        key: "k".into(),
        version: 1,
        epoch: "e".into(),
        value: "word ".repeat(50),
    }];
    let e = compile(&input).unwrap_err();
    assert!(
        matches!(e, CompileError::RequiredDoesNotFit { ref reference, budget: 20, .. } if reference == "state:k@1/e"),
        "{e}"
    );
    input.required[0].value = "\u{7}".into();
    assert!(matches!(
        compile(&input),
        Err(CompileError::RequiredUnusable { .. })
    ));
}

#[test]
fn an_item_that_does_not_fit_is_skipped_and_later_ones_are_tried() {
    let mut input = CompileInput::new("t");
    input.memory.items = vec![
        memory(1, Section::Procedure, "small", "one"),
        memory(2, Section::Procedure, "big", &"many words here ".repeat(40)),
        memory(3, Section::Procedure, "small too", "two"),
    ];
    input.budget = 60;
    let c = compile(&input).unwrap();
    assert_eq!(refs(&c), ["memory:1@r1", "memory:3@r1"]);
    let big = &c.manifest.omitted[0];
    assert_eq!(big.reason, "budget_exceeded");
    assert!(big.required_tokens.unwrap() > 100);
    assert!(c.manifest.tokens.used <= 60);
    // The accounting holds for the rendered text as a whole.
    assert!(tokens::count(&c.rendered).unwrap() <= c.manifest.tokens.used);
}

#[test]
fn every_omission_reason_is_explicit() {
    let mut input = CompileInput::new("t");
    input.memory.items = vec![
        memory(1, Section::Support, "a", "same text"),
        memory(2, Section::Support, "a", "same text"),
        memory(3, Section::Support, "empty", "\u{1}\u{2} "),
        memory(0, Section::Support, "no id", "x"),
    ];
    input.memory.suppressed = vec![GovernedSuppression {
        reference: "memory:9@r2".into(),
        reason: "superseded".into(),
    }];
    input.repository = vec![RepositoryFact {
        source: "x".into(),
        fingerprint: "f".into(),
        authority: "durable_memory".into(),
        text: "claims to be memory".into(),
    }];
    let c = compile(&input).unwrap();
    assert_eq!(
        reasons(&c),
        [
            ("memory:2@r1".to_string(), "duplicate_item".to_string()),
            ("memory:3@r1".into(), "empty_after_sanitization".into()),
            ("memory:0@r1".into(), "invalid_item".into()),
            ("repo:x#f".into(), "invalid_item".into()),
            (
                "memory:9@r2".into(),
                "governed_suppressed:superseded".into()
            ),
        ]
    );
    assert_eq!(c.manifest.counts.candidates, 6);
}

#[test]
fn secrets_are_redacted_and_the_manifest_holds_no_titles_or_bodies() {
    let mut input = CompileInput::new("deploy the service");
    input.memory.items = vec![memory(
        1,
        Section::Procedure,
        "Deploy with the staging key",
        "export API_KEY=sk-live-abcdefghijklmnopqrstuvwx then run deploy",
    )];
    let c = compile(&input).unwrap();
    assert!(!c.rendered.contains("sk-live"), "{}", c.rendered);
    assert!(c.rendered.contains("[REDACTED]"));
    assert!(c.manifest.selected[0].redacted);
    let json = serde_json::to_string(&c.manifest).unwrap();
    for body in [
        "Deploy with",
        "staging",
        "then run deploy",
        "deploy the service",
    ] {
        assert!(!json.contains(body), "the manifest leaks `{body}`: {json}");
    }
}

#[test]
fn the_same_inputs_give_the_same_manifest_digest() {
    let mut input = CompileInput::new("t");
    input.memory.items = vec![
        memory(1, Section::Support, "a", "alpha"),
        memory(2, Section::Belief, "b", "beta"),
    ];
    let a = compile(&input).unwrap();
    let b = compile(&input).unwrap();
    assert_eq!(a.manifest.digest, b.manifest.digest);
    assert_eq!(a.manifest.digest.len(), 64);
    input.memory.items[0].content = "alpha!".into();
    assert_ne!(compile(&input).unwrap().manifest.digest, a.manifest.digest);
}

#[test]
fn stored_token_counts_are_used_only_for_unchanged_text() {
    let mut input = CompileInput::new("t");
    let mut m = memory(1, Section::Support, "a", "alpha");
    m.tokens = Some(999);
    input.memory.items = vec![m.clone()];
    input.budget = 10_000;
    assert_eq!(compile(&input).unwrap().manifest.selected[0].tokens, 999);
    m.content = "alpha\u{7}".into();
    input.memory.items = vec![m];
    assert!(compile(&input).unwrap().manifest.selected[0].tokens < 10);
}

#[test]
fn nothing_selected_renders_nothing() {
    let c = compile(&CompileInput::new("t")).unwrap();
    assert!(c.rendered.is_empty());
    assert_eq!(c.manifest.tokens.used, 0);
}
