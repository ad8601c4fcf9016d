//! Which parser serves a file. The index asks through this trait, so it
//! never learns where parsers come from; the CLI answers from the ledger.

use std::collections::BTreeMap;
use std::sync::Arc;

use amber_core::ports::Parser;
use amber_core::Ledger;

pub trait Parsers: Send + Sync {
    /// The parser for a file extension (without the dot).
    fn for_extension(&self, ext: &str) -> Option<Arc<dyn Parser>>;
    /// Whether `language` still has a parser: a plugin that failed is
    /// unwound from the ledger, and the index then stops asking it.
    fn serves(&self, language: &str) -> bool;
    /// The languages served, for messages.
    fn languages(&self) -> Vec<String>;
    /// Names the parser serving `language` (its plugin id and wasm hash):
    /// cached outlines made by another parser are not reused.
    fn fingerprint(&self, language: &str) -> String;
}

/// The parsers installed in a ledger.
pub struct LedgerParsers {
    ledger: Arc<Ledger>,
    fingerprints: BTreeMap<String, String>,
}

impl LedgerParsers {
    /// `fingerprints` names, per language, the plugin serving it.
    pub fn new(ledger: Arc<Ledger>, fingerprints: BTreeMap<String, String>) -> Self {
        LedgerParsers {
            ledger,
            fingerprints,
        }
    }
}

impl Parsers for LedgerParsers {
    fn for_extension(&self, ext: &str) -> Option<Arc<dyn Parser>> {
        self.ledger.parser_for_extension(ext)
    }

    fn serves(&self, language: &str) -> bool {
        self.ledger.parser(language).is_some()
    }

    fn languages(&self) -> Vec<String> {
        let parsers = self.ledger.parsers();
        parsers.iter().map(|p| p.language().name.clone()).collect()
    }

    fn fingerprint(&self, language: &str) -> String {
        self.fingerprints.get(language).cloned().unwrap_or_default()
    }
}
