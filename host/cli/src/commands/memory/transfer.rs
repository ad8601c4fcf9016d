//! `amber memory export|import`: the namespace as markdown for people or
//! JSON for tools, and JSON back in. An import writes each record in its
//! own transaction, so an interrupted import leaves whole records only.

use std::io::Read;
use std::path::Path;

use amber_core::text::utc_minute;
use amber_memory::{ChangeKind, Draft, Edge, ListFilter, Record, Revision, Store};
use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use super::ExportFormat;
use crate::commands::print_json;

/// The export format's name and version.
const EXPORT_SCHEMA: &str = "amber.memory-export/1";

pub fn export(store: &Store, ns: &str, format: ExportFormat) -> Result<()> {
    let filter = ListFilter {
        forgotten: true,
        ..ListFilter::default()
    };
    let mut records = store.list(ns, &filter)?;
    records.reverse();
    match format {
        ExportFormat::Json => {
            let mut out = Vec::with_capacity(records.len());
            for r in &records {
                let mut value = serde_json::to_value(r)?;
                value["history"] = serde_json::to_value(store.history(r.id)?)?;
                value["edges"] = serde_json::to_value(store.edges(r.id)?)?;
                out.push(value);
            }
            print_json(&json!({ "schema": EXPORT_SCHEMA, "namespace": ns, "records": out }))
        }
        ExportFormat::Markdown => {
            println!("# Memory: {ns}\n");
            println!("{} records.", records.len());
            for r in &records {
                print!(
                    "{}",
                    markdown(r, &store.history(r.id)?, &store.edges(r.id)?)
                );
            }
            Ok(())
        }
    }
}

/// One record for people: its fields, where and when it applies, who
/// wrote it, its links, its content, then every revision, so the export
/// keeps the lineage the store keeps. A forgotten record keeps only that.
fn markdown(r: &Record, history: &[Revision], edges: &[Edge]) -> String {
    let d = &r.draft;
    let mut out = String::new();
    let mut line = |text: String| {
        out.push_str(&text);
        out.push('\n');
    };
    if r.is_forgotten() {
        line(format!(
            "\n## #{} (forgotten)\n\nOnly the lineage remains.",
            r.id
        ));
    } else {
        line(format!("\n## #{} {}\n", r.id, d.title));
        line(format!(
            "- type: {} · status: {} · confidence: {:.2} · evidence: {} · revision: {}",
            d.record_type, d.status, d.confidence, r.evidence, r.revision
        ));
        if !d.tags.is_empty() {
            line(format!("- tags: {}", d.tags.join(", ")));
        }
        let a = &d.applicability;
        if !a.paths.is_empty() {
            let globs: Vec<String> = a.paths.iter().map(|p| format!("`{p}`")).collect();
            line(format!("- applies to paths: {}", globs.join(", ")));
        }
        if !a.languages.is_empty() {
            line(format!(
                "- applies to languages: {}",
                a.languages.join(", ")
            ));
        }
        if d.valid_from.is_some() || d.valid_until.is_some() {
            let at = |t: Option<i64>| t.map_or("-".to_string(), utc_minute);
            line(format!(
                "- valid: {} .. {}",
                at(d.valid_from),
                at(d.valid_until)
            ));
        }
        let p = &d.provenance;
        let by: Vec<String> = [
            ("actor", &p.actor),
            ("session", &p.session),
            ("model", &p.model),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.as_deref().map(|v| format!("{k} {v}")))
        .collect();
        if !by.is_empty() {
            line(format!("- provenance: {}", by.join(" · ")));
        }
    }
    for e in edges {
        line(format!("- #{} {} #{}", e.from, e.kind, e.to));
    }
    if !r.is_forgotten() {
        line(format!("\n{}", d.content));
    }
    line("\nHistory:\n".to_string());
    for v in history {
        let by = v
            .actor
            .as_deref()
            .map(|a| format!(" by {a}"))
            .unwrap_or_default();
        let reason = v
            .reason
            .as_deref()
            .map(|x| format!(": {x}"))
            .unwrap_or_default();
        let title = if v.title.is_empty() || v.title == d.title {
            String::new()
        } else {
            format!(" \"{}\"", v.title)
        };
        let change = match v.change {
            ChangeKind::StatusChanged => "status changed".to_string(),
            ChangeKind::Evidence => "stored again".to_string(),
            other => other.to_string(),
        };
        line(format!(
            "- r{} {} {change}{by}, {}{title}{reason}",
            v.revision,
            utc_minute(v.at),
            v.status
        ));
    }
    out
}

fn read(file: &Path) -> Result<String> {
    if file == Path::new("-") {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("cannot read the import from stdin")?;
        return Ok(text);
    }
    std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))
}

pub fn import(store: &mut Store, ns: &str, file: &Path, as_json: bool) -> Result<()> {
    let name = file.display().to_string();
    let value: Value =
        serde_json::from_str(&read(file)?).with_context(|| format!("{name} is not JSON"))?;
    let entries = match &value {
        Value::Array(items) => items.clone(),
        Value::Object(map) => match map.get("records") {
            Some(Value::Array(items)) => items.clone(),
            _ => bail!("{name} has no `records` list"),
        },
        _ => bail!("{name} is neither an export nor a list of records"),
    };
    let (mut created, mut merged, mut skipped) = (0usize, 0usize, 0usize);
    let mut errors = Vec::new();
    for (i, entry) in entries.into_iter().enumerate() {
        if entry.get("forgotten_at").is_some_and(|v| !v.is_null()) {
            skipped += 1;
            continue;
        }
        let added = serde_json::from_value::<Draft>(entry)
            .map_err(anyhow::Error::from)
            .and_then(|d| Ok(store.add(ns, d)?));
        match added {
            Ok(a) if a.created => created += 1,
            Ok(_) => merged += 1,
            Err(e) => errors.push(format!("{name}: record {}: {e:#}", i + 1)),
        }
    }
    if as_json {
        print_json(&json!({
            "created": created, "merged": merged, "skipped_forgotten": skipped, "errors": errors,
        }))?;
    } else {
        println!("imported {created} new, {merged} already known, {skipped} forgotten skipped");
        for e in &errors {
            eprintln!("amber: {e}");
        }
    }
    if !errors.is_empty() {
        bail!(
            "{} of the records in {name} were not imported",
            errors.len()
        );
    }
    Ok(())
}
