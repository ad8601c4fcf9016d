//! Building the ProjectTree: walk, hash, take cached outlines, parse the
//! rest in parallel (one parser instance per worker: the plugin's pool
//! hands each concurrent call its own), and save the cache.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use amber_core::ports::{Parser, Symbol};
use serde::Serialize;

use crate::cache::{CachedOutline, OutlineCache};
use crate::source::{self, SourceFile};
use crate::tree::{FileEntry, IndexedSymbol, ProjectTree};
use crate::{ids, IndexError, Parsers};

/// Parse workers at most: the instances a plugin's pool keeps warm.
const MAX_WORKERS: usize = 4;

/// Files done of files to do, for a progress bar.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    pub done: usize,
    pub total: usize,
}

/// A file left out of the index, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    pub path: String,
    pub reason: String,
}

/// A language whose parser plugin failed during the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DroppedLanguage {
    pub language: String,
    /// Its files not indexed.
    pub files: usize,
    /// Its files indexed all the same, from outlines the same parser made
    /// before it failed (they are in `languages` too).
    pub from_cache: usize,
    pub reason: String,
}

/// What a run did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct IndexReport {
    pub files: usize,
    pub symbols: usize,
    /// Files parsed this run.
    pub parsed: usize,
    /// Files whose outline came from the cache.
    pub cached: usize,
    pub skipped: Vec<Skipped>,
    pub dropped_languages: Vec<DroppedLanguage>,
    /// Files per language.
    pub languages: BTreeMap<String, usize>,
}

/// The index of one project root.
pub struct Index<'p> {
    root: PathBuf,
    parsers: &'p dyn Parsers,
    cache_dir: PathBuf,
    threads: usize,
}

/// A walked file with its parser.
pub(crate) struct Routed {
    pub(crate) file: SourceFile,
    pub(crate) parser: Arc<dyn Parser>,
    /// The file's bytes when the caller has read them already (grep and
    /// callers): the index then hashes and parses exactly the bytes they
    /// searched, without reading the file a second time.
    pub(crate) bytes: Option<Vec<u8>>,
}

impl Routed {
    pub(crate) fn language(&self) -> &str {
        &self.parser.language().name
    }
}

/// A routed file after reading: its hash and, when not cached, its text.
enum Read {
    Cached([u8; 32]),
    ToParse([u8; 32], String),
    Failed(String),
}

