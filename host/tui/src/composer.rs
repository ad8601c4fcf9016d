//! The prompt editor: multi-line text with a cursor, the prompts sent
//! before (Up and Down), and pasted text taken whole. Keys are mapped to
//! edits by the caller (`keys.rs`); this module only edits.
//!
//! A large paste (a log, a file) is shown as one placeholder such as
//! `[pasted 1,204 lines]` and kept aside: the editor stays usable and
//! the prompt is sent with the whole text where the placeholder stands.

use unicode_width::UnicodeWidthStr;

/// A paste of more lines than this is collapsed to a placeholder.
const LARGE_LINES: usize = 1_000;
/// A paste of more bytes than this is collapsed to a placeholder.
const LARGE_BYTES: usize = 100 * 1024;

/// A large paste: the placeholder the editor shows, and the text it
/// stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Pasted {
    placeholder: String,
    text: String,
}

/// A prompt as the editor holds it: its text with placeholders, and the
/// pastes they stand for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Prompt {
    text: String,
    pasted: Vec<Pasted>,
}

#[derive(Debug, Default)]
pub struct Composer {
    lines: Vec<String>,
    /// Line index and char index within it.
    row: usize,
    col: usize,
    /// The large pastes the placeholders in `lines` stand for.
    pasted: Vec<Pasted>,
    /// Sent prompts, collapsed as they were shown, with their pastes: Up
    /// brings back the placeholder, not a thousand lines to scroll past,
    /// and Enter sends the whole text again.
    sent: Vec<Prompt>,
    /// Where Up/Down is in `sent`; `None` while editing a new prompt.
    browsing: Option<usize>,
    /// The new prompt set aside while browsing.
    draft: Option<Prompt>,
}

impl Composer {
    pub fn new() -> Self {
        Composer {
            lines: vec![String::new()],
            ..Composer::default()
        }
    }

    /// The prompt as shown: large pastes as their placeholders.
    pub fn text(&self) -> String {
        self.lines.join("\n")
    }

    /// The prompt as it would be sent: each placeholder replaced by the
    /// text it stands for.
    pub fn full_text(&self) -> String {
        expand(&self.text(), &self.pasted)
    }

    pub fn is_empty(&self) -> bool {
        self.lines.iter().all(|l| l.is_empty())
    }

    /// The lines as shown (large pastes as their placeholders).
    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    /// The cursor as (line, display column).
    pub fn cursor(&self) -> (usize, usize) {
        let line = &self.lines[self.row];
        let before: String = line.chars().take(self.col).collect();
        (self.row, before.width())
    }

    /// Whether Up and Down are moving through the prompts sent before.
    pub fn is_browsing(&self) -> bool {
        self.browsing.is_some()
    }

    /// The whole prompt replaced by `text`, the cursor at its end (the
    /// drawer's completion).
    pub fn replace(&mut self, text: &str) {
        self.browsing = None;
        self.set_text(text);
    }

    fn set_text(&mut self, text: &str) {
        self.lines = text.split('\n').map(String::from).collect();
        self.row = self.lines.len() - 1;
        self.col = self.lines[self.row].chars().count();
    }

    /// The prompt (text and pastes) as it stands, for history.
    fn prompt(&self) -> Prompt {
        Prompt {
            text: self.text(),
            pasted: self.pasted.clone(),
        }
    }

    fn set_prompt(&mut self, prompt: Prompt) {
        self.set_text(&prompt.text);
        self.pasted = prompt.pasted;
    }

    fn byte_at(&self, col: usize) -> usize {
        let line = &self.lines[self.row];
        line.char_indices().nth(col).map_or(line.len(), |(i, _)| i)
    }

    pub fn insert(&mut self, c: char) {
        self.browsing = None;
        if c == '\n' {
            self.newline();
            return;
        }
        let at = self.byte_at(self.col);
        self.lines[self.row].insert(at, c);
        self.col += 1;
    }

    /// Text inserted at the cursor as it is, never collapsed (a
    /// completion); CR, CRLF and LF each break the line.
    pub fn insert_str(&mut self, s: &str) {
        self.browsing = None;
        let text = normalize_breaks(s);
        for (i, piece) in text.split('\n').enumerate() {
            if i > 0 {
                self.newline();
            }
            let at = self.byte_at(self.col);
            self.lines[self.row].insert_str(at, piece);
            self.col += piece.chars().count();
        }
    }

