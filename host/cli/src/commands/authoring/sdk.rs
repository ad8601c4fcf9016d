//! Where the installed amber keeps the SDKs and the WIT, so that a plugin
//! folder anywhere builds without a checkout or a network: `$AMBER_SDK_DIR`
//! when set, else `PREFIX/share/amber/sdk` beside `PREFIX/bin/amber` (what
//! `cargo xtask install` lays out), else the checkout a development build
//! runs from.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

/// The folder holding `wit/`, `rust/`, `python/` and `js/`.
pub fn dir() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("AMBER_SDK_DIR").filter(|v| !v.is_empty()) {
        let dir = PathBuf::from(dir);
        return valid(&dir).then_some(dir.clone()).ok_or_else(|| {
            anyhow::anyhow!(
                "AMBER_SDK_DIR={} has no wit/worlds.wit: it is not amber's SDK folder",
                dir.display()
            )
        });
    }
    let exe = std::env::current_exe()?;
    for ancestor in exe.ancestors().skip(1) {
        let installed = ancestor.join("share/amber/sdk");
        if valid(&installed) {
            return Ok(installed);
        }
        // A development build: target/debug/amber inside the checkout,
        // whose sdk/ and wit/ sit side by side.
        let checkout = ancestor.join("sdk");
        if checkout.join("rust/Cargo.toml").is_file() && ancestor.join("wit/worlds.wit").is_file() {
            return Ok(checkout);
        }
    }
    bail!(
        "cannot find amber's SDK folder beside {}: reinstall amber (`cargo xtask install`), or set AMBER_SDK_DIR",
        exe.display()
    )
}

fn valid(dir: &Path) -> bool {
    wit(dir).join("worlds.wit").is_file()
}

/// The WIT: `SDK/wit` when installed, `SDK/../wit` in a checkout.
pub fn wit(sdk: &Path) -> PathBuf {
    let inside = sdk.join("wit");
    if inside.join("worlds.wit").is_file() {
        return inside;
    }
    sdk.parent().map(|p| p.join("wit")).unwrap_or(inside)
}
