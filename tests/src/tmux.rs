//! A real terminal for the TUI's end-to-end tests: tmux runs the real
//! `amber` binary, and the test types into it and reads its screen.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::exec_env::{text, Env};
use crate::fake_llm::FakeLlm;

/// One tmux session running amber, and what it shows.
pub struct Tmux {
    pub name: String,
}

impl Tmux {
    /// Starts `amber ARGS` in a 100×30 terminal; when amber exits, the
    /// pane says so with its exit status and stays for the test to read.
    pub fn start(env: &Env, server: &FakeLlm, name: &str, args: &str) -> Tmux {
        Tmux::start_sized(env, server, name, args, (100, 30))
    }

    /// [`Tmux::start`] in a terminal of `(columns, rows)`.
    pub fn start_sized(
        env: &Env,
        server: &FakeLlm,
        name: &str,
        args: &str,
        (columns, rows): (u16, u16),
    ) -> Tmux {
        let name = format!("{name}-{}", std::process::id());
        let bundle = crate::guests_dir();
        let cache = crate::repo_root().join("target/test-cache");
        let command = format!(
            "env AMBER_HOME='{}' AMBER_WORKSPACE='{}' AMBER_BUNDLE_DIR='{}' AMBER_CACHE_DIR='{}' \
             OPENAI_API_KEY=sk-test OPENAI_BASE_URL='{}' TERM=xterm-256color '{}' {args}; \
             echo \"amber exited $?\"; sleep 60",
            env.home.display(),
            env.ws.display(),
            bundle.display(),
            cache.display(),
            server.openai_base(),
            env.bin(),
        );
        let status = Command::new("tmux")
            .args([
                "new-session",
                "-d",
                "-s",
                &name,
                "-x",
                &columns.to_string(),
                "-y",
                &rows.to_string(),
                "-c",
            ])
            .arg(&env.ws)
            .arg(command)
            .status()
            .expect("tmux runs (cargo xtask test installs it)");
        assert!(status.success(), "tmux new-session failed");
        Tmux { name }
    }

    pub fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["capture-pane", "-p", "-t", &self.name])
            .output()
            .unwrap();
        text(&out.stdout)
    }

    /// Waits until the screen shows `needle`, and returns the screen.
    pub fn wait_for(&self, needle: &str) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(needle) {
                return screen;
            }
            if start.elapsed() > Duration::from_secs(30) {
                panic!("`{needle}` did not appear; the screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    pub fn keys(&self, keys: &[&str]) {
        let status = Command::new("tmux")
            .args(["send-keys", "-t", &self.name])
            .args(keys)
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Waits until `needle` is gone from the screen, and returns it.
    pub fn wait_for_gone(&self, needle: &str) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if !screen.contains(needle) {
                return screen;
            }
            if start.elapsed() > Duration::from_secs(30) {
                panic!("`{needle}` did not go; the screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Pastes `text` as a terminal that does not bracket pastes does:
    /// its line breaks arrive as CR, the Enter key (`tmux paste-buffer`
    /// without `-p`).
    pub fn paste_unbracketed(&self, text: &str) {
        self.paste_buffer(text, false);
    }

    /// Pastes `text` as a terminal that brackets pastes does, when the
    /// application asked it to (`tmux paste-buffer -p`): a dragged file's
    /// path arrives this way.
    pub fn paste(&self, text: &str) {
        self.paste_buffer(text, true);
    }

    fn paste_buffer(&self, text: &str, bracketed: bool) {
        let buffer = format!("{}-paste", self.name);
        let status = Command::new("tmux")
            .args(["set-buffer", "-b", &buffer, text])
            .status()
            .unwrap();
        assert!(status.success());
        let mut paste = Command::new("tmux");
        paste.arg("paste-buffer");
        if bracketed {
            paste.arg("-p");
        }
        let status = paste
            .args(["-d", "-b", &buffer, "-t", &self.name])
            .status()
            .unwrap();
        assert!(status.success());
    }

    /// Types `text` literally, then Enter.
    pub fn type_line(&self, text: &str) {
        let status = Command::new("tmux")
            .args(["send-keys", "-t", &self.name, "-l", text])
            .status()
            .unwrap();
        assert!(status.success());
        self.keys(&["Enter"]);
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.name])
            .status();
    }
}
