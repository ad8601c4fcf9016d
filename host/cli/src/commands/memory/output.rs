//! How memory commands print for a terminal (`--json` prints the values
//! themselves).

use amber_core::text::{one_line, utc_minute};
use amber_memory::{Check, Edge, Recall, Record, Revision};

fn first_line(text: &str) -> String {
    one_line(text, 100)
}

fn label(record: &Record) -> String {
    let d = &record.draft;
    format!(
        "#{} [{}] {} ({}, confidence {:.2})",
        record.id, d.record_type, d.title, d.status, d.confidence
    )
}

pub fn recall(recall: &Recall) {
    if recall.hits.is_empty() {
        println!("no eligible memory matches");
    }
    for (i, hit) in recall.hits.iter().enumerate() {
        println!("{}. {}", i + 1, label(&hit.record));
        println!("   {}", first_line(&hit.record.draft.content));
    }
    for s in &recall.suppressed {
        println!("held back: #{} ({})", s.id, s.reason);
    }
    println!(
        "receipt {} (rate it: amber memory feedback {} helpful|misleading|outdated|not_used)",
        recall.receipt, recall.receipt
    );
}

pub fn list(namespace: &str, records: &[Record]) {
    if records.is_empty() {
        println!("no memories in {namespace} (store one with `amber memory add`)");
    }
    for r in records {
        if r.is_forgotten() {
            println!("#{} [{}] (forgotten)", r.id, r.draft.record_type);
        } else {
            println!("{}", label(r));
        }
    }
}

pub fn show(record: &Record, history: &[Revision], edges: &[Edge]) {
    let d = &record.draft;
    println!("{}", label(record));
    if record.is_forgotten() {
        println!("forgotten; only the lineage remains");
    } else {
        println!("\n{}\n", d.content);
    }
    if !d.tags.is_empty() {
        println!("tags: {}", d.tags.join(", "));
    }
    let a = &d.applicability;
    if !a.paths.is_empty() || !a.languages.is_empty() {
        println!(
            "applies to: {} {}",
            a.paths.join(", "),
            a.languages.join(", ")
        );
    }
    if d.valid_from.is_some() || d.valid_until.is_some() {
        let at = |t: Option<i64>| t.map_or("-".to_string(), |t| format!("{} ({t})", utc_minute(t)));
        println!("valid: {} .. {}", at(d.valid_from), at(d.valid_until));
    }
    let p = &d.provenance;
    println!(
        "by {} · session {} · model {} · evidence {} · {} tokens · namespace {}",
        p.actor.as_deref().unwrap_or("-"),
        p.session.as_deref().unwrap_or("-"),
        p.model.as_deref().unwrap_or("-"),
        record.evidence,
        record.tokens,
        record.namespace
    );
    println!("\nhistory:");
    for r in history {
        let reason = r
            .reason
            .as_deref()
            .map(|x| format!(" — {x}"))
            .unwrap_or_default();
        println!("  r{} {} ({}){reason}", r.revision, r.change, r.status);
    }
    if !edges.is_empty() {
        println!("edges:");
        for e in edges {
            println!("  #{} {} #{}", e.from, e.kind, e.to);
        }
    }
}

pub fn check(check: &Check) {
    println!("integrity: {}", check.integrity);
    println!("search index: {}", check.fts);
    println!("records: {}", check.records);
    if !check.broken.is_empty() {
        println!("broken records: {:?}", check.broken);
    }
}

pub fn receipts(receipts: &[amber_memory::Receipt]) {
    if receipts.is_empty() {
        println!("no recall receipts in this namespace");
        return;
    }
    let ids = |ids: &mut dyn Iterator<Item = String>| {
        let list: Vec<String> = ids.collect();
        if list.is_empty() {
            "-".to_string()
        } else {
            list.join(", ")
        }
    };
    for r in receipts {
        println!(
            "receipt {} (at {}): returned {}; held back {}",
            r.id,
            r.at,
            ids(&mut r.returned.iter().map(|i| format!("#{i}"))),
            ids(&mut r.held_back.iter().map(|(i, why)| format!("#{i} ({why})")))
        );
    }
}
