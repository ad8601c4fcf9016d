//! `@path` mentions in a prompt, as in Claude Code: the person types
//! `@src/lib.rs` and the file goes along with the prompt, so the model
//! starts from what the person is looking at instead of spending a turn on
//! `read_file`. Two jobs, one function each: offering paths while the
//! person types (`candidates`) and attaching what the finished prompt names
//! (`attach`). Both walk the tree as git and rg do, so an ignored build
//! directory is neither offered nor listed.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::fs::File;
use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};

/// Entries walked at most: a checkout with a huge untracked tree must not
/// make typing `@` stall.
const MAX_WALKED: usize = 20_000;
/// One file's attachment at most; the rest is a `read_file` away.
const MAX_FILE_BYTES: usize = 64 * 1024;
/// All attachments of one prompt together at most: the context window is
/// shared with everything else the turn needs.
const MAX_TOTAL_BYTES: usize = 256 * 1024;
/// Entries a folder's listing shows before "… N more".
const MAX_FOLDER_ENTRIES: usize = 200;
/// How far the binary sniff looks, as ripgrep decides.
const BINARY_SNIFF_BYTES: usize = 8 * 1024;
/// Characters that end a sentence rather than a path: `see @src/lib.rs,`.
const TRAILING_PUNCTUATION: &[char] = &[',', '.', ';', ':', ')', ']', '!', '?', '"', '\''];

/// Workspace-relative paths matching `query` fuzzily, best first, at most
/// `limit`: files, and folders with a trailing `/`, with `/` separators.
///
/// A match is a case-insensitive subsequence of the path. The ranking puts
/// the path typed in full first, then paths it begins, then file names it
/// begins, then file names holding it, then the other matches by how
/// tightly they hold it; shorter paths first on a tie. An empty query
/// offers the top-level entries, sorted.
pub fn candidates(workspace: &Path, query: &str, limit: usize) -> Vec<String> {
    let query = query.trim();
    let query = query.strip_prefix("./").unwrap_or(query).to_lowercase();
    if query.is_empty() {
        let mut top = entries(workspace, workspace, Some(1));
        top.sort();
        top.truncate(limit);
        return top;
    }
    let mut ranked: Vec<(Rank, String)> = entries(workspace, workspace, None)
        .into_iter()
        .filter_map(|path| Some((rank(&path, &query)?, path)))
        .collect();
    ranked.sort();
    ranked
        .into_iter()
        .take(limit)
        .map(|(_, path)| path)
        .collect()
}

/// A prompt with its `@path` mentions attached, and what the person should
/// know about them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Attached {
    /// The prompt as typed, then a blank line and one block per attached
    /// path; the prompt alone when nothing was attached.
    pub prompt: String,
    /// For the front end to show the person: cuts, refusals, and
    /// attachments left out.
    pub notes: Vec<String>,
    /// The image files mentioned (`@shot.png`): sent as images, not text
    /// (`crate::images::attach`).
    pub images: Vec<PathBuf>,
}

/// What a prompt's `@path` mentions attach.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Attachments {
    /// The files and folders, as a note for the model ahead of the prompt.
    pub note: Option<String>,
    /// The image files, to attach as images.
    pub images: Vec<PathBuf>,
    /// For the person: cuts, refusals, attachments left out.
    pub notes: Vec<String>,
}

/// The `@path` attachments of `prompt` as a note for the model to read
/// ahead of it (`Agent::note_before_next_prompt`), so the prompt itself
/// stays as typed; `None` when nothing was attached. With the notes for
/// the person ([`Attached::notes`]) and the images named. `typed`: the
/// person wrote `prompt` (an image outside the workspace may be named by
/// its absolute path); a command file's text may not reach outside.
pub fn attachments(workspace: &Path, prompt: &str, typed: bool) -> Attachments {
    let attached = attach_from(workspace, prompt, typed);
    let note = attached
        .prompt
        .strip_prefix(prompt)
        .map(str::trim)
        .filter(|blocks| !blocks.is_empty())
        .map(|blocks| format!("The user attached:\n{blocks}"));
    Attachments {
        note,
        images: attached.images,
        notes: attached.notes,
    }
}

