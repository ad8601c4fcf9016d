//! API keys, read once into the wire layer and out of amber's
//! environment.
//!
//! At start the binary calls [`capture_from_env`]: every variable whose
//! name looks like a secret moves into this store, its bytes in the
//! process's original environment block are overwritten (that block is
//! what `/proc/PID/environ` shows, even after `unsetenv`), and the
//! variable is removed. With amber non-dumpable and children unable to
//! trace it, no command can read a key back out of amber.

use std::collections::BTreeMap;
use std::sync::Mutex;

static STORE: Mutex<BTreeMap<String, String>> = Mutex::new(BTreeMap::new());

/// Whether a variable's name says it holds a secret: the spawner's rule,
/// so what is kept from commands and what is captured here agree.
pub use amber_sandbox::looks_secret;

/// Moves every secret-looking variable into the store and scrubs it from
/// the process. Call it first thing in `main`, before any thread starts:
/// it writes to the environment.
pub fn capture_from_env() -> usize {
    let names: Vec<String> = std::env::vars_os()
        .filter_map(|(k, _)| k.into_string().ok())
        .filter(|k| looks_secret(k))
        .collect();
    let mut store = STORE.lock().unwrap_or_else(|e| e.into_inner());
    for name in &names {
        if let Ok(value) = std::env::var(name) {
            store.insert(name.clone(), value);
        }
        scrub_original(name);
        std::env::remove_var(name);
    }
    names.len()
}

/// The key in `name`: from the store, else (a name that does not look
/// like a secret, e.g. a custom `key_env`) from the environment.
pub fn get(name: &str) -> Option<String> {
    let stored = STORE.lock().ok().and_then(|store| store.get(name).cloned());
    stored.or_else(|| std::env::var(name).ok())
}

/// Whether `name` holds a non-blank key.
pub fn is_set(name: &str) -> bool {
    get(name).is_some_and(|v| !v.trim().is_empty())
}

/// Overwrites the value of `name` in the environment strings as the
/// process received them.
fn scrub_original(name: &str) {
    #[cfg(unix)]
    {
        extern "C" {
            static mut environ: *const *mut libc::c_char;
        }
        let prefix = format!("{name}=");
        // SAFETY: called from `capture_from_env` before other threads run;
        // `environ` is the NULL-terminated array of NUL-terminated strings
        // libc keeps, and each string is writable memory of this process.
        // Only the bytes after `NAME=` and before the NUL are written.
        unsafe {
            let mut entry = environ;
            if entry.is_null() {
                return;
            }
            while !(*entry).is_null() {
                let text = std::ffi::CStr::from_ptr(*entry).to_bytes();
                if text.starts_with(prefix.as_bytes()) {
                    let value = (*entry).add(prefix.len());
                    std::ptr::write_bytes(value, 0, text.len() - prefix.len());
                }
                entry = entry.add(1);
            }
        }
    }
}
