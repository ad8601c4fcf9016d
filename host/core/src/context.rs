//! The context: the conversation as a hash chain. Seed: "Context hash
//! chain".
//!
//! Four operations mutate it, and nothing else can: `push` seals a message
//! and appends it with `h = blake3(prev_hash ‖ canonical(msg))`, `pop`
//! removes the top and restores the previous hash in O(1) (a parallel stack
//! of hashes), and `clear` empties it for the compression rebuild. Readers
//! get `get_all` (a read-only view that a debug build recomputes and
//! asserts) or a `snapshot`. One owner writes; everyone else reads
//! snapshots, so there is no locking.

use crate::ports::dialect::Message;

/// The hash before the first message.
pub const GENESIS: [u8; 32] = [0; 32];

/// A chain hash.
pub type ChainHash = blake3::Hash;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChainError {
    /// Message `index` (0-based) does not hash to its recorded link.
    #[error("message {index} does not match its chain hash (the history was changed)")]
    BrokenLink { index: usize },
    #[error("{messages} messages but {hashes} hashes")]
    LengthMismatch { messages: usize, hashes: usize },
}

/// The canonical bytes of a message: its JSON, whose field order is fixed
/// by the type (it holds no maps), so equal messages give equal bytes.
pub fn canonical(message: &Message) -> Vec<u8> {
    serde_json::to_vec(message).unwrap_or_default()
}

/// The link after `prev` for `message`.
pub fn link(prev: &ChainHash, message: &Message) -> ChainHash {
    link_bytes(prev, &canonical(message))
}

/// The link after `prev` for already-canonical bytes.
pub fn link_bytes(prev: &ChainHash, canonical: &[u8]) -> ChainHash {
    let mut hasher = blake3::Hasher::new();
    hasher.update(prev.as_bytes());
    hasher.update(canonical);
    hasher.finalize()
}

/// Checks that `hashes[i]` links `messages[i]` to `hashes[i-1]` (or the
/// genesis) for every message.
pub fn verify(messages: &[Message], hashes: &[ChainHash]) -> Result<(), ChainError> {
    if messages.len() != hashes.len() {
        return Err(ChainError::LengthMismatch {
            messages: messages.len(),
            hashes: hashes.len(),
        });
    }
    let mut prev = ChainHash::from(GENESIS);
    // One buffer for all the canonical bytes: hashing one slice is much
    // faster than many small updates, and reuse saves an allocation each.
    let mut buffer = Vec::with_capacity(1024);
    for (index, (message, hash)) in messages.iter().zip(hashes).enumerate() {
        buffer.clear();
        // Serialising into a Vec cannot fail for this type.
        let _ = serde_json::to_writer(&mut buffer, message);
        let expected = link_bytes(&prev, &buffer);
        if &expected != hash {
            return Err(ChainError::BrokenLink { index });
        }
        prev = expected;
    }
    Ok(())
}

/// A read-only copy for readers other than the owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextSnapshot {
    pub messages: Vec<Message>,
    pub head: ChainHash,
}

#[derive(Debug, Clone, Default)]
pub struct ContextChain {
    messages: Vec<Message>,
    hashes: Vec<ChainHash>,
}

impl ContextChain {
    pub fn new() -> Self {
        Self::default()
    }

    /// The hash of the top message, or the genesis when empty.
    pub fn head(&self) -> ChainHash {
        self.hashes
            .last()
            .copied()
            .unwrap_or(ChainHash::from(GENESIS))
    }

    pub fn len(&self) -> usize {
        self.messages.len()
    }

    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// Seals `message` and appends it; returns its chain hash.
    pub fn push(&mut self, message: Message) -> ChainHash {
        let hash = link(&self.head(), &message);
        self.messages.push(message);
        self.hashes.push(hash);
        hash
    }

    /// Removes the top message (LIFO); the previous hash is the head again.
    pub fn pop(&mut self) -> Option<Message> {
        self.hashes.pop();
        self.messages.pop()
    }

