//! "Did you mean …?" for a word that names no command. Seed: "Command
//! dispatch" (unknown command, try /help).

/// The name in `names` that `word` was most likely meant to be: the only
/// one it begins (`/plu` → `plugins`), else the nearest by edit distance
/// if that is at most max(2, a third of the word's length). Ties go to
/// the first name in order.
pub(crate) fn nearest<'a>(
    word: &str,
    names: impl Iterator<Item = &'a str> + Clone,
) -> Option<&'a str> {
    if word.is_empty() {
        return None;
    }
    let mut prefixed = names.clone().filter(|n| n.starts_with(word));
    if let (Some(only), None) = (prefixed.next(), prefixed.next()) {
        return Some(only);
    }
    let length = word.chars().count();
    let limit = (length / 3).max(2);
    names
        // The distance is at least the difference in length: skipping
        // those keeps a huge pasted word from costing length × name work.
        .filter(|n| n.chars().count().abs_diff(length) <= limit)
        .map(|n| (edit_distance(word, n), n))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

/// Levenshtein distance over characters: the fewest insertions, deletions
/// and substitutions that turn `a` into `b`. A dozen lines here rather
/// than a dependency that would move two lockfiles.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_table() {
        for (a, b, d) in [
            ("", "", 0),
            ("abc", "", 3),
            ("", "abc", 3),
            ("plugns", "plugins", 1),
            ("kitten", "sitting", 3),
            ("stauts", "status", 2),
            ("模型", "模形", 1),
        ] {
            assert_eq!(edit_distance(a, b), d, "{a} → {b}");
            assert_eq!(edit_distance(b, a), d, "{b} → {a}");
        }
    }

    #[test]
    fn nearest_prefers_a_unique_prefix_then_the_closest_name() {
        let names = [
            "clear", "get", "help", "hooks", "mcp", "plugins", "quit", "sessions", "set", "status",
        ];
        let near = |w| nearest(w, names.iter().copied());
        assert_eq!(near("plugns"), Some("plugins"));
        assert_eq!(near("plu"), Some("plugins"));
        assert_eq!(near("stauts"), Some("status"));
        assert_eq!(near("sett"), Some("set"));
        // "se" begins two names, so no unique prefix; "set" is 1 away.
        assert_eq!(near("se"), Some("set"));
        assert_eq!(near("frobnicate"), None);
        assert_eq!(near(""), None);
        assert_eq!(near(&"x".repeat(100_000)), None);
    }
}
