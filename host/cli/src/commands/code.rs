//! `amber index | outline | show | callers | grep`: reading code by symbol
//! (seed 003, ambits), served by the project index and the parser
//! components.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use amber_core::project::ProjectRoot;

use amber_index::{render, Index, Parsers, ShowOptions};
use amber_runtime::manager::PluginManager;
use anyhow::{bail, Context, Result};
use clap::Args;
use serde_json::json;

use super::print_json;
use amber_app::host::{self, Host};

/// Index the workspace: every file a parser serves, parsed in parallel into
/// symbols with ids, spans and BLAKE3 hashes. Outlines are cached by file
/// content, so running it again parses only what changed.
#[derive(Args)]
pub struct IndexArgs {
    /// The directory to index (default: the workspace), relative to the
    /// current folder (to the workspace under -C). A folder inside the workspace is indexed as part of it,
    /// with the ids `show` takes; a folder outside is a root of its own.
    path: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// With --json: also print every file and symbol.
    #[arg(long, requires = "json")]
    symbols: bool,
}

/// Print a file's symbols with their kinds, line ranges and ids.
#[derive(Args)]
pub struct OutlineArgs {
    /// The file, relative to the current folder (to the workspace under
    /// -C).
    file: PathBuf,
    /// Print JSON for scripts instead of text.
    #[arg(long)]
    json: bool,
}

/// Print symbols' source by id (`src/app.rs::App/new`, as `amber outline`
/// prints them) or by hash prefix (`b3:` and 8 or more hex digits).
#[derive(Args)]
pub struct ShowArgs {
    /// One or more symbols: names (`new`, `App/new`), ids or hash prefixes.
    #[arg(required = true, value_name = "SYMBOL")]
    symbols: Vec<String>,
    /// Only the signature, not the body.
    #[arg(long)]
    no_body: bool,
    /// Cut each symbol's source to this many bytes.
    #[arg(long, value_name = "N")]
    max_bytes: Option<usize>,
    /// Print JSON for scripts instead of text.
    #[arg(long)]
    json: bool,
}

/// Find the calls of functions or methods by name, each with the symbol it
/// is called from. Calls inside macro bodies (println!, assert_eq!) count.
#[derive(Args)]
pub struct CallersArgs {
    /// One or more called names.
    #[arg(required = true, value_name = "NAME")]
    names: Vec<String>,
    /// Print JSON for scripts instead of text.
    #[arg(long)]
    json: bool,
}

/// Search every file for a regex; each hit is annotated with the symbol it
/// is in. Files are rejected on raw bytes first, and only matching files
/// are parsed.
#[derive(Args)]
pub struct GrepArgs {
    /// A regular expression (Rust regex syntax).
    pattern: String,
    /// Match case-insensitively.
    #[arg(short = 'i', long)]
    ignore_case: bool,
    /// Print JSON for scripts instead of text.
    #[arg(long)]
    json: bool,
}

/// The loaded plugins and the parsers among them.
struct Code {
    _manager: PluginManager,
    parsers: Arc<dyn Parsers>,
    cache: PathBuf,
}

impl Code {
    fn load(host: &Host, workspace: &Path) -> Result<Code> {
        let manager = host::loaded(host, workspace)?;
        let parsers = host::parsers(&manager)?;
        if parsers.languages().is_empty() {
            return Err(host::with_bundle_hint(anyhow::anyhow!(
                "no parser plugin is installed or enabled (see `amber plugin list`)"
            )));
        }
        Ok(Code {
            _manager: manager,
            parsers,
            cache: host.dirs.cache.clone(),
        })
    }

    fn index(&self, root: &Path) -> Index<'_> {
        Index::new(root, self.parsers.as_ref(), &self.cache)
    }
}

