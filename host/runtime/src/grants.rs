//! Permissions a plugin requested and the user granted. The runtime takes
//! the granted set at enable time; it decides the preopens and which
//! imports answer.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Permission {
    WorkspaceRead,
    WorkspaceWrite,
    Exec,
    /// Requests through `wasi:http` to the hosts the grant names.
    Http,
}

impl Permission {
    pub const ALL: [Permission; 4] = [
        Permission::WorkspaceRead,
        Permission::WorkspaceWrite,
        Permission::Exec,
        Permission::Http,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Permission::WorkspaceRead => "workspace-read",
            Permission::WorkspaceWrite => "workspace-write",
            Permission::Exec => "exec",
            Permission::Http => "http",
        }
    }
}

impl fmt::Display for Permission {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Permission {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Permission::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| {
                format!("unknown permission `{s}` (known: workspace-read, workspace-write, exec, http)")
            })
    }
}

/// The set a user granted to one plugin.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grants(BTreeSet<Permission>);

impl Grants {
    pub fn none() -> Self {
        Self::default()
    }

    pub fn of(perms: impl IntoIterator<Item = Permission>) -> Self {
        Grants(perms.into_iter().collect())
    }

    pub fn has(&self, p: Permission) -> bool {
        self.0.contains(&p)
    }

    pub fn iter(&self) -> impl Iterator<Item = Permission> + '_ {
        self.0.iter().copied()
    }

    /// Write access implies read access to the same workspace.
    pub fn can_read_workspace(&self) -> bool {
        self.has(Permission::WorkspaceRead) || self.has(Permission::WorkspaceWrite)
    }
}

impl From<Permission> for crate::bindings::types::Permission {
    fn from(p: Permission) -> Self {
        use crate::bindings::types::Permission as W;
        match p {
            Permission::WorkspaceRead => W::WorkspaceRead,
            Permission::WorkspaceWrite => W::WorkspaceWrite,
            Permission::Exec => W::Exec,
            Permission::Http => W::Http,
        }
    }
}

impl From<crate::bindings::types::Permission> for Permission {
    fn from(p: crate::bindings::types::Permission) -> Self {
        use crate::bindings::types::Permission as W;
        match p {
            W::WorkspaceRead => Permission::WorkspaceRead,
            W::WorkspaceWrite => Permission::WorkspaceWrite,
            W::Exec => Permission::Exec,
            W::Http => Permission::Http,
        }
    }
}
