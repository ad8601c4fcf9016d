//! BERT's uncased WordPiece tokenizer, as the model's `tokenizer.json`
//! declares it: clean the text, put spaces around CJK ideographs,
//! lowercase and strip accents, split on whitespace and punctuation, then
//! cut each word into the longest vocabulary pieces from its start, the
//! later ones prefixed with `##`.
//!
//! Without Unicode's category tables, three things are approximated:
//! - BERT splits on *punctuation* (category P); this splits on every
//!   character that is not a letter, digit or space, so a symbol such as
//!   `€` becomes its own word rather than part of its neighbour;
//! - BERT strips nonspacing marks (Mn) after decomposing; this strips
//!   every combining mark, spacing ones (Mc, as in Devanagari) too;
//! - BERT drops every format, private-use and unassigned character; this
//!   drops the format and private-use ones it lists, not unassigned ones.
//!
//! English, code and accented Latin text tokenize exactly as the
//! reference does (tested against its output, CJK and emoji included).

use std::collections::HashMap;

use serde::Deserialize;
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// The vocabulary and the special tokens the model was trained with.
#[derive(Debug)]
pub struct WordPiece {
    vocab: HashMap<String, u32>,
    unknown: u32,
    start: u32,
    end: u32,
    longest_word: usize,
}

#[derive(Deserialize)]
struct TokenizerFile {
    model: VocabModel,
}

#[derive(Deserialize)]
struct VocabModel {
    #[serde(rename = "type")]
    kind: String,
    vocab: HashMap<String, u32>,
    unk_token: String,
    #[serde(default = "default_prefix")]
    continuing_subword_prefix: String,
    #[serde(default = "default_longest")]
    max_input_chars_per_word: usize,
}

fn default_prefix() -> String {
    "##".to_string()
}

fn default_longest() -> usize {
    100
}

impl WordPiece {
    /// Reads a Hugging Face `tokenizer.json` whose model is WordPiece.
    pub(crate) fn from_json(text: &str) -> Result<Self, String> {
        let file: TokenizerFile =
            serde_json::from_str(text).map_err(|e| format!("not a tokenizer file: {e}"))?;
        let model = file.model;
        if model.kind != "WordPiece" || model.continuing_subword_prefix != "##" {
            return Err(format!(
                "the tokenizer is {} with prefix {:?}; only BERT's WordPiece with ## is supported",
                model.kind, model.continuing_subword_prefix
            ));
        }
        let id = |token: &str| {
            model
                .vocab
                .get(token)
                .copied()
                .ok_or_else(|| format!("the vocabulary has no {token}"))
        };
        Ok(WordPiece {
            unknown: id(&model.unk_token)?,
            start: id("[CLS]")?,
            end: id("[SEP]")?,
            longest_word: model.max_input_chars_per_word,
            vocab: model.vocab,
        })
    }

    /// The largest id in the vocabulary, to check it against the model's
    /// embedding table.
    pub fn largest_id(&self) -> u32 {
        self.vocab.values().copied().max().unwrap_or(0)
    }

    /// The ids of `text` between `[CLS]` and `[SEP]`, at most `max_len` in
    /// all: a longer text keeps its beginning.
    pub fn encode(&self, text: &str, max_len: usize) -> Vec<u32> {
        let room = max_len.saturating_sub(2);
        let mut ids = vec![self.start];
        'words: for word in words(text) {
            for piece in self.pieces(&word) {
                if ids.len() > room {
                    break 'words;
                }
                ids.push(piece);
            }
        }
        ids.push(self.end);
        ids
    }

    /// Greedy longest-match-first; a word with any unmatched rest is one
    /// unknown token, as in BERT.
    fn pieces(&self, word: &str) -> Vec<u32> {
        let chars: Vec<char> = word.chars().collect();
        if chars.len() > self.longest_word {
            return vec![self.unknown];
        }
        let mut out = Vec::new();
        let mut start = 0;
        while start < chars.len() {
            let mut end = chars.len();
            let mut found = None;
            while start < end {
                let mut piece: String = chars[start..end].iter().collect();
                if start > 0 {
                    piece.insert_str(0, "##");
                }
                if let Some(&id) = self.vocab.get(&piece) {
                    found = Some(id);
                    break;
                }
                end -= 1;
            }
            match found {
                Some(id) => out.push(id),
                None => return vec![self.unknown],
            }
            start = end;
        }
        out
    }
}