impl<'p> Index<'p> {
    pub fn new(root: &Path, parsers: &'p dyn Parsers, cache_dir: &Path) -> Self {
        // A plugin's pool keeps this many instances warm; more workers
        // would instantiate afresh per file and lose the parsers' caches.
        let threads = std::thread::available_parallelism()
            .map_or(2, |n| n.get())
            .min(MAX_WORKERS);
        Index {
            root: root.to_path_buf(),
            parsers,
            cache_dir: cache_dir.to_path_buf(),
            threads,
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Indexes the whole root.
    pub fn build(&self, progress: &(dyn Fn(Progress) + Sync)) -> (ProjectTree, IndexReport) {
        let files = self.route(source::walk(&self.root));
        self.index(files, true, progress)
    }

    /// Indexes the files under `folder`, a root-relative path with `/`
    /// (empty for the whole root): ids stay relative to the root, so they
    /// are the ids `show` takes, and the cache is the root's.
    pub fn build_under(
        &self,
        folder: &str,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> (ProjectTree, IndexReport) {
        let folder = folder.trim_matches('/');
        if folder.is_empty() {
            return self.build(progress);
        }
        let under: Vec<SourceFile> = source::walk(&self.root)
            .into_iter()
            .filter(|f| {
                f.rel
                    .strip_prefix(folder)
                    .is_some_and(|rest| rest.starts_with('/'))
            })
            .collect();
        self.index(self.route(under), false, progress)
    }

    /// The files a parser serves, each with it.
    pub(crate) fn route(&self, files: Vec<SourceFile>) -> Vec<Routed> {
        self.route_read(files.into_iter().map(|f| (f, None)).collect())
    }

    /// [`Index::route`] for files some of which were read already.
    pub(crate) fn route_read(&self, files: Vec<(SourceFile, Option<Vec<u8>>)>) -> Vec<Routed> {
        let mut routes: HashMap<String, Option<Arc<dyn Parser>>> = HashMap::new();
        files
            .into_iter()
            .filter(|(file, _)| !file.ext.is_empty())
            .filter_map(|(file, bytes)| {
                let parser = routes
                    .entry(file.ext.clone())
                    .or_insert_with(|| self.parsers.for_extension(&file.ext))
                    .clone()?;
                Some(Routed {
                    file,
                    parser,
                    bytes,
                })
            })
            .collect()
    }

    /// The workers it parses and searches on.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The same index on `threads` workers (1 to the pool's size): the
    /// benchmarks compare one worker with one ctags process.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.clamp(1, MAX_WORKERS);
        self
    }

    /// One file's entry, from the cache or parsed now.
    pub fn file(&self, path: &Path) -> Result<FileEntry, IndexError> {
        let outside = || IndexError::OutsideRoot(path.display().to_string());
        let file = source::single(&self.root, path).ok_or_else(outside)?;
        let parser = self
            .parsers
            .for_extension(&file.ext)
            .ok_or_else(|| IndexError::NoParser {
                path: file.rel.clone(),
                installed: self.parsers.languages().join(", "),
            })?;
        if !file.abs.is_file() {
            return Err(IndexError::Read {
                path: file.rel.clone(),
                reason: "no such file".into(),
            });
        }
        let rel = file.rel.clone();
        let routed = Routed {
            file,
            parser,
            bytes: None,
        };
        let (tree, report) = self.index(vec![routed], false, &|_| {});
        match (
            tree.files.into_iter().next(),
            report.skipped.into_iter().next(),
        ) {
            (Some(entry), _) => Ok(entry),
            (None, Some(skip)) => Err(IndexError::Parse {
                path: skip.path,
                reason: skip.reason,
            }),
            (None, None) => Err(IndexError::Parse {
                path: rel,
                reason: "its parser is no longer installed".into(),
            }),
        }
    }

    /// Indexes `files`; `whole` says they are the whole project, so cached
    /// outlines of files no longer there can go.
    pub(crate) fn index(
        &self,
        files: Vec<Routed>,
        whole: bool,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> (ProjectTree, IndexReport) {
        let mut cache = OutlineCache::load(&self.cache_dir, &self.root, &|l| {
            self.parsers.fingerprint(l)
        });
        let total = files.len();
        let done = AtomicUsize::new(0);
        let tick = || {
            let done = done.fetch_add(1, Ordering::Relaxed) + 1;
            progress(Progress { done, total });
        };

        // Read and hash everything; keep the text only of what must be parsed.
        let known: &OutlineCache = &cache;
        let reads = parallel(&files, self.threads, |routed| {
            let bytes = match &routed.bytes {
                Some(bytes) => Ok(Cow::Borrowed(bytes.as_slice())),
                None => source::read(&routed.file).map(Cow::Owned),
            };
            let read = match bytes {
                Err(reason) => Read::Failed(reason),
                Ok(bytes) => {
                    let hash = *blake3::hash(&bytes).as_bytes();
                    if known.contains(hash, routed.language()) {
                        Read::Cached(hash)
                    } else {
                        match String::from_utf8(bytes.into_owned()) {
                            Ok(text) => Read::ToParse(hash, text),
                            Err(_) => Read::Failed("not UTF-8 text".into()),
                        }
                    }
                }
            };
            if !matches!(read, Read::ToParse(..)) {
                tick();
            }
            read
        });

        // Parse what the cache lacks.
        let dropped: Mutex<HashSet<String>> = Mutex::new(HashSet::new());
        let to_parse: Vec<(usize, &Routed, &String)> = reads
            .iter()
            .enumerate()
            .filter_map(|(i, r)| match r {
                Read::ToParse(_, text) => Some((i, &files[i], text)),
                _ => None,
            })
            .collect();
        let parsed = parallel(&to_parse, self.threads, |(_, routed, text)| {
            let language = routed.language();
            let result = if lock(&dropped).contains(language) {
                Err(None)
            } else {
                match routed.parser.outline(text) {
                    Ok(symbols) => match check_outline(&symbols, text.len()) {
                        Ok(()) => Ok(outline_with_hashes(symbols, text)),
                        Err(reason) => {
                            Err(Some(format!("its parser gave a bad outline: {reason}")))
                        }
                    },
                    Err(e) => {
                        // A plugin that failed is unwound: stop asking it.
                        if !self.parsers.serves(language) {
                            lock(&dropped).insert(language.to_string());
                        }
                        Err(Some(e.to_string()))
                    }
                }
            };
            tick();
            result
        });

        let mut report = IndexReport::default();
        let mut parsed_by_file: HashMap<usize, Result<CachedOutline, Option<String>>> =
            to_parse.iter().map(|(i, _, _)| *i).zip(parsed).collect();
        let dropped = dropped.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut tree = ProjectTree::default();
        for (i, (routed, read)) in files.iter().zip(&reads).enumerate() {
            let language = routed.language();
            let path = &routed.file.rel;
            let (hash, outline) = match read {
                Read::Failed(reason) => {
                    report.skipped.push(Skipped {
                        path: path.clone(),
                        reason: reason.clone(),
                    });
                    continue;
                }
                Read::Cached(hash) => {
                    report.cached += 1;
                    (*hash, None)
                }
                Read::ToParse(hash, _) => match parsed_by_file.remove(&i) {
                    Some(Ok(outline)) => {
                        report.parsed += 1;
                        (*hash, Some(outline))
                    }
                    Some(Err(Some(reason))) => {
                        report.skipped.push(Skipped {
                            path: path.clone(),
                            reason,
                        });
                        continue;
                    }
                    // Not tried: its language was dropped.
                    _ => continue,
                },
            };
            if let Some(outline) = outline {
                cache.put(hash, language, &self.parsers.fingerprint(language), outline);
            }
            let Some(outline) = cache.get(hash, language) else {
                continue;
            };
            *report.languages.entry(language.to_string()).or_default() += 1;
            tree.files.push(entry(path, language, hash, outline));
        }
        report.dropped_languages = dropped_report(&dropped, &files, &report);
        report.files = tree.files.len();
        report.symbols = tree.symbol_count();
        // The cache only saves time: failing to write it is not the run's
        // failure, but it is reported.
        if let Err(e) = cache.save(whole) {
            report.skipped.push(Skipped {
                path: self.cache_dir.display().to_string(),
                reason: format!("the outline cache was not saved: {e}"),
            });
        }
        (tree, report)
    }
}

fn dropped_report(
    dropped: &HashSet<String>,
    files: &[Routed],
    report: &IndexReport,
) -> Vec<DroppedLanguage> {
    let skipped_paths: HashSet<&str> = report.skipped.iter().map(|s| s.path.as_str()).collect();
    let mut out: Vec<DroppedLanguage> = dropped
        .iter()
        .map(|language| {
            let indexed = report.languages.get(language).copied().unwrap_or(0);
            let all = files.iter().filter(|f| f.language() == language).count();
            let skipped = files
                .iter()
                .filter(|f| f.language() == language && skipped_paths.contains(f.file.rel.as_str()))
                .count();
            DroppedLanguage {
                language: language.clone(),
                files: all.saturating_sub(indexed + skipped),
                from_cache: indexed,
                reason: "its parser plugin failed (three failed calls in a row) and was unloaded"
                    .into(),
            }
        })
        .collect();
    out.sort_by(|a, b| a.language.cmp(&b.language));
    out
}

/// Nesting deeper than this in an outline is refused: ids and indentation
/// grow with depth, and a plugin must not make the host pay for a chain.
const MAX_OUTLINE_DEPTH: usize = 64;

/// Checks what the index relies on in a plugin's outline: parents come
/// before their children (pre-order), spans lie inside the text, and the
/// nesting is bounded.
fn check_outline(symbols: &[Symbol], len: usize) -> Result<(), String> {
    let mut depth: Vec<usize> = Vec::with_capacity(symbols.len());
    for (i, s) in symbols.iter().enumerate() {
        let level = match s.parent {
            None => 0,
            Some(p) if (p as usize) < i => depth[p as usize] + 1,
            Some(p) => return Err(format!("symbol {i} names parent {p}, not an earlier one")),
        };
        if level > MAX_OUTLINE_DEPTH {
            return Err(format!(
                "symbol {i} is nested over {MAX_OUTLINE_DEPTH} deep"
            ));
        }
        let (start, end) = (s.byte_start as usize, s.byte_end as usize);
        if start > end || end > len || (s.signature_end as usize) > len {
            return Err(format!("symbol {i} spans bytes {start}..{end} of {len}"));
        }
        depth.push(level);
    }
    Ok(())
}

fn outline_with_hashes(symbols: Vec<Symbol>, text: &str) -> CachedOutline {
    let bytes = text.as_bytes();
    let hashes = symbols
        .iter()
        .map(|s| {
            let start = (s.byte_start as usize).min(bytes.len());
            let end = (s.byte_end as usize).clamp(start, bytes.len());
            *blake3::hash(&bytes[start..end]).as_bytes()
        })
        .collect();
    CachedOutline { symbols, hashes }
}

fn entry(path: &str, language: &str, hash: [u8; 32], outline: &CachedOutline) -> FileEntry {
    let ids = ids::assign(path, &outline.symbols);
    let symbols = outline
        .symbols
        .iter()
        .zip(&outline.hashes)
        .zip(ids)
        .map(|((s, h), id)| IndexedSymbol {
            id,
            symbol: s.clone(),
            hash: format!("b3:{}", blake3::Hash::from_bytes(*h).to_hex()),
        })
        .collect();
    FileEntry {
        path: path.to_string(),
        language: language.to_string(),
        content_hash: blake3::Hash::from_bytes(hash).to_hex().to_string(),
        symbols,
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// `f` over `items` on `threads` workers, results in item order.
pub(crate) fn parallel<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    if items.len() < 2 || threads < 2 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let mut results: Vec<(usize, R)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.min(items.len()))
            .map(|_| {
                scope.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        out.push((i, f(item)));
                    }
                    out
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| match w.join() {
                Ok(out) => out,
                // A panic here is a bug in the index, not in a plugin (their
                // traps come back as errors): let it surface.
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    });
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}
