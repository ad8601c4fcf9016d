//! A job's output: the newest bytes up to a cap, addressed by their
//! offset since the job began, so a reader asks for what came after the
//! last it saw and is told when the oldest of that was dropped.

use std::collections::VecDeque;

pub struct Ring {
    bytes: VecDeque<u8>,
    /// The offset of `bytes[0]`: how many bytes were dropped before it.
    start: u64,
    cap: usize,
}

/// What a read found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub text: String,
    /// The offset to read from next time.
    pub next: u64,
    /// Bytes that were asked for but dropped to keep the cap.
    pub dropped: u64,
}

impl Ring {
    pub fn new(cap: usize) -> Ring {
        Ring {
            bytes: VecDeque::new(),
            start: 0,
            cap: cap.max(1),
        }
    }

    pub fn push(&mut self, data: &[u8]) {
        self.bytes.extend(data);
        let over = self.bytes.len().saturating_sub(self.cap);
        if over > 0 {
            self.bytes.drain(..over);
            self.start += over as u64;
        }
    }

    /// The end: the offset after the newest byte.
    pub fn end(&self) -> u64 {
        self.start + self.bytes.len() as u64
    }

    /// What came at or after `since`.
    pub fn read(&self, since: u64) -> Chunk {
        let from = since.max(self.start);
        let skip = (from - self.start) as usize;
        let bytes: Vec<u8> = self.bytes.iter().skip(skip).copied().collect();
        Chunk {
            text: String::from_utf8_lossy(&bytes).into_owned(),
            next: self.end(),
            dropped: from - since.min(from),
        }
    }

    /// The last `lines` lines, for a listing.
    pub fn tail(&self, lines: usize) -> Vec<String> {
        let text = self.read(0).text;
        let all: Vec<&str> = text.lines().collect();
        all[all.len().saturating_sub(lines)..]
            .iter()
            .map(|l| l.to_string())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_gets_what_came_after_and_the_cap_drops_the_oldest() {
        let mut ring = Ring::new(8);
        ring.push(b"abcd");
        let first = ring.read(0);
        assert_eq!(
            (first.text.as_str(), first.next, first.dropped),
            ("abcd", 4, 0)
        );
        ring.push(b"efghij");
        // Ten bytes in, eight kept: "ab" is gone.
        let second = ring.read(first.next);
        assert_eq!((second.text.as_str(), second.next), ("efghij", 10));
        let from_start = ring.read(0);
        assert_eq!(
            (from_start.text.as_str(), from_start.dropped),
            ("cdefghij", 2)
        );
        assert_eq!(ring.read(10).text, "");
        ring.push(b"\nx\ny");
        assert_eq!(ring.tail(2), ["x", "y"]);
    }
}
