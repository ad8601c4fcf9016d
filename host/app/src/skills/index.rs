//! The skills index: a host-native head block naming each enabled skill
//! and what it is for, within `[skills] index_tokens`. The instructions
//! stay out until the model loads a skill with the `skill` tool, so a
//! hundred skills cost a hundred lines, not a hundred documents.

use std::sync::Arc;

use amber_core::ports::{BlockPosition, BlockSpec, PortError, PromptBlock, RenderContext};

use super::{Catalog, SkillSet};

/// The block's name in the ledger.
pub const BLOCK_NAME: &str = "skills-index";

pub struct SkillIndex {
    spec: BlockSpec,
    skills: Arc<SkillSet>,
    /// Tokens the index may take, at about four bytes a token.
    budget: usize,
}

impl SkillIndex {
    pub fn new(skills: Arc<SkillSet>, budget: usize) -> Self {
        SkillIndex {
            spec: BlockSpec {
                name: BLOCK_NAME.into(),
                position: BlockPosition::Head,
                // After the memory recall block (50).
                priority: 60,
            },
            skills,
            budget,
        }
    }
}

/// What a text costs, at about four bytes a token: the index needs a
/// bound, not a tokenizer.
fn tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

/// The index's text; empty when no skill is enabled.
pub fn render(catalog: &Catalog, budget: usize) -> String {
    let skills: Vec<_> = catalog.enabled().collect();
    if skills.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "Skills: instructions for particular tasks. When a request matches one, call the `skill` tool with its name to load it before you start.\n",
    );
    let mut left_out = Vec::new();
    for skill in skills {
        let candidate = if skill.candidate() {
            " (candidate)"
        } else {
            ""
        };
        let line = format!("- {}{candidate}: {}\n", skill.name, skill.description);
        if left_out.is_empty() && tokens(&out) + tokens(&line) <= budget {
            out.push_str(&line);
        } else {
            left_out.push(skill.name.as_str());
        }
    }
    if !left_out.is_empty() {
        out.push_str(&format!(
            "Not described here for want of room, but loadable by name: {}.\n",
            left_out.join(", ")
        ));
    }
    out
}

impl PromptBlock for SkillIndex {
    fn spec(&self) -> &BlockSpec {
        &self.spec
    }

    fn render(&self, _ctx: &RenderContext) -> Result<String, PortError> {
        Ok(render(&self.skills.catalog(), self.budget))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Origin, Skill};
    use super::*;

    fn skill(name: &str, description: &str) -> Skill {
        Skill {
            name: name.into(),
            description: description.into(),
            allowed_tools: None,
            instructions: String::new(),
            dir: "/x".into(),
            origin: Origin::User,
            disabled: false,
        }
    }

    #[test]
    fn what_does_not_fit_is_named_and_disabled_ones_are_left_out() {
        let mut off = skill("off", "never shown");
        off.disabled = true;
        let catalog = Catalog {
            skills: vec![skill("a", "first"), skill("b", &"long ".repeat(200)), off],
            skipped: vec![],
        };
        let text = render(&catalog, 80);
        assert!(text.contains("- a: first"), "{text}");
        assert!(!text.contains("- b:"), "{text}");
        assert!(text.contains("loadable by name: b."), "{text}");
        assert!(!text.contains("off"), "{text}");
        assert_eq!(render(&Catalog::default(), 80), "");
    }
}