    /// Pasted text, inserted whole. Terminals send a pasted line break
    /// as CR, some as CRLF: each of CR, CRLF and LF is one break. A large
    /// paste is shown as one placeholder and sent whole.
    pub fn paste(&mut self, text: &str) {
        let text = normalize_breaks(text);
        let lines = text.lines().count();
        if lines <= LARGE_LINES && text.len() <= LARGE_BYTES {
            self.insert_str(&text);
            return;
        }
        let label = if lines > LARGE_LINES {
            format!("pasted {} lines", amber_core::text::thousands(lines))
        } else {
            format!("pasted {} KB", amber_core::text::thousands(text.len().div_ceil(1024)))
        };
        // Two pastes of the same size get different placeholders, so each
        // stands for its own text.
        let mut placeholder = format!("[{label}]");
        let mut n = 1;
        while self.pasted.iter().any(|p| p.placeholder == placeholder) {
            n += 1;
            placeholder = format!("[{label} #{n}]");
        }
        self.insert_str(&placeholder);
        self.pasted.push(Pasted { placeholder, text });
    }

    pub fn newline(&mut self) {
        let at = self.byte_at(self.col);
        let rest = self.lines[self.row].split_off(at);
        self.lines.insert(self.row + 1, rest);
        self.row += 1;
        self.col = 0;
    }

    /// The paste whose placeholder ends right at the cursor, if any.
    fn placeholder_before_cursor(&self) -> Option<usize> {
        let before = &self.lines[self.row][..self.byte_at(self.col)];
        self.pasted
            .iter()
            .position(|p| before.ends_with(&p.placeholder))
    }

    /// The paste whose placeholder starts right at the cursor, if any.
    fn placeholder_after_cursor(&self) -> Option<usize> {
        let after = &self.lines[self.row][self.byte_at(self.col)..];
        self.pasted
            .iter()
            .position(|p| after.starts_with(&p.placeholder))
    }

    /// Backspace; a placeholder goes whole, with the text it stands for.
    pub fn backspace(&mut self) {
        if let Some(i) = self.placeholder_before_cursor() {
            let pasted = self.pasted.remove(i);
            let chars = pasted.placeholder.chars().count();
            let end = self.byte_at(self.col);
            let start = self.byte_at(self.col - chars);
            self.lines[self.row].replace_range(start..end, "");
            self.col -= chars;
            return;
        }
        if self.col > 0 {
            let at = self.byte_at(self.col - 1);
            self.lines[self.row].remove(at);
            self.col -= 1;
        } else if self.row > 0 {
            let line = self.lines.remove(self.row);
            self.row -= 1;
            self.col = self.lines[self.row].chars().count();
            self.lines[self.row].push_str(&line);
        }
    }

    /// Delete; a placeholder goes whole, with the text it stands for.
    pub fn delete(&mut self) {
        if let Some(i) = self.placeholder_after_cursor() {
            let pasted = self.pasted.remove(i);
            let start = self.byte_at(self.col);
            let end = start + pasted.placeholder.len();
            self.lines[self.row].replace_range(start..end, "");
            return;
        }
        let len = self.lines[self.row].chars().count();
        if self.col < len {
            let at = self.byte_at(self.col);
            self.lines[self.row].remove(at);
        } else if self.row + 1 < self.lines.len() {
            let next = self.lines.remove(self.row + 1);
            self.lines[self.row].push_str(&next);
        }
    }

    /// The word that ends at the cursor (after the last whitespace before
    /// it on its line), and the char column it starts at: what `@path`
    /// completion completes.
    pub fn current_word(&self) -> (String, usize) {
        let before: Vec<char> = self.lines[self.row].chars().take(self.col).collect();
        let start = before
            .iter()
            .rposition(|c| c.is_whitespace())
            .map_or(0, |i| i + 1);
        (before[start..].iter().collect(), start)
    }

    /// The word that ends at the cursor replaced by `with`, the cursor
    /// after it.
    pub fn replace_current_word(&mut self, with: &str) {
        let (_, start) = self.current_word();
        let from = self.byte_at(start);
        let to = self.byte_at(self.col);
        self.lines[self.row].replace_range(from..to, "");
        self.col = start;
        self.insert_str(with);
    }

    pub fn left(&mut self) {
        if self.col > 0 {
            self.col -= 1;
        } else if self.row > 0 {
            self.row -= 1;
            self.col = self.lines[self.row].chars().count();
        }
    }

    pub fn right(&mut self) {
        if self.col < self.lines[self.row].chars().count() {
            self.col += 1;
        } else if self.row + 1 < self.lines.len() {
            self.row += 1;
            self.col = 0;
        }
    }

