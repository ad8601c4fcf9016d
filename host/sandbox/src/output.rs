//! A command's output, capped: the head and the tail are kept, and what
//! was cut is counted and said, so a flood cannot fill amber's memory and
//! the model still sees how the output ended.

pub struct CappedOutput {
    head: Vec<u8>,
    tail: Vec<u8>,
    cut: usize,
    half: usize,
}

impl CappedOutput {
    pub fn new(cap: usize) -> Self {
        CappedOutput {
            head: Vec::new(),
            tail: Vec::new(),
            cut: 0,
            half: cap / 2,
        }
    }

    pub fn push(&mut self, mut bytes: &[u8]) {
        let room = self.half.saturating_sub(self.head.len());
        let take = room.min(bytes.len());
        self.head.extend_from_slice(&bytes[..take]);
        bytes = &bytes[take..];
        self.tail.extend_from_slice(bytes);
        if self.tail.len() > self.half {
            let excess = self.tail.len() - self.half;
            self.tail.drain(..excess);
            self.cut += excess;
        }
    }

    /// The text, with a note where bytes were cut, and whether any were.
    pub fn finish(self) -> (String, bool) {
        let mut text = String::from_utf8_lossy(&self.head).into_owned();
        let truncated = self.cut > 0;
        if truncated {
            text.push_str(&format!(
                "\n[... {} bytes cut by amber's output cap ...]\n",
                self.cut
            ));
        }
        text.push_str(&String::from_utf8_lossy(&self.tail));
        (text, truncated)
    }
}
