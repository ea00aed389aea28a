//! Running `ip` and `tc`: the system's, or a recording one in tests.

use crate::error::LinkError;
use std::process::{Command, Stdio};

/// Runs a program; `Ok(stdout)` when it succeeded, its last words in [`LinkError::Refused`] otherwise.
pub trait Runner {
    fn run(&self, program: &str, args: &[String]) -> Result<String, LinkError>;
}

/// The system's programs, found where iproute2 installs them when PATH lacks sbin.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemRunner;

impl Runner for SystemRunner {
    fn run(&self, program: &str, args: &[String]) -> Result<String, LinkError> {
        let path = ["/usr/sbin", "/sbin", "/usr/bin", "/bin"]
            .iter()
            .map(|d| std::path::Path::new(d).join(program))
            .find(|p| p.exists())
            .unwrap_or_else(|| program.into());
        let out = Command::new(&path)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .map_err(|source| LinkError::Spawn { program: program.to_string(), source })?;
        if out.status.success() {
            return Ok(String::from_utf8_lossy(&out.stdout).into_owned());
        }
        let text = String::from_utf8_lossy(if out.stderr.is_empty() { &out.stdout } else { &out.stderr }).into_owned();
        let message = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("; ");
        Err(LinkError::Refused { argv: format!("{program} {}", args.join(" ")), message })
    }
}
