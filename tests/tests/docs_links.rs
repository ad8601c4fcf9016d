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