    /// Removes everything. Only the compression rebuild calls this, and
    /// pushes the compressed set right after.
    pub fn clear(&mut self) {
        self.messages.clear();
        self.hashes.clear();
    }

    /// The messages, read-only. A debug build recomputes the chain and
    /// asserts it, so an in-place change anywhere is caught in tests.
    pub fn get_all(&self) -> &[Message] {
        debug_assert_eq!(verify(&self.messages, &self.hashes), Ok(()));
        &self.messages
    }

    /// The hashes, one per message, for persisting the chain.
    pub fn hashes(&self) -> &[ChainHash] {
        &self.hashes
    }

    pub fn snapshot(&self) -> ContextSnapshot {
        ContextSnapshot {
            messages: self.get_all().to_vec(),
            head: self.head(),
        }
    }

    /// Rebuilds a chain from stored messages and hashes, refusing any
    /// broken link.
    pub fn restore(messages: Vec<Message>, hashes: Vec<ChainHash>) -> Result<Self, ChainError> {
        verify(&messages, &hashes)?;
        Ok(ContextChain { messages, hashes })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ports::dialect::{Part, Role};

    fn msg(role: Role, text: &str) -> Message {
        Message {
            role,
            parts: vec![Part::Text { text: text.into() }],
        }
    }

    #[test]
    fn push_links_each_message_to_the_previous_hash() {
        let mut chain = ContextChain::new();
        let a = chain.push(msg(Role::System, "sys"));
        let b = chain.push(msg(Role::User, "hi"));
        assert_eq!(
            a,
            link(&ChainHash::from(GENESIS), &msg(Role::System, "sys"))
        );
        assert_eq!(b, link(&a, &msg(Role::User, "hi")));
        assert_eq!(chain.head(), b);
    }

    #[test]
    fn pop_is_lifo_and_restores_the_previous_head() {
        let mut chain = ContextChain::new();
        let a = chain.push(msg(Role::User, "one"));
        chain.push(msg(Role::Assistant, "two"));
        assert_eq!(chain.pop(), Some(msg(Role::Assistant, "two")));
        assert_eq!(chain.head(), a);
        chain.pop();
        assert_eq!(chain.head(), ChainHash::from(GENESIS));
        assert_eq!(chain.pop(), None);
    }

    #[test]
    fn clear_returns_to_the_genesis() {
        let mut chain = ContextChain::new();
        chain.push(msg(Role::User, "x"));
        chain.clear();
        assert!(chain.is_empty());
        assert_eq!(chain.head(), ChainHash::from(GENESIS));
    }

    #[test]
    fn the_same_history_gives_the_same_head() {
        let build = || {
            let mut chain = ContextChain::new();
            chain.push(msg(Role::User, "a"));
            chain.push(msg(Role::Assistant, "b"));
            chain.head()
        };
        assert_eq!(build(), build());
    }

    #[test]
    fn any_change_in_place_breaks_the_link_and_names_the_message() {
        let mut chain = ContextChain::new();
        for i in 0..5 {
            chain.push(msg(Role::User, &format!("m{i}")));
        }
        let mut messages = chain.get_all().to_vec();
        messages[2] = msg(Role::User, "tampered");
        let err = ContextChain::restore(messages, chain.hashes().to_vec()).unwrap_err();
        assert_eq!(err, ChainError::BrokenLink { index: 2 });
        assert_eq!(
            err.to_string(),
            "message 2 does not match its chain hash (the history was changed)"
        );
        let short = ContextChain::restore(chain.get_all()[..4].to_vec(), chain.hashes().to_vec())
            .unwrap_err();
        assert_eq!(
            short,
            ChainError::LengthMismatch {
                messages: 4,
                hashes: 5
            }
        );
    }

    #[test]
    fn a_snapshot_is_a_copy_readers_can_keep() {
        let mut chain = ContextChain::new();
        chain.push(msg(Role::User, "a"));
        let snap = chain.snapshot();
        chain.push(msg(Role::Assistant, "b"));
        assert_eq!(snap.messages.len(), 1);
        assert_ne!(snap.head, chain.head());
    }
}
