//! Live reload in the TUI: the plugin directory's watcher wakes the loop,
//! which waits a moment for a copy to finish, syncs the App with the
//! directory, and says what changed.

use amber_app::watch::{PluginWatcher, QUIET, SETTLE_AT_MOST};
use amber_runtime::manager::DirChange;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};

use super::Driver;
use crate::history::NoticeKind;
use crate::pane::Pane;

/// The watcher and what it wakes; none (with the reason) when the
/// directory cannot be watched.
pub(super) fn watch(
    dir: &std::path::Path,
) -> (Option<PluginWatcher>, UnboundedReceiver<()>, Option<String>) {
    let (tx, rx) = unbounded_channel();
    match PluginWatcher::start(dir, move || {
        let _ = tx.send(());
    }) {
        Ok(watcher) => (Some(watcher), rx, None),
        Err(e) => (
            None,
            rx,
            Some(format!(
                "{e:#}; plugins changed on disk load at the next start"
            )),
        ),
    }
}

impl Driver {
    /// The watcher fired: wait out the burst (until no event came for
    /// [`QUIET`]), then sync once.
    pub(super) async fn plugin_dir_changed(&mut self) {
        let start = tokio::time::Instant::now();
        while start.elapsed() < SETTLE_AT_MOST {
            match tokio::time::timeout(QUIET, self.reloads.recv()).await {
                Ok(Some(())) => continue,
                Ok(None) | Err(_) => break,
            }
        }
        for change in self.app.sync_plugin_dir() {
            let (kind, text) = describe(&change);
            self.ui.notice(kind, text);
        }
        let rows = self.plugin_rows();
        if let Some(Pane::Plugins(view)) = &mut self.ui.pane {
            view.refresh(rows);
        }
    }
}

fn describe(change: &DirChange) -> (NoticeKind, String) {
    match change {
        DirChange::Reloaded { id } => (
            NoticeKind::Info,
            format!("plugin `{id}` reloaded: new calls use the new version"),
        ),
        DirChange::Waiting { id, permissions } => {
            let names: Vec<&str> = permissions.iter().map(|p| p.as_str()).collect();
            (
                NoticeKind::Warning,
                format!(
                    "plugin `{id}` changed and now asks for {}: it waits, deactivated, until you decide in the plugin view (ctrl-p)",
                    names.join(", ")
                ),
            )
        }
        DirChange::Added { id } => (
            NoticeKind::Info,
            format!("plugin `{id}` found: registered; enable it in the plugin view (ctrl-p)"),
        ),
        DirChange::Removed { id } => (
            NoticeKind::Info,
            format!("plugin `{id}` removed: its file is gone"),
        ),
        DirChange::Failed { path, reason } => (
            NoticeKind::Error,
            format!(
                "cannot load {}: {reason}; amber goes on without it",
                path.display()
            ),
        ),
    }
}