/// Attaches every file or folder `prompt` mentions as `@path` (at its start
/// or after whitespace) inside `workspace`.
///
/// A mention that names nothing is left as it is without a note: people
/// write `@someone`. One that resolves outside the workspace, by `..`, an
/// absolute path or a symlink, is refused with a note, since the person may
/// not have meant to send it. Each path is attached once, however often it
/// is mentioned. A file over 64 KiB is cut at a line break, a binary file
/// is refused, a folder is listed (200 entries at most), and all
/// attachments together stay within 256 KiB. An image file (by its
/// extension: png, jpg, jpeg, gif, webp) is not text: it is listed in
/// [`Attached::images`], and may be outside the workspace when named by
/// an absolute path (a screenshot is rarely in the workspace, and a path
/// typed or pasted whole is meant).
pub fn attach(workspace: &Path, prompt: &str) -> Attached {
    attach_from(workspace, prompt, true)
}

/// [`attach`], with images outside the workspace allowed only when
/// `outside_images` (the person typed the prompt).
fn attach_from(workspace: &Path, prompt: &str, outside_images: bool) -> Attached {
    let mut notes = Vec::new();
    let mut images = Vec::new();
    let Ok(root) = workspace.canonicalize() else {
        return Attached {
            prompt: prompt.to_string(),
            notes,
            images,
        };
    };
    let mut seen = HashSet::new();
    let mut blocks = Vec::new();
    let mut budget = MAX_TOTAL_BYTES;
    for word in prompt.split_whitespace() {
        let Some(raw) = word.strip_prefix('@') else {
            continue;
        };
        let Some((name, real)) = resolve(workspace, raw) else {
            continue;
        };
        if !seen.insert(real.clone()) {
            continue;
        }
        if crate::images::is_image_path(&real) && real.is_file() {
            if real.starts_with(&root) || (outside_images && Path::new(name).is_absolute()) {
                images.push(real);
            } else {
                let how = if outside_images {
                    "name an image outside it by its absolute path"
                } else {
                    "a command file attaches images from the workspace only"
                };
                notes.push(format!(
                    "@{name} is outside the workspace; not attached ({how})"
                ));
            }
            continue;
        }
        if !real.starts_with(&root) {
            notes.push(format!("@{name} is outside the workspace; not attached"));
            continue;
        }
        let block = if real.is_dir() {
            Ok(folder_block(&root, &real))
        } else {
            file_block(&root, &real, name)
        };
        match block {
            Ok(block) if block.counted > budget => notes.push(format!(
                "@{name} not attached: the attachments reached {} KiB",
                MAX_TOTAL_BYTES / 1024
            )),
            Ok(block) => {
                budget -= block.counted;
                blocks.push(block.text);
                notes.extend(block.note);
            }
            Err(note) => notes.push(note),
        }
    }
    let prompt = if blocks.is_empty() {
        prompt.to_string()
    } else {
        format!("{prompt}\n\n{}", blocks.join("\n\n"))
    };
    Attached {
        prompt,
        notes,
        images,
    }
}

/// How well a path matches; compared field by field, smaller is better.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Rank {
    tier: Tier,
    /// The tightest stretch holding the query; 0 above `Subsequence`.
    span: usize,
    /// Shorter paths are likelier what the person means.
    len: usize,
}

/// Kinds of match, best first (the derived order is the ranking).
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Tier {
    Exact,
    PathPrefix,
    NamePrefix,
    NameContains,
    Subsequence,
}