    pub fn home(&mut self) {
        self.col = 0;
    }

    pub fn end(&mut self) {
        self.col = self.lines[self.row].chars().count();
    }

    /// Up: the line above, or on the first line the previous prompt.
    pub fn up(&mut self) {
        if self.row > 0 {
            self.row -= 1;
            self.col = self.col.min(self.lines[self.row].chars().count());
            return;
        }
        let next = match self.browsing {
            None if self.sent.is_empty() => return,
            None => {
                self.draft = Some(self.prompt());
                self.sent.len() - 1
            }
            Some(0) => return,
            Some(i) => i - 1,
        };
        self.browsing = Some(next);
        let prompt = self.sent[next].clone();
        self.set_prompt(prompt);
    }

    /// Down: the line below, or on the last line the next prompt (and
    /// after the newest, what was being typed).
    pub fn down(&mut self) {
        if self.row + 1 < self.lines.len() {
            self.row += 1;
            self.col = self.col.min(self.lines[self.row].chars().count());
            return;
        }
        let Some(i) = self.browsing else {
            return;
        };
        if i + 1 < self.sent.len() {
            self.browsing = Some(i + 1);
            let prompt = self.sent[i + 1].clone();
            self.set_prompt(prompt);
        } else {
            self.browsing = None;
            let draft = self.draft.take().unwrap_or_default();
            self.set_prompt(draft);
        }
    }

    /// Takes the prompt out (Enter), each placeholder replaced by the
    /// text it stands for; it is remembered for Up as it was shown.
    pub fn take(&mut self) -> String {
        let prompt = self.prompt();
        let text = expand(&prompt.text, &prompt.pasted);
        if !prompt.text.trim().is_empty() && self.sent.last() != Some(&prompt) {
            self.sent.push(prompt);
        }
        self.lines = vec![String::new()];
        self.row = 0;
        self.col = 0;
        self.pasted.clear();
        self.browsing = None;
        self.draft = None;
        text
    }

    /// Empties the editor without sending (Ctrl-C on a prompt).
    pub fn clear(&mut self) {
        self.lines = vec![String::new()];
        self.row = 0;
        self.col = 0;
        self.pasted.clear();
        self.browsing = None;
    }
}

/// CR, CRLF and LF each made one `\n`.
fn normalize_breaks(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// `text` with each placeholder of `pasted` replaced by its text, in one
/// pass from the left, so a pasted text that happens to hold a
/// placeholder's words is not expanded again.
fn expand(text: &str, pasted: &[Pasted]) -> String {
    if pasted.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let next = pasted
            .iter()
            .filter_map(|p| rest.find(&p.placeholder).map(|at| (at, p)))
            .min_by_key(|&(at, _)| at);
        let Some((at, p)) = next else {
            break;
        };
        out.push_str(&rest[..at]);
        out.push_str(&p.text);
        rest = &rest[at + p.placeholder.len()..];
    }
    out.push_str(rest);
    out
}


#[cfg(test)]
mod tests {
    use super::*;

    fn typed(c: &mut Composer, text: &str) {
        for ch in text.chars() {
            c.insert(ch);
        }
    }

    fn numbered(n: usize, sep: &str) -> String {
        (1..=n)
            .map(|i| format!("line {i}"))
            .collect::<Vec<_>>()
            .join(sep)
    }

    #[test]
    fn editing_lines_and_the_cursor() {
        let mut c = Composer::new();
        typed(&mut c, "helo");
        c.left();
        c.insert('l');
        assert_eq!(c.text(), "hello");
        c.end();
        c.newline();
        typed(&mut c, "wörld");
        assert_eq!(c.text(), "hello\nwörld");
        assert_eq!(c.cursor(), (1, 5));
        c.home();
        c.backspace();
        assert_eq!(c.text(), "hellowörld");
        c.delete();
        assert_eq!(c.text(), "helloörld");
    }

    #[test]
    fn up_and_down_walk_the_sent_prompts_and_keep_the_draft() {
        let mut c = Composer::new();
        typed(&mut c, "first");
        assert_eq!(c.take(), "first");
        typed(&mut c, "second\nline");
        c.take();
        typed(&mut c, "draft");
        c.up();
        assert_eq!(c.text(), "second\nline");
        c.up(); // to the first line of the recalled prompt
        c.up();
        assert_eq!(c.text(), "first");
        c.down();
        assert_eq!(c.text(), "second\nline");
        c.down();
        assert_eq!(c.text(), "draft");
    }