/// The normalised words of `text`: BERT's basic tokenizer.
fn words(text: &str) -> Vec<String> {
    let mut spaced = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        // BERT keeps tab and line breaks as spaces and drops every other
        // control or format character (a soft hyphen inside a word).
        let kept_space = matches!(c, '\t' | '\n' | '\r');
        if c == '\u{fffd}' || is_invisible(c) || (c.is_control() && !kept_space) {
            continue;
        }
        if is_cjk(c) {
            spaced.push(' ');
            spaced.push(c);
            spaced.push(' ');
        } else if c.is_whitespace() {
            spaced.push(' ');
        } else {
            spaced.push(c);
        }
    }
    let lowered: String = spaced
        .to_lowercase()
        .nfd()
        .filter(|c| !is_combining_mark(*c))
        .collect();
    let mut out = Vec::new();
    for chunk in lowered.split(' ').filter(|w| !w.is_empty()) {
        let mut word = String::new();
        for c in chunk.chars() {
            if c.is_alphanumeric() {
                word.push(c);
            } else {
                if !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
                out.push(c.to_string());
            }
        }
        if !word.is_empty() {
            out.push(word);
        }
    }
    out
}

/// Format and private-use characters (Unicode Cf and Co), which BERT
/// removes: soft hyphens, zero-width spaces and joiners, direction marks,
/// byte-order marks.
fn is_invisible(c: char) -> bool {
    matches!(c as u32,
        0x00AD
        | 0x0600..=0x0605
        | 0x061C
        | 0x06DD
        | 0x070F
        | 0x180E
        | 0x200B..=0x200F
        | 0x202A..=0x202E
        | 0x2060..=0x2064
        | 0x2066..=0x206F
        | 0xFEFF
        | 0xFFF9..=0xFFFB
        | 0xE000..=0xF8FF
        | 0xF0000..=0x10FFFF)
}

/// The CJK ideograph blocks BERT spaces out (not Hangul or kana, which
/// it treats as letters).
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF
        | 0x3400..=0x4DBF
        | 0x20000..=0x2A6DF
        | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F
        | 0x2B820..=0x2CEAF
        | 0xF900..=0xFAFF
        | 0x2F800..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> WordPiece {
        let vocab = [
            "[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "cafe", ",", "run",
            "##ning", "中",
        ];
        let map: serde_json::Map<String, serde_json::Value> = vocab
            .iter()
            .enumerate()
            .map(|(i, t)| (t.to_string(), serde_json::json!(i)))
            .collect();
        let json =
            serde_json::json!({"model": {"type": "WordPiece", "unk_token": "[UNK]", "vocab": map}});
        WordPiece::from_json(&json.to_string()).unwrap()
    }

    #[test]
    fn words_are_cut_into_the_longest_pieces_and_unknown_rests_are_one_token() {
        let wp = tiny();
        // [CLS] un ##aff ##able , cafe run ##ning [UNK] 中 [SEP]
        assert_eq!(
            wp.encode("Unaffable, CAFÉ running xyz中", 64),
            vec![2, 4, 5, 6, 8, 7, 9, 10, 1, 11, 3]
        );
    }

    #[test]
    fn invisible_and_control_characters_are_dropped_not_split_on() {
        let wp = tiny();
        // A soft hyphen, a zero-width space and a form feed inside a word.
        assert_eq!(
            wp.encode("un\u{00AD}aff\u{200B}ab\x0Cle\trunning", 64),
            vec![2, 4, 5, 6, 9, 10, 3]
        );
    }

    #[test]
    fn a_long_text_keeps_its_start_and_both_markers() {
        let wp = tiny();
        assert_eq!(
            wp.encode("running running running", 5),
            vec![2, 9, 10, 9, 3]
        );
    }

    #[test]
    fn a_tokenizer_that_is_not_wordpiece_is_refused() {
        let json = r#"{"model": {"type": "BPE", "unk_token": "[UNK]", "vocab": {}}}"#;
        assert!(WordPiece::from_json(json).unwrap_err().contains("BPE"));
    }
}
