//! `/memory`: the governed memories of this workspace, from a session or
//! the shell, over the same store as `amber memory`. `/memory` lists the
//! newest, `/memory add [TYPE:] TEXT` stores one (a candidate; its first
//! line is its title), `/memory forget ID [reason]` erases one's text
//! and keeps its tombstone.

use std::str::FromStr;

use amber_core::commands::{Invocation, Reply};
use amber_memory::{namespace, Draft, ListFilter, RecordType, Store};
use serde_json::json;

use super::{failed, invalid, Handled};
use crate::App;

/// Records `/memory` lists at most.
const LISTED: usize = 30;

pub fn memory(app: &mut App, inv: &Invocation<'_>) -> Handled {
    let ns = namespace::for_workspace(&app.project.root);
    let mut store =
        Store::open_in(&app.dirs.data).map_err(|e| failed(format!("cannot open the memory: {e:#}")))?;
    let arg = inv.arg.trim();
    let (verb, rest) = arg.split_once(char::is_whitespace).unwrap_or((arg, ""));
    match verb {
        "" | "list" => {
            let filter = ListFilter {
                limit: Some(LISTED),
                ..ListFilter::default()
            };
            let records = store
                .list(&ns, &filter)
                .map_err(|e| failed(format!("{e:#}")))?;
            let mut lines = vec![format!("memories of {ns} (newest first):")];
            if records.is_empty() {
                lines.push("  none yet: /memory add TEXT stores one".into());
            }
            for r in &records {
                lines.push(format!(
                    "  #{:<4} {:<11} {:<10} {}",
                    r.id,
                    r.draft.record_type,
                    r.draft.status,
                    amber_core::text::one_line(&r.draft.title, 60)
                ));
            }
            Ok(Reply::text(lines.join("\n")).with_data(json!({ "namespace": ns, "records": records })))
        }
        "add" => {
            let rest = rest.trim();
            if rest.is_empty() {
                return Err(invalid("usage: /memory add [TYPE:] TEXT (types: decision, gotcha, procedure, concept, belief, domain-note)"));
            }
            // `gotcha: the build needs…` names the type.
            let (record_type, text) = match rest.split_once(':') {
                Some((t, text)) if RecordType::from_str(t.trim()).is_ok() => {
                    (RecordType::from_str(t.trim()).unwrap_or(RecordType::DomainNote), text.trim())
                }
                _ => (RecordType::DomainNote, rest),
            };
            let title = amber_core::text::one_line(text.lines().next().unwrap_or(text), 80);
            let added = store
                .add(&ns, Draft::new(record_type, &title, text))
                .map_err(|e| failed(format!("cannot store the memory: {e:#}")))?;
            let said = if added.created {
                format!("stored #{} ({record_type}, a candidate)", added.id)
            } else {
                format!("#{} already holds this; evidence is now {}", added.id, added.evidence)
            };
            Ok(Reply::text(said).with_data(json!(added)))
        }
        "forget" => {
            let (id, reason) = rest.trim().split_once(char::is_whitespace).unwrap_or((rest.trim(), ""));
            let id: i64 = id
                .trim_start_matches('#')
                .parse()
                .map_err(|_| invalid("usage: /memory forget ID [reason] (/memory lists the ids)"))?;
            let reason = (!reason.trim().is_empty()).then(|| reason.trim());
            // Only this workspace's: `/memory` lists no other.
            let owner = store
                .get(id)
                .map_err(|e| failed(format!("no memory #{id}: {e:#}")))?
                .namespace;
            if owner != ns {
                return Err(invalid(format!(
                    "#{id} is a memory of {owner}, not of this workspace ({ns}); `amber memory --namespace NS forget ID` works in another"
                )));
            }
            let record = store
                .forget(id, reason)
                .map_err(|e| failed(format!("cannot forget #{id}: {e:#}")))?;
            Ok(Reply::text(format!("forgot #{}: its text is erased, its tombstone kept", record.id))
                .with_data(json!(record)))
        }
        other => Err(invalid(format!(
            "/memory has no `{other}`: /memory [list | add [TYPE:] TEXT | forget ID [reason]]"
        ))),
    }
}
