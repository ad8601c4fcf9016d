//! The `deny_paths` globs: small enough to write here rather than pull a
//! regex engine into the component.
//!
//! `*` matches within one component, `?` one character, `**` as a whole
//! component any number of components; there are no character classes.
//! Where a pattern applies follows gitignore: one without a `/` matches a
//! component at any depth (`*.pem`, `secrets`); one starting with `/` or
//! `~/` is absolute or in the home folder; any other is relative to the
//! workspace root (`config/prod/**`). A pattern that matches a folder
//! matches everything below it.

use crate::place::{Base, Place};

/// Whether `pattern` denies `place`, with `workspace` the root that
/// relative patterns start from.
pub(crate) fn denies(pattern: &str, place: &Place, workspace: &Place) -> bool {
    let pattern = pattern.trim_end_matches('/');
    if pattern.is_empty() {
        return false;
    }
    if !pattern.contains('/') {
        return place.comps.iter().any(|comp| segment(pattern, comp));
    }
    let (base, rest) = if let Some(rest) = pattern.strip_prefix('/') {
        (Base::Root, rest)
    } else if let Some(rest) = pattern.strip_prefix("~/") {
        (Base::Home, rest)
    } else {
        match place.below(workspace) {
            Some(below) => return components(&split(pattern), below),
            None => return false,
        }
    };
    place.base == base && components(&split(rest), &place.comps)
}

fn split(pattern: &str) -> Vec<&str> {
    pattern.split('/').filter(|s| !s.is_empty()).collect()
}

/// Whether the segments match the components or a leading part of them
/// (a folder the path is in). A table over (segment, component) keeps
/// `**` linear rather than exponential.
fn components(segs: &[&str], comps: &[String]) -> bool {
    let (m, n) = (segs.len(), comps.len());
    // matched[i][j]: segs[i..] matches comps[j..] or a leading part of it.
    let mut matched = vec![vec![false; n + 1]; m + 1];
    matched[m].fill(true);
    for i in (0..m).rev() {
        for j in (0..=n).rev() {
            matched[i][j] = if segs[i] == "**" {
                matched[i + 1][j] || (j < n && matched[i][j + 1])
            } else {
                j < n && segment(segs[i], &comps[j]) && matched[i + 1][j + 1]
            };
        }
    }
    matched[0][0]
}

/// One component against one segment's `*` and `?`, backtracking only to
/// the last `*` (so linear in practice, quadratic at worst).
fn segment(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let s: Vec<char> = name.chars().collect();
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < s.len() {
        if i < p.len() && p[i] == '*' {
            star = Some((i, j));
            i += 1;
        } else if i < p.len() && (p[i] == '?' || p[i] == s[j]) {
            i += 1;
            j += 1;
        } else if let Some((at, from)) = star {
            // Let the last `*` take one more character and retry.
            star = Some((at, from + 1));
            i = at + 1;
            j = from + 1;
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn denied(pattern: &str, path: &str) -> bool {
        let ws = Place::absolute("/workspace");
        denies(pattern, &Place::resolve(&ws, path), &ws)
    }

    #[test]
    fn a_pattern_without_a_slash_matches_at_any_depth() {
        assert!(denied("*.pem", "certs/server.pem"));
        assert!(denied("secrets", "app/secrets/db.txt"));
        assert!(!denied("*.pem", "certs/server.pem.txt"));
    }

    #[test]
    fn a_relative_pattern_starts_at_the_workspace_root() {
        assert!(denied("config/prod/**", "config/prod/db.yml"));
        assert!(denied("config/prod", "config/prod/db.yml"));
        assert!(denied("**/fixtures/*.json", "a/b/fixtures/x.json"));
        assert!(denied("**/fixtures/*.json", "fixtures/x.json"));
        assert!(!denied("config/prod", "app/config/prod/db.yml"));
        assert!(!denied("config/prod", "/etc/config/prod"));
    }

    #[test]
    fn absolute_and_home_patterns_match_their_own_base() {
        assert!(denied("/etc/**", "/etc/passwd"));
        assert!(denied("/workspace/vendor", "vendor/lib.rs"));
        assert!(denied("~/.ssh", "~/.ssh/id_ed25519"));
        assert!(!denied("~/.ssh", "/home/me/.ssh/id_ed25519"));
    }

    #[test]
    fn stars_and_question_marks_stay_within_a_component() {
        assert!(segment("a*b?d", "axxbcd"));
        assert!(segment("*", ""));
        assert!(!segment("a?", "a"));
        assert!(segment("*a*a*a*b", "aaaaaaaaaaaaaaaaaaaab"));
        assert!(!segment("*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaa"));
    }
}
