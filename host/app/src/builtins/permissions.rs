//! `/permissions`: what may run without asking, and its edits. The
//! session's grants (what "approve for this session" covered) and the
//! stored rules (`[[policy.rules]]` in the config), numbered; `revoke N`
//! takes a grant back, `allow|deny TOOL [FOLDER]` stores a rule and
//! `forget N` removes one. A rule is written to the config file (its
//! comments and layout kept) and holds at once, in the running session
//! too.

use amber_core::commands::{Invocation, Reply};
use amber_core::policy::{Rule, RuleDecision};
use serde_json::json;
use toml_edit::{ArrayOfTables, Item, Table};

use super::{failed, invalid, Handled};
use crate::{config_file, App};

pub fn permissions(app: &mut App, inv: &Invocation<'_>) -> Handled {
    let words: Vec<&str> = inv.arg.split_whitespace().collect();
    match words.as_slice() {
        [] | ["list"] => list(app),
        ["revoke", n] => {
            let index = number(n)?;
            let scope = app.policy().revoke_grant(index - 1).ok_or_else(|| {
                invalid(format!("no session grant {n} (/permissions lists them)"))
            })?;
            Ok(Reply::text(format!("revoked: {}", scope.describe())))
        }
        [verb @ ("allow" | "deny"), tool, rest @ ..] if rest.len() <= 1 => {
            let decision = if *verb == "allow" {
                RuleDecision::Allow
            } else {
                RuleDecision::Deny
            };
            let rule = Rule {
                tool: tool.to_string(),
                path: rest.first().map(|p| p.to_string()),
                decision,
            };
            store(app, |rules| {
                rules.push(rule.clone());
                Ok(())
            })?;
            Ok(Reply::text(format!("stored: {}", describe(&rule))))
        }
        ["forget", n] => {
            let index = number(n)?;
            let mut gone = None;
            store(app, |rules| {
                if index > rules.len() {
                    return Err(invalid(format!("no stored rule {n} (/permissions lists them)")));
                }
                gone = Some(rules.remove(index - 1));
                Ok(())
            })?;
            let gone = gone.map(|r| describe(&r)).unwrap_or_default();
            Ok(Reply::text(format!("forgotten: {gone}")))
        }
        _ => Err(invalid(
            "usage: /permissions [revoke N | allow TOOL [FOLDER] | deny TOOL [FOLDER] | forget N]",
        )),
    }
}

fn number(word: &str) -> Result<usize, super::CommandError> {
    word.parse::<usize>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| invalid(format!("`{word}` is not a number from the list")))
}

fn describe(rule: &Rule) -> String {
    let decision = match rule.decision {
        RuleDecision::Allow => "allow",
        RuleDecision::Deny => "deny",
    };
    match &rule.path {
        Some(path) => format!("{decision} `{}` inside {path}", rule.tool),
        None => format!("{decision} `{}` anywhere", rule.tool),
    }
}

fn list(app: &mut App) -> Handled {
    let grants = app.policy().grants();
    let rules = app.policy().rules();
    let mut lines = vec![format!("mode {}", app.policy().mode().as_str())];
    lines.push("session grants (revoke N):".into());
    if grants.is_empty() {
        lines.push("  none".into());
    }
    for (i, scope) in grants.iter().enumerate() {
        lines.push(format!("  {}. {}", i + 1, scope.describe()));
    }
    lines.push(format!(
        "stored rules, in {} (forget N; allow|deny TOOL [FOLDER] adds one):",
        app.config_path().display()
    ));
    if rules.is_empty() {
        lines.push("  none".into());
    }
    for (i, rule) in rules.iter().enumerate() {
        lines.push(format!("  {}. {}", i + 1, describe(rule)));
    }
    Ok(Reply::text(lines.join("\n")).with_data(json!({
        "mode": app.policy().mode().as_str(),
        "grants": grants.iter().map(|g| g.describe()).collect::<Vec<_>>(),
        "rules": rules,
    })))
}

/// Changes the stored rules: in the config file, then in the policy. The
/// rules changed are the file's, read under its lock: another amber's
/// edit, or a hand edit, made since this session started is kept.
fn store(
    app: &mut App,
    change: impl FnOnce(&mut Vec<Rule>) -> Result<(), super::CommandError>,
) -> Result<(), super::CommandError> {
    let path = app.config_path();
    let mut refused = None;
    let edited = config_file::edit(&path, |doc| {
        let on_disk = amber_config::Config::parse(&doc.to_string(), &path)?;
        let mut rules = on_disk.policy.rules;
        if let Err(e) = change(&mut rules) {
            refused = Some(e);
            anyhow::bail!("unchanged");
        }
        let policy = doc
            .as_table_mut()
            .entry("policy")
            .or_insert_with(|| Item::Table(Table::new()));
        let Some(policy) = policy.as_table_mut() else {
            anyhow::bail!("`policy` in {} is not a table", path.display());
        };
        let mut array = ArrayOfTables::new();
        for rule in &rules {
            let mut table = Table::new();
            table.insert("tool", toml_edit::value(rule.tool.as_str()));
            if let Some(folder) = &rule.path {
                table.insert("path", toml_edit::value(folder.as_str()));
            }
            let decision = match rule.decision {
                RuleDecision::Allow => "allow",
                RuleDecision::Deny => "deny",
            };
            table.insert("decision", toml_edit::value(decision));
            array.push(table);
        }
        policy.insert("rules", Item::ArrayOfTables(array));
        Ok(())
    });
    if let Some(refused) = refused {
        return Err(refused);
    }
    let config = edited.map_err(|e| failed(format!("{e:#}")))?;
    app.policy().set_rules(config.policy.rules.clone());
    app.set_config(config);
    Ok(())
}
