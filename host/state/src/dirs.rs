//! Where amber keeps its state. `AMBER_HOME` overrides the XDG dirs (every
//! test sets it), and `AMBER_CACHE_DIR` overrides the compiled-code cache
//! alone, so fresh homes can share compiled components.

use std::path::{Path, PathBuf};

use crate::atomic::StaleTemps;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AmberDirs {
    pub config: PathBuf,
    pub data: PathBuf,
    pub cache: PathBuf,
}

impl AmberDirs {
    /// Resolves the dirs from the process environment.
    pub fn from_env() -> Self {
        Self::resolve(|key| {
            std::env::var_os(key)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        })
    }

    /// Resolves the dirs from `var`, a lookup of environment variables.
    pub fn resolve(var: impl Fn(&str) -> Option<PathBuf>) -> Self {
        let home = var("HOME").unwrap_or_else(|| PathBuf::from("/tmp"));
        let (config, data, cache) = match var("AMBER_HOME") {
            Some(root) => (root.clone(), root.join("data"), root.join("cache")),
            None => {
                let xdg = |key: &str, fallback: &str| {
                    var(key)
                        .unwrap_or_else(|| home.join(fallback))
                        .join("amber")
                };
                let config = xdg("XDG_CONFIG_HOME", ".config");
                (
                    config,
                    xdg("XDG_DATA_HOME", ".local/share"),
                    xdg("XDG_CACHE_HOME", ".cache"),
                )
            }
        };
        let cache = var("AMBER_CACHE_DIR").unwrap_or(cache);
        AmberDirs {
            config,
            data,
            cache,
        }
    }

    /// All dirs under one root; what tests use.
    pub fn under(root: &Path) -> Self {
        AmberDirs {
            config: root.to_path_buf(),
            data: root.join("data"),
            cache: root.join("cache"),
        }
    }

    /// Compiled components, keyed by content and engine.
    pub fn compiled(&self) -> PathBuf {
        self.cache.join("compiled")
    }

    /// A plugin's own data, including its log.
    pub fn plugin_data(&self, id: &str) -> PathBuf {
        self.data.join("plugins").join(id)
    }

    /// Removes the temporary files an amber killed mid-write left in the
    /// folders amber replaces files in (`crate::atomic`): the config
    /// folder, the data folder (MCP pins, hook trust), `data/plugins/` and
    /// each plugin's folder, the checkpoint journals, and the cache and
    /// its folders (`compiled/`). Not the rest of the data folder:
    /// sessions are appended, never replaced (a fork, written whole,
    /// sweeps them itself), and thousands of them would be listed at
    /// every start for nothing. Run at every start, and by `amber doctor`,
    /// which says what it removed.
    pub fn remove_stale_temps(&self) -> StaleTemps {
        let plugins = self.data.join("plugins");
        let mut folders = vec![
            self.config.clone(),
            self.data.clone(),
            self.cache.clone(),
            // A turn's checkpoint journal.
            self.data.join("checkpoints").join("pending"),
        ];
        folders.extend(subfolders(&plugins));
        folders.push(plugins);
        folders.extend(subfolders(&self.cache));
        folders.sort();
        folders.dedup();
        let mut found = StaleTemps::default();
        for folder in folders {
            let more = crate::atomic::remove_stale_temps(&folder);
            found.removed.extend(more.removed);
            found.kept.extend(more.kept);
        }
        found
    }
}

/// The folders in `folder` (symlinks not followed), none when unreadable.
fn subfolders(folder: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn dirs(vars: &[(&str, &str)]) -> AmberDirs {
        let map: HashMap<String, PathBuf> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), PathBuf::from(v)))
            .collect();
        AmberDirs::resolve(|k| map.get(k).cloned())
    }

    #[test]
    fn amber_home_overrides_xdg_and_cache_dir_overrides_only_the_cache() {
        let d = dirs(&[
            ("HOME", "/h"),
            ("XDG_DATA_HOME", "/x"),
            ("AMBER_HOME", "/a"),
        ]);
        assert_eq!(d.data, PathBuf::from("/a/data"));
        let d = dirs(&[("AMBER_HOME", "/a"), ("AMBER_CACHE_DIR", "/c")]);
        assert_eq!(
            (d.cache, d.config),
            (PathBuf::from("/c"), PathBuf::from("/a"))
        );
    }

    #[test]
    fn stale_temps_are_found_two_levels_down() {
        let root = tempfile::tempdir().unwrap();
        let dirs = AmberDirs::under(root.path());
        let kept = dirs.plugin_data("notes");
        std::fs::create_dir_all(&kept).unwrap();
        std::fs::create_dir_all(dirs.compiled()).unwrap();
        // A pid that cannot run: above the kernel's maximum.
        let stale = [
            kept.join(".tmp-4194305-0"),
            dirs.compiled().join(".x.cwasm.amber-tmp-4194305-1"),
            root.path().join(".config.toml.amber-tmp-4194305-2"),
        ];
        for path in &stale {
            std::fs::write(path, "half").unwrap();
        }
        std::fs::write(kept.join("abc.wasm"), "kept").unwrap();
        let found = dirs.remove_stale_temps();
        assert_eq!(found.removed.len(), 3, "{found:?}");
        assert!(stale.iter().all(|p| !p.exists()));
        assert!(kept.join("abc.wasm").exists());
    }

    #[test]
    fn xdg_dirs_default_under_home() {
        let d = dirs(&[("HOME", "/h")]);
        assert_eq!(d.config, PathBuf::from("/h/.config/amber"));
        assert_eq!(d.compiled(), PathBuf::from("/h/.cache/amber/compiled"));
    }
}
