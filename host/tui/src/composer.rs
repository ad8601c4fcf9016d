//! The prompt editor: multi-line text with a cursor, the prompts sent
//! before (Up and Down), and pasted text taken whole. Keys are mapped to
//! edits by the caller (`keys.rs`); this module only edits.

use unicode_width::UnicodeWidthStr;

#[derive(Debug, Default)]
pub struct Composer {
    lines: Vec<String>,
    /// Line index and char index within it.
    row: usize,
    col: usize,
    sent: Vec<String>,
    /// Where Up/Down is in `sent`; `None` while editing a new prompt.
    browsing: Option<usize>,
    /// The new prompt set aside while browsing.
    draft: Option<String>,
}

impl Composer {
    pub fn new() -> Self {
        Composer {
            lines: vec![String::new()],
            ..Composer::default()
        }
    }

    pub fn text(&self) -> String {
        self.lines.join("\n")
    }

    pub fn is_empty(&self) -> bool {
        self.lines.iter().all(|l| l.is_empty())
    }

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

    /// Pasted text, inserted whole (line breaks kept; `\r` dropped).
    pub fn paste(&mut self, text: &str) {
        self.browsing = None;
        let text = text.replace('\r', "");
        for (i, piece) in text.split('\n').enumerate() {
            if i > 0 {
                self.newline();
            }
            let at = self.byte_at(self.col);
            self.lines[self.row].insert_str(at, piece);
            self.col += piece.chars().count();
        }
    }

    pub fn newline(&mut self) {
        let at = self.byte_at(self.col);
        let rest = self.lines[self.row].split_off(at);
        self.lines.insert(self.row + 1, rest);
        self.row += 1;
        self.col = 0;
    }

    pub fn backspace(&mut self) {
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

    pub fn delete(&mut self) {
        let len = self.lines[self.row].chars().count();
        if self.col < len {
            let at = self.byte_at(self.col);
            self.lines[self.row].remove(at);
        } else if self.row + 1 < self.lines.len() {
            let next = self.lines.remove(self.row + 1);
            self.lines[self.row].push_str(&next);
        }
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
                self.draft = Some(self.text());
                self.sent.len() - 1
            }
            Some(0) => return,
            Some(i) => i - 1,
        };
        self.browsing = Some(next);
        let text = self.sent[next].clone();
        self.set_text(&text);
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
            let text = self.sent[i + 1].clone();
            self.set_text(&text);
        } else {
            self.browsing = None;
            let draft = self.draft.take().unwrap_or_default();
            self.set_text(&draft);
        }
    }

    /// Takes the prompt out (Enter), remembering it for Up.
    pub fn take(&mut self) -> String {
        let text = self.text();
        if !text.trim().is_empty() && self.sent.last() != Some(&text) {
            self.sent.push(text.clone());
        }
        self.lines = vec![String::new()];
        self.row = 0;
        self.col = 0;
        self.browsing = None;
        self.draft = None;
        text
    }

    /// Empties the editor without sending (Ctrl-C on a prompt).
    pub fn clear(&mut self) {
        self.lines = vec![String::new()];
        self.row = 0;
        self.col = 0;
        self.browsing = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(c: &mut Composer, text: &str) {
        for ch in text.chars() {
            c.insert(ch);
        }
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
}