    #[test]
    fn a_paste_keeps_its_line_breaks() {
        let mut c = Composer::new();
        c.paste("a\r\nb\nc");
        assert_eq!(c.lines(), ["a", "b", "c"]);
    }

    #[test]
    fn a_paste_with_carriage_returns_only_keeps_its_lines() {
        let mut c = Composer::new();
        c.paste("a\rb\rc");
        assert_eq!(c.lines(), ["a", "b", "c"]);
        assert_eq!(c.take(), "a\nb\nc");
    }

    #[test]
    fn each_of_cr_crlf_and_lf_is_one_break() {
        let mut c = Composer::new();
        c.paste("a\r\nb\rc\nd\r\n\r\ne");
        assert_eq!(c.lines(), ["a", "b", "c", "d", "", "e"]);
    }

    #[test]
    fn a_paste_goes_in_at_the_cursor() {
        let mut c = Composer::new();
        typed(&mut c, "ab");
        c.left();
        c.paste("1\r2");
        assert_eq!(c.text(), "a1\n2b");
        assert_eq!(c.cursor(), (1, 1));
    }

    #[test]
    fn a_large_paste_shows_one_placeholder_and_is_sent_whole() {
        let mut c = Composer::new();
        typed(&mut c, "look: ");
        let log = numbered(1_204, "\r");
        c.paste(&log);
        typed(&mut c, " why?");
        assert_eq!(c.lines(), ["look: [pasted 1,204 lines] why?"]);
        assert_eq!(c.text(), "look: [pasted 1,204 lines] why?");
        assert_eq!(c.full_text().lines().count(), 1_204);
        let sent = c.take();
        assert_eq!(sent, format!("look: {} why?", numbered(1_204, "\n")));
        assert_eq!(sent.lines().count(), 1_204);
        // Up brings the prompt back collapsed, and it is sent whole again.
        c.up();
        assert_eq!(c.text(), "look: [pasted 1,204 lines] why?");
        assert_eq!(c.take(), sent);
    }

    #[test]
    fn a_paste_large_by_bytes_shows_its_size() {
        let mut c = Composer::new();
        let blob = "x".repeat(120 * 1024);
        c.paste(&blob);
        assert_eq!(c.text(), "[pasted 120 KB]");
        assert_eq!(c.take(), blob);
    }

    #[test]
    fn two_large_pastes_of_one_size_keep_their_own_texts() {
        let mut c = Composer::new();
        let first = numbered(1_500, "\n");
        let second = numbered(1_500, "\n").replace("line", "row");
        c.paste(&first);
        c.insert(' ');
        c.paste(&second);
        assert_eq!(c.text(), "[pasted 1,500 lines] [pasted 1,500 lines #2]");
        assert_eq!(c.take(), format!("{first} {second}"));
    }

    #[test]
    fn backspace_and_delete_remove_a_placeholder_whole() {
        let mut c = Composer::new();
        typed(&mut c, "a ");
        c.paste(&numbered(2_000, "\n"));
        c.backspace();
        assert_eq!(c.text(), "a ");
        assert_eq!(c.take(), "a ");
        c.paste(&numbered(2_000, "\n"));
        c.insert('!');
        c.home();
        c.delete();
        assert_eq!(c.text(), "!");
        assert_eq!(c.take(), "!");
    }

    #[test]
    fn insert_str_never_collapses() {
        let mut c = Composer::new();
        typed(&mut c, "ab");
        c.left();
        c.insert_str("x\ry");
        assert_eq!(c.lines(), ["ax", "yb"]);
        let mut big = Composer::new();
        big.insert_str(&numbered(1_204, "\n"));
        assert_eq!(big.lines().len(), 1_204);
    }

    #[test]
    fn the_current_word_ends_at_the_cursor() {
        let mut c = Composer::new();
        typed(&mut c, "read @src/ma and");
        for _ in 0.." and".len() {
            c.left();
        }
        assert_eq!(c.current_word(), ("@src/ma".to_string(), 5));
        c.replace_current_word("@src/main.rs");
        assert_eq!(c.text(), "read @src/main.rs and");
        assert_eq!(c.cursor(), (0, 17));
        c.end();
        c.insert(' ');
        assert_eq!(c.current_word(), (String::new(), 22));
        let mut start = Composer::new();
        typed(&mut start, "@ä");
        assert_eq!(start.current_word(), ("@ä".to_string(), 0));
        start.replace_current_word("@äb ");
        assert_eq!(start.text(), "@äb ");
    }
}
