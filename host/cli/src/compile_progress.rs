//! What a person sees while components compile: a bar on a terminal
//! ("compiling 3 components, first run only"), one line otherwise for a
//! batch of 1 MiB of wasm or more, so a first run that takes seconds never
//! looks hung. Nothing at all when every
//! component comes from a cache.

use std::io::IsTerminal;
use std::path::Path;
use std::sync::Mutex;

use amber_runtime::CompileProgress;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Off a terminal, compiles of less wasm than this pass without a word.
const ANNOUNCE_FROM_BYTES: u64 = 1 << 20;

/// Shows compiles on stderr.
pub struct CompileBar {
    bar: Mutex<Option<ProgressBar>>,
    terminal: bool,
}

impl CompileBar {
    pub fn new() -> Self {
        CompileBar {
            bar: Mutex::new(None),
            terminal: std::io::stderr().is_terminal(),
        }
    }

    fn with_bar<T>(&self, f: impl FnOnce(&mut Option<ProgressBar>) -> T) -> T {
        let mut bar = self.bar.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut bar)
    }

    /// The bar, made on first need with `len` components to go.
    fn bar(slot: &mut Option<ProgressBar>, len: u64) -> &ProgressBar {
        slot.get_or_insert_with(|| {
            let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template(
                    "{spinner} compiling {len} components, first run only {wide_bar} {pos}/{len} {msg} {elapsed}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar.enable_steady_tick(std::time::Duration::from_millis(120));
            bar.set_length(len);
            bar
        })
    }
}

impl Default for CompileBar {
    fn default() -> Self {
        Self::new()
    }
}

fn name(origin: &Path) -> String {
    origin
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| origin.display().to_string())
}

impl CompileProgress for CompileBar {
    fn expect(&self, n: usize, bytes: u64) {
        // Off a terminal (a log, a pipe) only a wait worth a word is
        // announced: Cranelift takes roughly half a second per MiB of wasm,
        // and a small plugin's compile would only add a line to stderr
        // that scripts read.
        if !self.terminal && bytes >= ANNOUNCE_FROM_BYTES {
            eprintln!(
                "amber: compiling {}, first run only",
                amber_core::text::count(n, "component")
            );
        }
        self.with_bar(|slot| {
            let made = slot.is_some();
            let bar = Self::bar(slot, n as u64);
            if made {
                bar.inc_length(n as u64);
            }
        });
    }

    fn started(&self, origin: &Path) {
        self.with_bar(|slot| {
            // Off a terminal only a counted batch is announced (in
            // `expect`): one component added or inspected says nothing.
            let known = slot
                .as_ref()
                .is_some_and(|b| b.position() < b.length().unwrap_or(0));
            let bar = Self::bar(slot, 0);
            if !known {
                bar.inc_length(1);
            }
            if self.terminal {
                bar.set_message(name(origin));
            }
        });
    }

    fn finished(&self, _origin: &Path) {
        self.with_bar(|slot| {
            let Some(bar) = slot.as_ref() else { return };
            bar.inc(1);
            if bar.position() >= bar.length().unwrap_or(0) {
                bar.finish_and_clear();
                *slot = None;
            }
        });
    }
}
