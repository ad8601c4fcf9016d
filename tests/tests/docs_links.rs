//! Docs that are true, as far as a test can tell: every relative link in
//! README.md and docs/*.md names a file that exists (anchors and web
//! links aside), so a renamed or removed page cannot leave a dead link.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a test fails by panicking, its helpers too"
)]

use std::path::{Path, PathBuf};

use amber_tests::repo_root;

/// The targets of the markdown links `[text](target)` in `text`, fenced
/// code blocks skipped.
fn link_targets(text: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            targets.push(after[..end].trim().to_string());
            rest = &after[end..];
        }
    }
    targets
}

fn pages(root: &Path) -> Vec<PathBuf> {
    let mut pages = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

#[test]
fn every_relative_link_in_the_docs_names_a_file_that_exists() {
    let root = repo_root();
    let mut dead = Vec::new();
    let mut checked = 0;
    for page in pages(&root) {
        let text = std::fs::read_to_string(&page).unwrap();
        for target in link_targets(&text) {
            let path = target.split('#').next().unwrap_or("");
            let external = ["http://", "https://", "mailto:"]
                .iter()
                .any(|scheme| target.starts_with(scheme));
            if path.is_empty() || external || path.contains(' ') {
                continue;
            }
            checked += 1;
            let resolved = page.parent().unwrap().join(path);
            if !resolved.exists() {
                dead.push(format!(
                    "{}: ({target})",
                    page.strip_prefix(&root).unwrap().display()
                ));
            }
        }
    }
    assert!(
        dead.is_empty(),
        "links to files that do not exist:\n{}",
        dead.join("\n")
    );
    assert!(
        checked > 0,
        "no relative links were found: the reader is broken"
    );
}

#[test]
fn the_link_reader_finds_links_and_skips_code() {
    let text = "see [a](docs/a.md) and [b](b.md#part)\n```\n[c](c.md)\n```\n[d](https://x)";
    assert_eq!(link_targets(text), ["docs/a.md", "b.md#part", "https://x"]);
}

/// The layouts in README.md and docs/architecture.md name every crate
/// of the workspace, and every SDK: a crate added later cannot be left
/// out of the map people read first.
#[test]
fn the_layouts_name_every_crate_and_sdk() {
    let root = repo_root();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let members_line = manifest
        .lines()
        .find(|l| l.starts_with("members"))
        .expect("the workspace lists its members");
    let members: Vec<&str> = members_line
        .split('"')
        .skip(1)
        .step_by(2)
        .collect();
    assert!(members.contains(&"host/core"), "{members:?}");
    let sdks = ["sdk/rust", "sdk/python", "sdk/js", "sdk/examples/c"];
    for page in ["README.md", "docs/architecture.md"] {
        let text = std::fs::read_to_string(root.join(page)).unwrap();
        for dir in members.iter().chain(sdks.iter()) {
            let named = text.contains(&format!("{dir}/")) || text.contains(&format!("{dir},"));
            assert!(named, "{page} does not name {dir}/ in its layout");
        }
    }
}
