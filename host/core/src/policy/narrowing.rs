//! A skill's narrowing of the callable tools, a file of its own below the
//! policy so a call's scope can name it.

/// What a skill's `allowed-tools` leaves callable: it narrows what the
/// mode allows and never widens it; a second skill narrows further.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Narrowing {
    /// The skills that narrowed, in order.
    pub by: Vec<String>,
    pub tools: Vec<String>,
}

impl Narrowing {
    pub fn allows(&self, tool: &str) -> bool {
        self.tools.iter().any(|t| t == tool)
    }
}
