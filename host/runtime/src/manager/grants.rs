//! `grants.json`: what the user granted, per plugin id and wasm hash.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::grants::Permission;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GrantRecord {
    /// The wasm these decisions were made for.
    pub hash: String,
    pub granted: BTreeSet<Permission>,
    /// Permissions the user decided on, granted or not; not asked again.
    pub asked: BTreeSet<Permission>,
}

impl GrantRecord {
    /// Everything `requested`, as bundled plugins get.
    pub fn all(hash: &str, requested: &BTreeSet<Permission>) -> Self {
        GrantRecord {
            hash: hash.to_string(),
            granted: requested.clone(),
            asked: requested.clone(),
        }
    }

    /// Moves the record to a new wasm: decisions about permissions it still
    /// requests carry over, and anything new will be asked.
    pub fn rebind(&mut self, hash: &str, requested: &BTreeSet<Permission>) {
        if self.hash == hash {
            return;
        }
        self.hash = hash.to_string();
        self.granted.retain(|p| requested.contains(p));
        self.asked.retain(|p| requested.contains(p));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_wasm_keeps_decisions_it_still_needs_and_forgets_the_rest() {
        let before: BTreeSet<Permission> = [Permission::WorkspaceRead, Permission::Exec].into();
        let mut record = GrantRecord::all("old", &before);
        let now: BTreeSet<Permission> =
            [Permission::WorkspaceRead, Permission::WorkspaceWrite].into();
        record.rebind("new", &now);
        assert_eq!(record.granted, [Permission::WorkspaceRead].into());
        assert!(
            !record.asked.contains(&Permission::WorkspaceWrite),
            "the new request will be asked"
        );
        assert_eq!(record.hash, "new");
    }
}
