//! The TUI (issue 26). In process, with ratatui's TestBackend at 120×40:
//! a keystroke to its frame in a 2,000-message session (p95), against the
//! same in a 10-message session; and the draw of a frame against drawing
//! the same lines, already laid out, with bare ratatui. On the installed
//! binary in a real pseudo-terminal (`script`): launch to the first frame
//! with a warm AOT cache, against `amber --version` through the same
//! wrapper, and the resident memory at the first frame, before any
//! prompt, against `amber --version`'s peak.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use amber_core::engine::{AgentEvent, DeltaKind, Status};
use amber_tui::history::Cell;
use amber_tui::ui::Ui;
use anyhow::{ensure, Context, Result};
use ratatui::backend::TestBackend;
use ratatui::text::Text;
use ratatui::widgets::Paragraph;
use ratatui::Terminal;

use crate::measure::{median, paired_ms, Figure, Rows};

const WIDTH: u16 = 120;
const HEIGHT: u16 = 40;
const KEYS: usize = 2_000;
const FRAMES: usize = 2_001;

const REPLY: &str = "## What changed\n\nThe parser now keeps **every** token's span, so `outline` can point at the exact line. See [the docs](https://example.com/parser).\n\n- spans are byte ranges\n- lines are counted once\n\n```rust\nfn span(&self) -> Range<usize> {\n    self.start..self.end\n}\n```\n";

/// A session of `rounds` × 4 cells: a prompt, a reply in markdown with a
/// code block, a tool card with its output, and a short reply.
fn session(rounds: usize) -> Ui {
    let mut ui = Ui::new();
    for i in 0..rounds {
        ui.history
            .push(Cell::User(format!("Step {i}: look at module {i}.")));
        ui.apply(
            AgentEvent::MessageDelta {
                turn: 1,
                kind: DeltaKind::Text,
                text: REPLY.into(),
            },
            None,
        );
        let id = format!("c{i}");
        ui.apply(
            AgentEvent::ToolCall {
                turn: 1,
                id: id.clone(),
                name: "read_file".into(),
                arguments: format!("{{\"path\":\"src/module_{i}.rs\"}}"),
            },
            None,
        );
        ui.apply(
            AgentEvent::ToolResult {
                turn: 1,
                id,
                name: "read_file".into(),
                status: Status::Ok,
                output: "fn main() {\n    run();\n}\n".repeat(4),
                meta: None,
            },
            None,
        );
        ui.history.push(Cell::Assistant(format!(
            "Module {i} reads its config once."
        )));
    }
    ui
}

fn terminal() -> Result<Terminal<TestBackend>> {
    Ok(Terminal::new(TestBackend::new(WIDTH, HEIGHT))?)
}

/// p95 in milliseconds of a keystroke (one character into the prompt)
/// and the frame that shows it.
fn keystroke_p95(ui: &mut Ui) -> Result<f64> {
    let mut term = terminal()?;
    term.draw(|f| ui.draw(f))?;
    let mut samples = Vec::with_capacity(KEYS);
    for i in 0..KEYS {
        if i % 100 == 99 {
            ui.composer.clear();
        }
        let start = Instant::now();
        ui.composer.insert('x');
        term.draw(|f| ui.draw(f))?;
        samples.push(start.elapsed().as_secs_f64() * 1e3);
    }
    samples.sort_by(|a, b| a.total_cmp(b));
    Ok(samples[samples.len() * 95 / 100])
}

pub fn run(rows: &mut Rows) -> Result<()> {
    let mut long = session(KEYS / 4);
    ensure!(
        long.history.len() == KEYS,
        "the session has {} cells",
        long.history.len()
    );
    let mut short = session(10 / 4 + 1);
    let long_p95 = keystroke_p95(&mut long)?;
    let short_p95 = keystroke_p95(&mut short)?;
    rows.push(
        Figure {
            name: "tui_keystroke_to_frame_p95_2000_messages",
            unit: "ms",
            value: long_p95,
            baseline: Some(("keystroke_to_frame_p95_10_messages", short_p95)),
            goal_value: Some(4.0),
            goal_ratio: None,
        }
        .row(),
    )?;

    // A frame of the long session, against its visible lines drawn bare.
    let mut term = terminal()?;
    term.draw(|f| long.draw(f))?;
    let (lines, _) = long.history.visible(WIDTH, usize::from(HEIGHT), 0, ' ');
    let mut bare_term = terminal()?;
    let mut frame_samples = Vec::with_capacity(FRAMES);
    let mut bare_samples = Vec::with_capacity(FRAMES);
    for _ in 0..FRAMES {
        let start = Instant::now();
        term.draw(|f| long.draw(f))?;
        frame_samples.push(start.elapsed().as_secs_f64() * 1e3);
        let start = Instant::now();
        bare_term.draw(|f| f.render_widget(Paragraph::new(Text::from(lines.clone())), f.area()))?;
        bare_samples.push(start.elapsed().as_secs_f64() * 1e3);
    }
    let (frame, bare) = (median(frame_samples), median(bare_samples));
    rows.push(
        Figure {
            name: "tui_frame_draw_2000_messages",
            unit: "ms",
            value: frame,
            baseline: Some(("bare_ratatui_prelaid_lines", bare)),
            goal_value: None,
            goal_ratio: Some(2.0),
        }
        .row(),
    )?;

    drawer(rows)?;
    first_frame(rows)
}

/// A tree of 5,050 nodes: 50 plugin roots of 100 subcommands each, as a
/// host with many command plugins would merge.
fn big_tree() -> amber_core::commands::Node {
    use amber_core::commands::Node;
    let mut tree = Node::new("");
    for r in 0..50 {
        let mut root = Node::new(format!("plugin root {r}: what it does, in one line"));
        for c in 0..100 {
            root = root.with_child(
                format!("sub{c:03}"),
                Node::new(format!("subcommand {c} of root {r}")).with_action("x"),
            );
        }
        tree = tree.with_child(format!("root{r:02}"), root);
    }
    tree
}

