//! Installs what the build needs, only when it is missing.

use std::process::Command;

use anyhow::Result;

use crate::run;

/// Makes `python3 -m <module>` work, installing the Debian package that
/// carries the module when it does not (pip and venv are split out of
/// Debian's python3).
pub fn ensure_python_module(module: &str, debian_package: &str) -> Result<()> {
    let works = Command::new("python3")
        .args(["-m", module, "--help"])
        .output()
        .is_ok_and(|o| o.status.success());
    if works {
        return Ok(());
    }
    ensure_debian_packages(&[debian_package])
}

/// Makes `command` runnable, installing `debian_package` when it is not on
/// the PATH. Checked by the command, not the package: a tool installed
/// another way (Node from nodesource carries its own npm) is left alone,
/// where installing Debian's package over it would conflict.
pub fn ensure_command(command: &str, debian_package: &str) -> Result<()> {
    let found = Command::new(command)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if found {
        return Ok(());
    }
    ensure_debian_packages(&[debian_package])
}

fn package_installed(name: &str) -> bool {
    Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", name])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains("install ok installed"))
        .unwrap_or(false)
}

/// `apt-get install -y <packages>` for those not installed yet, after one
/// `apt-get update`.
pub fn ensure_debian_packages(packages: &[&str]) -> Result<()> {
    let missing: Vec<&str> = packages
        .iter()
        .copied()
        .filter(|p| !package_installed(p))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    eprintln!("xtask: installing Debian packages: {}", missing.join(" "));
    let sudo = |args: &[&str]| {
        let is_root = Command::new("id")
            .arg("-u")
            .output()
            .map(|o| o.stdout.starts_with(b"0"))
            .unwrap_or(false);
        let mut cmd = if is_root {
            Command::new(args[0])
        } else {
            Command::new("sudo")
        };
        if !is_root {
            cmd.arg(args[0]);
        }
        cmd.args(&args[1..])
            .env("DEBIAN_FRONTEND", "noninteractive");
        cmd
    };
    run(&mut sudo(&["apt-get", "update"]))?;
    let mut args = vec!["apt-get", "install", "-y"];
    args.extend(&missing);
    run(&mut sudo(&args))
}