/// How `path` matches the lowercase `query`, or none when it does not.
fn rank(path: &str, query: &str) -> Option<Rank> {
    let lower = path.to_lowercase();
    let trimmed = lower.trim_end_matches('/');
    let name = trimmed.rsplit('/').next().unwrap_or(trimmed);
    let tier = if trimmed == query.trim_end_matches('/') {
        Tier::Exact
    } else if lower.starts_with(query) {
        Tier::PathPrefix
    } else if name.starts_with(query) {
        Tier::NamePrefix
    } else if name.contains(query) {
        Tier::NameContains
    } else {
        Tier::Subsequence
    };
    let span = match tier {
        Tier::Subsequence => tightest_span(&lower, query)?,
        _ => 0,
    };
    Some(Rank {
        tier,
        span,
        len: path.chars().count(),
    })
}

/// The length in chars of the shortest stretch of `text` holding `query`
/// as a subsequence, or none when it holds it nowhere.
fn tightest_span(text: &str, query: &str) -> Option<usize> {
    let text: Vec<char> = text.chars().collect();
    let query: Vec<char> = query.chars().collect();
    let first = *query.first()?;
    let mut best: Option<usize> = None;
    for start in (0..text.len()).filter(|&i| text[i] == first) {
        let mut matched = 1;
        let mut end = start;
        for (i, &c) in text.iter().enumerate().skip(start + 1) {
            if matched == query.len() {
                break;
            }
            if c == query[matched] {
                matched += 1;
                end = i;
            }
        }
        if matched < query.len() {
            // A later start has less text left, so it cannot match either.
            break;
        }
        let span = end - start + 1;
        best = Some(best.map_or(span, |b| b.min(span)));
    }
    best
}

/// A walker over `root` that skips what git and rg skip: `.gitignore`d,
/// `.ignore`d and hidden entries, and `.git` itself. `require_git(false)`
/// because a workspace need not be a git checkout for its `.gitignore` to
/// say what is noise.
fn walker(root: &Path, max_depth: Option<usize>) -> ignore::Walk {
    let mut builder = ignore::WalkBuilder::new(root);
    builder
        .require_git(false)
        .max_depth(max_depth)
        .filter_entry(|entry| entry.file_name() != OsStr::new(".git"));
    builder.build()
}

/// The entries under `root` (down to `max_depth`), relative to `base`,
/// folders with a trailing `/`, in walk order; at most `MAX_WALKED`
/// walked. Unreadable entries are skipped: an offer or a listing is a
/// convenience, not a report.
fn entries(base: &Path, root: &Path, max_depth: Option<usize>) -> Vec<String> {
    walker(root, max_depth)
        .take(MAX_WALKED)
        .flatten()
        .filter(|entry| entry.depth() > 0)
        .filter_map(|entry| {
            let mut rel = relative(base, entry.path())?;
            if is_dir(&entry) {
                rel.push('/');
            }
            Some(rel)
        })
        .collect()
}

/// Whether the entry is a folder, following a symlink (the walk does not).
fn is_dir(entry: &ignore::DirEntry) -> bool {
    match entry.file_type() {
        Some(t) if t.is_dir() => true,
        Some(t) if t.is_symlink() => entry.path().is_dir(),
        _ => false,
    }
}

/// `path` relative to `base`, with `/` separators whatever the platform.
fn relative(base: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(base).ok()?;
    let parts: Vec<_> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect();
    Some(parts.join("/"))
}

/// The mention as written and the real path it names, trying it whole
/// first and then without trailing punctuation (a file may end in `)`);
/// none when neither exists.
fn resolve<'a>(workspace: &Path, raw: &'a str) -> Option<(&'a str, PathBuf)> {
    let trimmed = raw.trim_end_matches(TRAILING_PUNCTUATION);
    [raw, trimmed]
        .into_iter()
        .filter(|name| !name.is_empty())
        .find_map(|name| Some((name, workspace.join(name).canonicalize().ok()?)))
}