/// A keystroke in a slash command: the candidates for the new prefix
/// from a 5,000-node tree, the drawer rebuilt, and the frame drawn; p95
/// against the same keystroke and frame with no drawer (plain text).
fn drawer(rows: &mut Rows) -> Result<()> {
    use amber_tui::drawer::Drawer;
    let tree = big_tree();
    ensure!(tree.count() > 5_000, "the tree has {} nodes", tree.count());
    let lines = ["/root1", "/root2", "/root07 sub0", "/root33 sub09", "/r"];
    let mut ui = session(10);
    let mut term = terminal()?;
    let mut with_drawer = Vec::with_capacity(KEYS);
    let mut plain = Vec::with_capacity(KEYS);
    for i in 0..KEYS {
        let line = lines[i % lines.len()];
        ui.composer.clear();
        ui.composer.paste(line);
        let start = Instant::now();
        ui.drawer = Drawer::new(line, tree.complete(line));
        term.draw(|f| ui.draw(f))?;
        with_drawer.push(start.elapsed().as_secs_f64() * 1e3);
        ensure!(ui.drawer.is_some(), "no candidates for {line}");
        ui.drawer = None;
        ui.composer.clear();
        ui.composer.paste("plain text");
        let start = Instant::now();
        ui.composer.insert('x');
        term.draw(|f| ui.draw(f))?;
        plain.push(start.elapsed().as_secs_f64() * 1e3);
    }
    let p95 = |mut v: Vec<f64>| {
        v.sort_by(|a, b| a.total_cmp(b));
        v[v.len() * 95 / 100]
    };
    rows.push(
        Figure {
            name: "tui_drawer_candidates_5000_nodes_p95",
            unit: "ms",
            value: p95(with_drawer),
            baseline: Some(("keystroke_to_frame_without_drawer_p95", p95(plain))),
            goal_value: Some(4.0),
            goal_ratio: None,
        }
        .row(),
    )
}

/// The installed binary, when the xtask installed one.
fn installed() -> Option<PathBuf> {
    std::env::var_os("AMBER_BENCH_INSTALLED").map(PathBuf::from)
}

/// `amber ARGS` in a pseudo-terminal (util-linux `script`), in `home`.
fn in_terminal(
    bin: &Path,
    home: &Path,
    workspace: &Path,
    args: &str,
    report: Option<&Path>,
) -> Result<()> {
    // A 120×40 terminal: `script`'s own stdin is no terminal to copy from.
    let command = format!("stty rows 40 cols 120; '{}' {args}", bin.display());
    let mut cmd = Command::new("script");
    cmd.args(["-q", "-e", "-c", &command, "/dev/null"])
        .current_dir(workspace)
        .env("AMBER_HOME", home)
        .env("OPENAI_API_KEY", "sk-bench")
        .env("TERM", "xterm-256color")
        .env_remove("AMBER_CACHE_DIR")
        .env_remove("AMBER_BUNDLE_DIR")
        .env_remove("AMBER_WORKSPACE")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if let Some(report) = report {
        cmd.env("AMBER_TUI_FIRST_FRAME_REPORT", report);
    }
    let out = cmd.output().context("cannot run `script` (util-linux)")?;
    ensure!(
        out.status.success(),
        "amber {args} in a terminal failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(())
}

/// The largest resident set of the children waited for so far, in KiB.
fn children_peak_kib() -> u64 {
    // SAFETY: getrusage writes into the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    usage.ru_maxrss.max(0) as u64
}

fn first_frame(rows: &mut Rows) -> Result<()> {
    let Some(bin) = installed() else {
        eprintln!("bench: the TUI's start-up rows skipped: AMBER_BENCH_INSTALLED is not set (cargo xtask bench sets it)");
        return Ok(());
    };
    let scratch = tempfile::tempdir()?;
    let home = scratch.path().join("home");
    let workspace = scratch.path().join("ws");
    std::fs::create_dir_all(&home)?;
    std::fs::create_dir_all(&workspace)?;
    let report = scratch.path().join("first-frame.json");
    // The version first: the children's peak is then amber --version's
    // (and script's), before the TUI raises it.
    in_terminal(&bin, &home, &workspace, "--version", None)?;
    let version_peak = children_peak_kib();
    // paired_ms warms both up (the AOT cache among them) before timing.
    let (tui, version) = paired_ms(
        15,
        || in_terminal(&bin, &home, &workspace, "", Some(&report)),
        || in_terminal(&bin, &home, &workspace, "--version", None),
    )?;
    rows.push(
        Figure {
            name: "tui_first_frame_warm",
            unit: "ms",
            value: tui,
            baseline: Some(("amber_version_in_the_same_terminal", version)),
            goal_value: Some(40.0),
            goal_ratio: None,
        }
        .row(),
    )?;
    let text = std::fs::read_to_string(&report)
        .with_context(|| format!("the TUI wrote no report to {}", report.display()))?;
    let rss_kib = serde_json::from_str::<serde_json::Value>(&text)?["rss_kib"]
        .as_u64()
        .unwrap_or(0);
    ensure!(rss_kib > 0, "the TUI reported no resident memory: {text}");
    rows.push(
        Figure {
            name: "tui_rss_after_first_frame",
            unit: "MiB",
            value: rss_kib as f64 / 1024.0,
            baseline: Some(("amber_version_peak_rss", version_peak as f64 / 1024.0)),
            goal_value: Some(40.0),
            goal_ratio: None,
        }
        .row(),
    )
}
