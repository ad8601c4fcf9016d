//! Skills as text and as data: `/skills` and `amber skills`.

use serde_json::json;

use crate::skills::{Catalog, Skill};

/// One line of the list.
pub fn line(skill: &Skill) -> String {
    let off = if skill.disabled { " · disabled" } else { "" };
    let narrows = skill
        .allowed_tools
        .as_ref()
        .map(|tools| format!(" · allows only {}", tools.join(", ")))
        .unwrap_or_default();
    format!(
        "{:<22} {} ({}){off}{narrows}",
        skill.name,
        amber_core::text::one_line(&skill.description, 70),
        skill.origin.describe()
    )
}

/// What `/skills` and `amber skills list --json` give scripts.
pub fn data(catalog: &Catalog) -> serde_json::Value {
    json!({
        "skills": catalog.skills.iter().map(|s| json!({
            "name": s.name,
            "description": s.description,
            "source": s.origin,
            "candidate": s.candidate(),
            "disabled": s.disabled,
            "allowed_tools": s.allowed_tools,
            "path": s.dir.display().to_string(),
        })).collect::<Vec<_>>(),
        "skipped": catalog.skipped.iter().map(|s| json!({
            "path": s.path.display().to_string(),
            "reason": s.reason,
        })).collect::<Vec<_>>(),
    })
}

/// The list, with what was skipped.
pub fn listing(catalog: &Catalog) -> String {
    let mut lines = Vec::new();
    if catalog.skills.is_empty() {
        lines.push(
            "no skills (a skill is a folder with a SKILL.md in .amber/skills/; see /help skills)"
                .to_string(),
        );
    }
    lines.extend(catalog.skills.iter().map(line));
    for s in &catalog.skipped {
        lines.push(format!("skipped {}: {}", s.path.display(), s.reason));
    }
    lines.join("\n")
}

/// One skill in full.
pub fn shown(skill: &Skill) -> String {
    let mut out = format!(
        "{} ({})\n{}\n{}\n",
        skill.name,
        skill.origin.describe(),
        skill.description,
        skill.dir.display()
    );
    if let Some(tools) = &skill.allowed_tools {
        out.push_str(&format!("allows only: {}\n", tools.join(", ")));
    }
    let files = skill.files();
    if !files.is_empty() {
        out.push_str(&format!("files: {}\n", files.join(", ")));
    }
    out.push('\n');
    out.push_str(&skill.instructions);
    out
}