/// `real` as the block's `path` attribute: workspace-relative, `./` for
/// the workspace itself.
fn shown_path(root: &Path, real: &Path) -> String {
    let rel = relative(root, real).unwrap_or_default();
    if rel.is_empty() {
        ".".to_string()
    } else {
        rel
    }
}

/// One attachment ready to append.
struct Block {
    text: String,
    /// Bytes of content it counts against `MAX_TOTAL_BYTES`.
    counted: usize,
    /// For the person, when the content was cut.
    note: Option<String>,
}

/// A file's block, or the note saying why it is not attached.
fn file_block(root: &Path, real: &Path, name: &str) -> Result<Block, String> {
    let head =
        read_head(real).map_err(|e| format!("@{name} could not be read ({e}); not attached"))?;
    let sniff = &head.bytes[..head.bytes.len().min(BINARY_SNIFF_BYTES)];
    if sniff.contains(&0) {
        return Err(format!("@{name} is binary; not attached"));
    }
    let keep = match head.total_lines {
        Some(_) => line_cut(&head.bytes),
        None => head.bytes.len(),
    };
    let kept = &head.bytes[..keep];
    let content = String::from_utf8_lossy(kept);
    let mut text = format!("<file path=\"{}\">\n", attribute(&shown_path(root, real)));
    text.push_str(&content);
    if !content.is_empty() && !content.ends_with('\n') {
        text.push('\n');
    }
    let mut note = None;
    if let Some(total) = head.total_lines {
        let shown = amber_core::text::thousands(line_count(kept));
        let total = amber_core::text::thousands(total);
        text.push_str(&format!(
            "[cut: showed {shown} of {total} lines; read_file reads the rest]\n"
        ));
        note = Some(format!(
            "@{name}: attached the first {} KiB ({shown} of {total} lines)",
            MAX_FILE_BYTES / 1024
        ));
    }
    text.push_str("</file>");
    Ok(Block {
        text,
        counted: content.len(),
        note,
    })
}

/// A folder's block: its entries, workspace-relative so the model can
/// read them straight away, ignored ones left out.
fn folder_block(root: &Path, real: &Path) -> Block {
    let mut listing = entries(root, real, Some(1));
    listing.sort();
    let more = listing.len().saturating_sub(MAX_FOLDER_ENTRIES);
    listing.truncate(MAX_FOLDER_ENTRIES);
    if more > 0 {
        listing.push(format!("… {} more", amber_core::text::thousands(more)));
    }
    let mut body = listing.join("\n");
    if !body.is_empty() {
        body.push('\n');
    }
    let mut path = shown_path(root, real);
    path.push('/');
    Block {
        text: format!("<folder path=\"{}\">\n{body}</folder>", attribute(&path)),
        counted: body.len(),
        note: None,
    }
}

/// The start of a file, up to one byte past the cap so a cut shows.
struct Head {
    bytes: Vec<u8>,
    /// The whole file's line count, when it is over the cap.
    total_lines: Option<usize>,
}

/// Reads a file's head; when the file is over the cap, counts its lines
/// streaming, so a multi-gigabyte log costs a read but not the memory.
fn read_head(path: &Path) -> std::io::Result<Head> {
    let mut file = File::open(path)?;
    let mut bytes = Vec::new();
    file.by_ref()
        .take(MAX_FILE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() <= MAX_FILE_BYTES {
        return Ok(Head {
            bytes,
            total_lines: None,
        });
    }
    let mut newlines = bytes.iter().filter(|&&b| b == b'\n').count();
    let mut last = bytes.last().copied();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let chunk = buf.get(..n).unwrap_or_default();
        newlines += chunk.iter().filter(|&&b| b == b'\n').count();
        last = chunk.last().copied().or(last);
    }
    let unterminated = usize::from(last.is_some_and(|b| b != b'\n'));
    Ok(Head {
        bytes,
        total_lines: Some(newlines + unterminated),
    })
}