pub fn index(host: &Host, args: IndexArgs, project: &ProjectRoot) -> Result<()> {
    let workspace = project.root.as_path();
    // A relative PATH is read from the folder amber started in (the
    // workspace under `-C`). A folder inside the workspace is indexed as part of it:
    // its ids are the workspace's, the ones `show` takes. A folder outside
    // is a root of its own.
    let (root, folder) = match &args.path {
        Some(p) => {
            let asked = project.start_dir().join(p);
            let path = std::fs::canonicalize(&asked)
                .with_context(|| format!("cannot index {}", asked.display()))?;
            if !path.is_dir() {
                bail!("cannot index {}: not a directory", path.display());
            }
            let inside = std::fs::canonicalize(workspace).ok().and_then(|ws| {
                path.strip_prefix(&ws)
                    .ok()
                    .map(|rel| (ws.clone(), rel.to_path_buf()))
            });
            match inside {
                Some((ws, rel)) => {
                    let rel: Vec<String> = rel
                        .components()
                        .map(|c| c.as_os_str().to_string_lossy().into_owned())
                        .collect();
                    (ws, rel.join("/"))
                }
                None => (path, String::new()),
            }
        }
        None => (workspace.to_path_buf(), String::new()),
    };
    if !root.is_dir() {
        bail!("cannot index {}: not a directory", root.display());
    }
    let code = Code::load(host, &root)?;
    let started = Instant::now();
    let bar = indicatif::ProgressBar::new(0);
    if args.json {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} indexing {pos}/{len} files {wide_bar} {elapsed}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let (tree, report) = code.index(&root).build_under(&folder, &|p| {
        bar.set_length(p.total as u64);
        bar.set_position(p.done as u64);
    });
    bar.finish_and_clear();
    let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
    if args.json {
        let mut value = json!({
            "root": root.display().to_string(),
            "folder": folder,
            "elapsed_ms": elapsed_ms,
            "report": report,
        });
        if args.symbols {
            value["files"] = serde_json::to_value(&tree.files)?;
        }
        return print_json(&value);
    }
    let languages: Vec<String> = report
        .languages
        .iter()
        .map(|(l, n)| format!("{l} {n}"))
        .collect();
    println!(
        "indexed {} files ({}): {} symbols; {} parsed, {} from the cache, in {:.0} ms",
        report.files,
        languages.join(", "),
        report.symbols,
        report.parsed,
        report.cached,
        elapsed_ms
    );
    for skip in &report.skipped {
        eprintln!("amber: skipped {}: {}", skip.path, skip.reason);
    }
    for dropped in &report.dropped_languages {
        let kept = match dropped.from_cache {
            0 => String::new(),
            n => format!("; {n} indexed from outlines it made before"),
        };
        eprintln!(
            "amber: finished without {} ({} files not indexed{kept}): {}",
            dropped.language, dropped.files, dropped.reason
        );
    }
    Ok(())
}

pub fn outline(host: &Host, args: OutlineArgs, project: &ProjectRoot) -> Result<()> {
    let workspace = project.root.as_path();
    let file = crate::workspace::typed_path(project, &args.file)?;
    let code = Code::load(host, workspace)?;
    let entry = code.index(workspace).file(&file)?;
    if args.json {
        return print_json(&entry);
    }
    print!("{}", render::outline(&entry));
    Ok(())
}

pub fn show(host: &Host, args: ShowArgs, workspace: &Path) -> Result<()> {
    let code = Code::load(host, workspace)?;
    let index = code.index(workspace);
    let options = ShowOptions {
        no_body: args.no_body,
        max_bytes: args.max_bytes,
    };
    let mut shown = Vec::new();
    let mut failures = 0;
    for selector in &args.symbols {
        match index.show(selector, options) {
            Ok(s) => shown.push(s),
            Err(e) => {
                failures += 1;
                eprintln!("amber: {e}");
            }
        }
    }
    if args.json {
        print_json(&shown)?;
    } else {
        for (i, s) in shown.iter().enumerate() {
            if i > 0 {
                println!();
            }
            print!("{}", render::shown(s));
        }
    }
    if failures > 0 {
        bail!("{failures} of {} symbols not shown", args.symbols.len());
    }
    Ok(())
}

pub fn callers(host: &Host, args: CallersArgs, workspace: &Path) -> Result<()> {
    let code = Code::load(host, workspace)?;
    let found = code.index(workspace).callers(&args.names);
    for skip in &found.skipped {
        eprintln!("amber: not searched: {}: {}", skip.path, skip.reason);
    }
    for part in &found.partial {
        eprintln!("amber: partly searched: {}: {}", part.path, part.reason);
    }
    if args.json {
        return print_json(&found);
    }
    if found.sites.is_empty() {
        eprintln!("amber: no calls of {} found", args.names.join(", "));
    }
    print!("{}", render::callers(&found.sites));
    Ok(())
}

pub fn grep(host: &Host, args: GrepArgs, workspace: &Path) -> Result<()> {
    let code = Code::load(host, workspace)?;
    let (hits, skipped) = code
        .index(workspace)
        .grep(&args.pattern, args.ignore_case)?;
    // Files that could not be searched go to stderr in both forms, so the
    // JSON stays the list of hits scripts read.
    for skip in &skipped {
        eprintln!("amber: not searched: {}: {}", skip.path, skip.reason);
    }
    if args.json {
        return print_json(&hits);
    }
    print!("{}", render::grep(&hits));
    Ok(())
}
