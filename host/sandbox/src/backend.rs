//! Which OS sandbox this machine offers, found once per process.

use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The user's choice (`[sandbox] backend`): `auto` takes the best there is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BackendChoice {
    #[default]
    Auto,
    Bubblewrap,
    Landlock,
    /// No sandbox: every command is asked about in write mode, as on a
    /// machine without one.
    None,
}

impl FromStr for BackendChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(BackendChoice::Auto),
            "bubblewrap" | "bwrap" => Ok(BackendChoice::Bubblewrap),
            "landlock" => Ok(BackendChoice::Landlock),
            "none" => Ok(BackendChoice::None),
            other => Err(format!(
                "unknown sandbox backend `{other}`; expected auto, bubblewrap, landlock or none"
            )),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backend {
    /// bubblewrap at this path: mount, PID and network namespaces.
    Bubblewrap(PathBuf),
    /// Landlock (this ABI version) with a seccomp filter for the network.
    Landlock(i32),
    /// macOS's `sandbox-exec` with amber's Seatbelt profile.
    Seatbelt,
    /// Nothing: every command needs approval in write mode.
    None(String),
}

impl Backend {
    /// The best backend allowed by `choice`. A backend the user asked for
    /// by name that is missing is reported as `None`, with why.
    pub fn detect(choice: BackendChoice) -> Backend {
        if choice == BackendChoice::None {
            return chosen_none();
        }
        if cfg!(target_os = "macos") {
            return if Path::new("/usr/bin/sandbox-exec").exists() {
                Backend::Seatbelt
            } else {
                Backend::None("/usr/bin/sandbox-exec is missing".into())
            };
        }
        let bwrap = || find_bwrap().filter(|path| bwrap_works(path));
        let landlock = || landlock_abi().filter(|abi| *abi >= 1);
        match choice {
            BackendChoice::Auto => {
                if let Some(path) = bwrap() {
                    return Backend::Bubblewrap(path);
                }
                match landlock() {
                    Some(abi) => Backend::Landlock(abi),
                    None => Backend::None(
                        "bubblewrap is not installed (Debian: apt-get install bubblewrap) and the kernel has no Landlock".into(),
                    ),
                }
            }
            BackendChoice::Bubblewrap => bwrap().map(Backend::Bubblewrap).unwrap_or_else(|| {
                Backend::None(
                    "bubblewrap is not installed or cannot create namespaces here (Debian: apt-get install bubblewrap)".into(),
                )
            }),
            BackendChoice::Landlock => landlock()
                .map(Backend::Landlock)
                .unwrap_or_else(|| Backend::None("the kernel has no Landlock".into())),
            BackendChoice::None => chosen_none(),
        }
    }

    pub fn is_available(&self) -> bool {
        !matches!(self, Backend::None(_))
    }

    /// One line for `doctor` and the once-per-session notice.
    pub fn describe(&self) -> String {
        match self {
            Backend::Bubblewrap(path) => format!("bubblewrap ({})", path.display()),
            Backend::Landlock(abi) => format!("Landlock ABI {abi} with a seccomp network filter"),
            Backend::Seatbelt => "Seatbelt (sandbox-exec)".into(),
            Backend::None(why) => format!("none: {why}"),
        }
    }
}

/// The backend `[sandbox] backend = "none"` chooses.
fn chosen_none() -> Backend {
    Backend::None("the config says `[sandbox] backend = \"none\"`".into())
}

fn find_bwrap() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into());
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/bin")])
        .map(|dir| dir.join("bwrap"))
        .find(|candidate| candidate.is_file())
}

/// bubblewrap may be installed where namespaces are not allowed (some
/// containers), or be older than 0.5, which has no `--add-seccomp-fd`:
/// one trivial run with the real filters says whether it works.
fn bwrap_works(path: &Path) -> bool {
    let mut cmd = std::process::Command::new(path);
    cmd.args([
        "--ro-bind",
        "/",
        "/",
        "--unshare-pid",
        "--unshare-net",
        "--die-with-parent",
    ]);
    #[cfg(target_os = "linux")]
    let filters = {
        let Ok(fds) = crate::bwrap::seccomp_fds(false) else {
            return false;
        };
        crate::bwrap::pass_filters(&mut cmd, &fds);
        fds
    };
    let works = cmd
        .args(["--", "true"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    #[cfg(target_os = "linux")]
    drop(filters);
    works
}

/// The kernel's Landlock ABI version, if it has Landlock.
#[cfg(target_os = "linux")]
fn landlock_abi() -> Option<i32> {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: landlock_create_ruleset with a null attribute, size 0 and the
    // VERSION flag only returns the ABI version (or an error); it creates
    // nothing.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    (abi > 0).then_some(abi as i32)
}

#[cfg(not(target_os = "linux"))]
fn landlock_abi() -> Option<i32> {
    None
}