/// Where to cut `bytes` to keep at most the cap: after the last line break
/// within it, or at the cap when one line fills it (the lossy decoding then
/// marks a split character).
fn line_cut(bytes: &[u8]) -> usize {
    let window = &bytes[..bytes.len().min(MAX_FILE_BYTES)];
    match window.iter().rposition(|&b| b == b'\n') {
        Some(i) => i + 1,
        None => window.len(),
    }
}

/// Lines in `bytes`, counting an unterminated last one.
fn line_count(bytes: &[u8]) -> usize {
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
    newlines + usize::from(bytes.last().is_some_and(|&b| b != b'\n'))
}

/// `value` safe inside a double-quoted attribute.
fn attribute(value: &str) -> String {
    value.replace('&', "&amp;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn write(root: &Path, rel: &str, content: impl AsRef<[u8]>) {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
    }

    /// A workspace at `tmp/ws`, so `tmp/` can hold what lies outside it.
    fn workspace() -> (tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("ws");
        fs::create_dir(&ws).unwrap();
        (tmp, ws)
    }

    #[test]
    fn candidates_leave_out_gitignored_and_hidden_entries() {
        let (_tmp, ws) = workspace();
        write(&ws, ".gitignore", "secret.txt\ntarget/\n");
        write(&ws, "secret.txt", "x");
        write(&ws, "target/out.bin", "x");
        write(&ws, ".env", "x");
        write(&ws, "keep.txt", "x");
        assert_eq!(candidates(&ws, "", 50), vec!["keep.txt"]);
        assert!(candidates(&ws, "secret", 10).is_empty());
        assert!(candidates(&ws, "out", 10).is_empty());
        assert!(candidates(&ws, "env", 10).is_empty());
    }

    #[test]
    fn candidates_rank_exact_then_prefix_then_name_then_subsequence() {
        let (_tmp, ws) = workspace();
        write(&ws, "lib/x.rs", "");
        write(&ws, "src/lib.rs", "");
        write(&ws, "src/main.rs", "");
        write(&ws, "docs/library.md", "");
        write(&ws, "tests/cli_basics.rs", "");
        write(&ws, "tests/mylib.rs", "");
        assert_eq!(
            candidates(&ws, "LIB", 10),
            vec![
                "lib/",
                "lib/x.rs",
                "src/lib.rs",
                "docs/library.md",
                "tests/mylib.rs",
                "tests/cli_basics.rs",
            ]
        );
        assert_eq!(candidates(&ws, "lib", 2), vec!["lib/", "lib/x.rs"]);
    }

    #[test]
    fn candidates_prefer_the_tightest_subsequence() {
        let (_tmp, ws) = workspace();
        write(&ws, "s_x_x_x_m.rs", "");
        write(&ws, "a/sm_.rs", "");
        write(&ws, "s_m.rs", "");
        assert_eq!(
            candidates(&ws, "sm", 10),
            vec!["a/sm_.rs", "s_m.rs", "s_x_x_x_m.rs"]
        );
    }

    #[test]
    fn candidates_with_an_empty_query_offer_the_top_level_sorted() {
        let (_tmp, ws) = workspace();
        write(&ws, "src/lib.rs", "");
        write(&ws, "README.md", "");
        write(&ws, "Cargo.toml", "");
        assert_eq!(
            candidates(&ws, "", 10),
            vec!["Cargo.toml", "README.md", "src/"]
        );
    }

    #[test]
    fn attach_appends_a_mentioned_file_once() {
        let (_tmp, ws) = workspace();
        write(&ws, "src/lib.rs", "pub fn a() {}\n");
        let attached = attach(&ws, "explain @src/lib.rs, then @./src/lib.rs");
        assert_eq!(
            attached.prompt,
            "explain @src/lib.rs, then @./src/lib.rs\n\n\
             <file path=\"src/lib.rs\">\npub fn a() {}\n</file>"
        );
        assert!(attached.notes.is_empty());
    }

    #[test]
    fn attach_lists_a_folder_without_ignored_entries() {
        let (_tmp, ws) = workspace();
        write(&ws, ".gitignore", "*.log\n");
        write(&ws, "src/a.rs", "");
        write(&ws, "src/b/c.rs", "");
        write(&ws, "src/run.log", "");
        let attached = attach(&ws, "what is in @src/");
        assert_eq!(
            attached.prompt,
            "what is in @src/\n\n<folder path=\"src/\">\nsrc/a.rs\nsrc/b/\n</folder>"
        );
        assert!(attached.notes.is_empty());
    }

    #[test]
    fn attach_leaves_a_mention_that_names_nothing() {
        let (_tmp, ws) = workspace();
        let attached = attach(&ws, "ask @someone about it");
        assert_eq!(attached.prompt, "ask @someone about it");
        assert!(attached.notes.is_empty());
    }

    #[test]
    fn attach_refuses_a_path_outside_the_workspace() {
        let (tmp, ws) = workspace();
        write(tmp.path(), "secret", "hunter2");
        let attached = attach(&ws, "read @../secret");
        assert_eq!(attached.prompt, "read @../secret");
        assert_eq!(
            attached.notes,
            vec!["@../secret is outside the workspace; not attached"]
        );
    }

    #[cfg(unix)]
    #[test]
    fn attach_refuses_a_symlink_leading_outside_the_workspace() {
        let (tmp, ws) = workspace();
        write(tmp.path(), "secret", "hunter2");
        std::os::unix::fs::symlink(tmp.path().join("secret"), ws.join("link")).unwrap();
        let attached = attach(&ws, "read @link.");
        assert_eq!(attached.prompt, "read @link.");
        assert_eq!(
            attached.notes,
            vec!["@link is outside the workspace; not attached"]
        );
    }

    #[test]
    fn attach_cuts_a_big_file_at_a_line_break() {
        let (_tmp, ws) = workspace();
        let log: String = (0..10_000).map(|i| format!("line {i:04}\n")).collect();
        write(&ws, "big.log", log);
        let attached = attach(&ws, "@big.log");
        assert_eq!(
            attached.notes,
            vec!["@big.log: attached the first 64 KiB (6,553 of 10,000 lines)"]
        );
        assert!(attached.prompt.ends_with(
            "line 6552\n[cut: showed 6,553 of 10,000 lines; read_file reads the rest]\n</file>"
        ));
    }

    #[test]
    fn attach_stops_when_the_attachments_reach_the_cap() {
        let (_tmp, ws) = workspace();
        let content = "0123456789abcde\n".repeat(3840); // 60 KiB
        for name in ["a", "b", "c", "d", "e"] {
            write(&ws, &format!("{name}.txt"), &content);
        }
        let attached = attach(&ws, "@a.txt @b.txt @c.txt @d.txt @e.txt");
        assert_eq!(attached.prompt.matches("<file ").count(), 4);
        assert_eq!(
            attached.notes,
            vec!["@e.txt not attached: the attachments reached 256 KiB"]
        );
    }

    #[test]
    fn attach_refuses_a_binary_file_and_lists_an_image_apart() {
        let (_tmp, ws) = workspace();
        write(&ws, "x.bin", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
        let attached = attach(&ws, "what is @x.bin");
        assert_eq!(attached.prompt, "what is @x.bin");
        assert_eq!(attached.notes, vec!["@x.bin is binary; not attached"]);
        // By its extension an image is not text: it goes as an image.
        write(&ws, "x.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR");
        let attached = attach(&ws, "what is @x.png");
        assert_eq!(attached.prompt, "what is @x.png");
        assert!(attached.notes.is_empty(), "{:?}", attached.notes);
        assert_eq!(
            attached.images,
            vec![ws.join("x.png").canonicalize().unwrap()]
        );
    }
}
