//! Turns free text into an FTS5 query that cannot be a syntax error.
//! User text never reaches FTS5's grammar: it is cut into words, each
//! word is quoted as a string, and the words are ORed, so `"`, `AND OR`,
//! `foo*(` or `NEAR(` are just words (or nothing) and bm25 ranks records
//! by how many of the words they share, and how rare those are.

/// Words too common to tell records apart; dropping them keeps bm25 from
/// rewarding records for sharing "how do we" with the question.
const STOPWORDS: &[&str] = &[
    "a", "about", "an", "and", "any", "are", "as", "at", "be", "by", "can", "could", "did", "do",
    "does", "for", "from", "had", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its",
    "me", "my", "not", "of", "on", "or", "our", "should", "so", "that", "the", "their", "them",
    "then", "there", "these", "this", "those", "to", "us", "was", "we", "were", "what", "when",
    "where", "which", "while", "who", "why", "will", "with", "would", "you", "your",
];

/// At most this many words go into one query.
pub const MAX_TERMS: usize = 32;

/// The distinct, lowercase, non-stopword words of `text`, in order.
pub fn terms(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        let word = word.to_lowercase();
        // One letter alone is a fragment ("guest's" gives "s"), not a word.
        let fragment = word.chars().count() < 2 && !word.chars().all(|c| c.is_ascii_digit());
        if word.is_empty() || fragment || STOPWORDS.contains(&word.as_str()) || out.contains(&word)
        {
            continue;
        }
        out.push(word);
        if out.len() == MAX_TERMS {
            break;
        }
    }
    out
}

/// The MATCH expression for any of `terms`, or `None` when there are none.
pub fn any_of(terms: &[String]) -> Option<String> {
    if terms.is_empty() {
        return None;
    }
    // Words hold only alphanumerics, so quoting needs no escaping.
    Some(
        terms
            .iter()
            .map(|t| phrase(t))
            .collect::<Vec<_>>()
            .join(" OR "),
    )
}

/// The MATCH expression for records holding at least two of `terms`:
/// every pair ANDed, the pairs ORed. Each word appears in the same number
/// of pairs, so bm25 over it ranks exactly as over the words ORed, only
/// among fewer records. One word alone is just that word.
pub fn at_least_two(terms: &[String]) -> Option<String> {
    if terms.len() < 2 {
        return any_of(terms);
    }
    let mut pairs = Vec::new();
    for (i, a) in terms.iter().enumerate() {
        for b in &terms[i + 1..] {
            pairs.push(format!("({} AND {})", phrase(a), phrase(b)));
        }
    }
    Some(pairs.join(" OR "))
}

/// One word as an FTS5 string, which FTS5 never reads as syntax.
pub fn phrase(term: &str) -> String {
    format!("\"{term}\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn match_expression(text: &str) -> Option<String> {
        any_of(&terms(text))
    }

    #[test]
    fn operators_and_quotes_become_plain_words_or_nothing() {
        assert_eq!(match_expression("\""), None);
        assert_eq!(match_expression("AND OR"), None);
        assert_eq!(match_expression("foo*("), Some("\"foo\"".into()));
        assert_eq!(match_expression("NEAR(a b"), Some("\"near\"".into()));
        assert_eq!(
            match_expression("a guest's 5 ms"),
            Some("\"guest\" OR \"5\" OR \"ms\"".into())
        );
        assert_eq!(
            match_expression("How do we parse_config?"),
            Some("\"parse\" OR \"config\"".into())
        );
    }

    #[test]
    fn at_least_two_pairs_every_word_with_every_other() {
        let words: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        assert_eq!(
            at_least_two(&words).unwrap(),
            "(\"a\" AND \"b\") OR (\"a\" AND \"c\") OR (\"b\" AND \"c\")"
        );
        assert_eq!(at_least_two(&words[..1]).unwrap(), "\"a\"");
    }

    #[test]
    fn words_are_distinct_and_bounded() {
        let many: String = (0..100).map(|i| format!("w{i} w{i} ")).collect();
        assert_eq!(terms(&many).len(), MAX_TERMS);
    }
}
